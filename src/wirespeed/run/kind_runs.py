"""How a trial of each kind runs on its site: each kind's `run` hook (kinds/).

Each takes the trial and its site (run/site.py), asks the site for the place it needs,
and hands over to the module that runs that kind's trial. Nothing here chooses a kind:
the runner calls the trial's kind's `run` hook (kinds/).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from wirespeed.hosts.base import Host
from wirespeed.model import PowerSettings, Trial, TrialOutcome
from wirespeed.run.site import TrialSite
from wirespeed.sampling.session import SamplerSource

if TYPE_CHECKING:
    from wirespeed.run.trial_life import Endpoints


class BetweenEnds(Protocol):
    """A trial between a path's client and server (run/trial.py, run/rrul_trial.py)."""

    def __call__(
        self,
        trial: Trial,
        endpoints: Endpoints,
        *,
        on_tick: Callable[[float], None] | None,
        watch: Sequence[tuple[str, Host]],
        sample_interval: float,
        samplers_from: SamplerSource | None,
        power: PowerSettings | None,
        notice: Callable[[str], None] | None,
    ) -> TrialOutcome: ...


def _between_ends(trial: Trial, site: TrialSite, run: BetweenEnds) -> TrialOutcome:
    """`run` between the path's client and server, with what the site gives each trial."""
    return run(
        trial,
        site.endpoints(),
        on_tick=site.on_tick,
        watch=site.watched(),
        sample_interval=site.sample_interval,
        samplers_from=site.samplers,
        power=site.power,
        notice=site.notice,
    )


def run_iperf(trial: Trial, site: TrialSite) -> TrialOutcome:
    """An iperf2 or iperf3 test between the path's client and server."""
    from wirespeed.run.trial import run_trial

    return _between_ends(trial, site, run_trial)


def run_rrul(trial: Trial, site: TrialSite) -> TrialOutcome:
    """Realtime response under load between the path's client and server."""
    from wirespeed.run.rrul_trial import run_rrul_trial

    return _between_ends(trial, site, run_rrul_trial)


def run_search(trial: Trial, site: TrialSite) -> TrialOutcome:
    """A forwarding-rate search (MLRsearch) through the path's legs."""
    from wirespeed.run.search_trial import run_search_trial
    from wirespeed.search.mlrsearch import mlrsearch

    path = site.search_path()
    return run_search_trial(
        trial,
        path,
        search=mlrsearch,
        on_tick=site.on_tick,
        on_step=site.on_step,
        watch=site.watched(),
        sample_interval=site.sample_interval,
        samplers_from=site.samplers,
        frames=site.frames,
    )


def run_benchmark(trial: Trial, site: TrialSite) -> TrialOutcome:
    """A benchmark on the device path's one host."""
    from wirespeed.run.bench_trial import run_bench_trial

    host = site.device()
    # The benchmark's own host is watched whatever --watch says: its clock and
    # temperature are what the figures depend on.
    return run_bench_trial(
        trial,
        host,
        on_tick=site.on_tick,
        watch=[("dut", host)],
        sample_interval=site.sample_interval,
        samplers_from=site.samplers,
        before_start=site.before_start,
        notice=site.notice_once,
    )
