"""How a trial of each kind runs on its site: the functions kinds.py names.

Each takes the trial and its site (run/site.py), asks the site for the place it needs,
and hands over to the module that runs that kind's trial. Nothing here chooses a kind:
the runner looks the trial's up in the registry and calls what it names.
"""

from __future__ import annotations

from wirespeed.model import Trial, TrialOutcome
from wirespeed.run.site import TrialSite


def run_iperf(trial: Trial, site: TrialSite) -> TrialOutcome:
    """An iperf2 or iperf3 test between the path's client and server."""
    from wirespeed.run.trial import run_trial

    endpoints = site.endpoints()
    return run_trial(
        trial,
        endpoints,
        on_tick=site.on_tick,
        watch=site.watched(),
        sample_interval=site.sample_interval,
        samplers_from=site.samplers,
        power=site.power,
        notice=site.notice,
    )


def run_rrul(trial: Trial, site: TrialSite) -> TrialOutcome:
    """Realtime response under load between the path's client and server."""
    from wirespeed.run.rrul_trial import run_rrul_trial

    endpoints = site.endpoints()
    return run_rrul_trial(
        trial,
        endpoints,
        on_tick=site.on_tick,
        watch=site.watched(),
        sample_interval=site.sample_interval,
        samplers_from=site.samplers,
        power=site.power,
        notice=site.notice,
    )


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
