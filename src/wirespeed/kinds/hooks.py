"""What a kind does, as objects: the hooks each kind's module (kinds/iperf.py ...) gives,
beside what it is (its TrialKind in kinds/registry.py).

The hooks live above the run loop, with the layers whose functions they hold below them:
a hook is the function itself, imported, never a name resolved later. kinds/catalog.py
holds every kind's, and only layers above the run loop ask it (the command line's ETA,
`check`, `plans`, `card` and the line after a finished trial).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from wirespeed.kinds.registry import TrialKind
from wirespeed.model import Measurement, TestCase


class Estimate(Protocol):
    """How long one trial of the kind runs, from the plan alone: in_lab is whether the
    plan runs in the emulated lab (a search's full-length trials are shorter there)."""

    def __call__(self, test: TestCase, in_lab: bool) -> float: ...


class Summary(Protocol):
    """What a finished trial says after its name on the terminal (cli/progress.py)."""

    def __call__(self, measurements: Sequence[Measurement]) -> str: ...


@dataclass(frozen=True)
class KindHooks:
    kind: TrialKind  # what it is: its name, tools, flags (kinds/registry.py)
    estimate: Estimate  # seconds of one trial, for the ETA, `card`, `check` and `plans`
    # After a finished trial's name; None: its flows' goodput, or how many figures.
    summary: Summary | None = None
