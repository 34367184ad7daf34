"""How a trial of each kind runs on its site: each kind's `run` hook (kinds/).

Each takes the trial and its site (run/site.py), asks the site for the place it needs,
and hands over to the module that runs that kind's trial. Nothing here chooses a kind:
the runner calls the trial's kind's `run` hook (kinds/).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from wirespeed.model import Trial, TrialOutcome
from wirespeed.run.site import TrialSite

if TYPE_CHECKING:
    from wirespeed.run.traffic_outcome import TrafficOptions
    from wirespeed.run.trial_life import Endpoints, TrialBody


# A trial's own steps between a path's client and server (run/trial.py,
# run/rrul_trial.py), for live_trial.
BodyBetweenEnds = Callable[[Trial, "Endpoints", "TrafficOptions"], "TrialBody"]


def _between_ends(trial: Trial, site: TrialSite, body_for: BodyBetweenEnds) -> TrialOutcome:
    """The steps `body_for` gives, between the path's client and server, with what the
    site gives each trial; failures become a FAILED outcome (live_trial)."""
    from wirespeed.run.traffic_outcome import TrafficOptions
    from wirespeed.run.trial_life import Watching, live_trial

    endpoints = site.endpoints()
    watching = Watching(site.watched(), site.sample_interval, site.samplers)
    options = TrafficOptions(on_tick=site.on_tick, power=site.power, notice=site.notice)
    return live_trial(trial, body_for(trial, endpoints, options), watching)


def run_iperf(trial: Trial, site: TrialSite) -> TrialOutcome:
    """An iperf2 or iperf3 test between the path's client and server."""
    from wirespeed.run.trial import iperf_body

    return _between_ends(trial, site, iperf_body)


def run_rrul(trial: Trial, site: TrialSite) -> TrialOutcome:
    """Realtime response under load between the path's client and server."""
    from wirespeed.run.rrul_trial import rrul_body

    return _between_ends(trial, site, rrul_body)


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
