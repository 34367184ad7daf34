"""Where a trial runs and how it reports, as the runner hands it to the trial's kind.

The runner knows hosts, labs, tunnels and the run's samplers; a kind (kinds/) knows
how its trial runs. The site is what passes between them: the kind asks for the place
it needs (two endpoints across a path, the one host of a device path, a search's legs)
and the runner finds it then. A place that cannot be had (a lab gone, a host without an
address) raises NotSetUp: the runner records the trial as failed with the reason, and
the run goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.model import Finding, PowerSettings
from wirespeed.sampling.session import SamplerSource

if TYPE_CHECKING:
    from wirespeed.run.search_generators import FrameJournal
    from wirespeed.run.search_legs import SearchPath
    from wirespeed.run.trial_life import Endpoints


class NotSetUp(WirespeedError):
    """The trial's place could not be set up: it fails with this reason before it runs."""


@dataclass(frozen=True)
class TrialSite:
    endpoints: Callable[[], Endpoints]  # a client and a server across the trial's path
    device: Callable[[], Host]  # the one host of a device path
    search_path: Callable[[], SearchPath]  # a search's senders and receivers
    watched: Callable[[], Sequence[tuple[str, Host]]]  # the hosts to sample, by role
    sample_interval: float
    samplers: SamplerSource
    on_tick: Callable[[float], None]
    on_step: Callable[[str], None]
    notice: Callable[[str], None]
    notice_once: Callable[[str], None]  # once per run: a benchmark's, not per repetition
    before_start: Callable[[Host], list[Finding]]  # was the host busy before it began?
    power: PowerSettings | None = None
    # Where a search journals tcpreplay's frame files (None: a run without a journal).
    frames: FrameJournal | None = None
