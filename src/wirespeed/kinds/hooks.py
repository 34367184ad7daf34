"""What a kind does, as objects: the hooks each kind's module (kinds/iperf.py ...) gives,
with what it is (its TrialKind, trial_kind.py), which the same module declares.

The hooks live above the run loop, with the layers whose functions they hold below them:
a hook is the function, model or driver itself, imported, never a name resolved later.
Layers above ask kinds/catalog.py; the layers below (the runner, the plan's checks and
`expect:`, the benchmarks' drivers) reach them through trial_kind.hooks_of, and what a
kind is through trial_kind.kind_of.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, cast

from pydantic import BaseModel

from wirespeed.model import Measurement, TestCase, Trial, TrialOutcome
from wirespeed.plan.checks import KindChecks
from wirespeed.plan.yields import KindYields
from wirespeed.run.exchange_trial import ExchangeDriver, run_exchange_trial
from wirespeed.run.site import TrialSite
from wirespeed.tools.bench import BenchDriver
from wirespeed.trial_kind import TrialKind

# How a trial of the kind runs: the runner calls it with the trial and its site.
Run = Callable[[Trial, TrialSite], TrialOutcome]


class Estimate(Protocol):
    """How long one trial of the kind runs, from the plan alone: in_lab is whether the
    plan runs in the emulated lab (a search's full-length trials are shorter there)."""

    def __call__(self, test: TestCase, in_lab: bool) -> float: ...


class Summary(Protocol):
    """What a finished trial says after its name on the terminal (cli/progress.py)."""

    def __call__(self, measurements: Sequence[Measurement]) -> str: ...


@dataclass(frozen=True)
class KindHooks:
    kind: TrialKind  # what it is: its name, the tools it serves, its flags (trial_kind.py)
    run: Run
    estimate: Estimate  # seconds of one trial, for the ETA, `card`, `check` and `plans`
    # Its `options:` model (pydantic); None: its settings are the test's own keys.
    options: type[BaseModel] | None = None
    # The tool's parser and argv: a benchmark's commands, or a request/response exchange.
    driver: BenchDriver | ExchangeDriver | None = None
    # The measurements its settings make, besides the kind's `measures` and those of
    # probes beside flows (plan/yields.py); None: nothing more.
    yields: KindYields | None = None
    # The plan checks that are its own, run on the test and its paths before the generic
    # ones (plan/checks.py); None: the generic ones only.
    checks: KindChecks | None = None
    # After a finished trial's name; None: its flows' goodput, or how many figures.
    summary: Summary | None = None


class _Timed(Protocol):
    """An exchange's `options:`: how long its client runs."""

    @property
    def duration(self) -> int: ...


def exchange_hooks(kind: TrialKind, driver: ExchangeDriver, options: type[BaseModel]) -> KindHooks:
    """The hooks of a kind measured by an exchange between the path's ends
    (run/exchange_trial.py): its driver gives the argv and the parser of the figures, its
    `options:` model the `duration` one trial lasts."""

    def exchange_seconds(test: TestCase, in_lab: bool) -> float:
        return float(cast(_Timed, test.settings_as(options)).duration)

    return KindHooks(
        kind,
        run=run_exchange_trial,
        estimate=exchange_seconds,
        options=options,
        driver=driver,
    )
