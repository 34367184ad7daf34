"""What a plan's trials are, in a few words: `check` and `plans` say it the same way.

12 s of traffic, 2 benchmarks, 1 forwarding-rate search (about 6 min)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from wirespeed.model import Trial


def _seconds(seconds: float) -> str:
    return f"{seconds:.0f} s"


def _minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"


def count_trials(trials: Sequence[Trial]) -> str:
    return f"{len(trials)} trial{'' if len(trials) == 1 else 's'}"


def trial_kinds(
    trials: Sequence[Trial],
    *,
    duration: Callable[[float], str] = _seconds,
    traffic_when_empty: bool = False,
    in_lab: bool = True,
) -> list[str]:
    """The phrases after "N trials": iperf's seconds of traffic, benchmarks, searches
    (about as long as the progress bar counts them, plan/estimates.py), the trials of
    other kinds that measure across a path (trial_kind.py)."""
    traffic = [t for t in trials if t.test.yields_flows]
    searches = [t for t in trials if t.test.search is not None]
    benchmarks = sum(1 for t in trials if not t.test.tool.moves_traffic)
    across = len(trials) - len(traffic) - len(searches) - benchmarks
    said: list[str] = []
    if traffic or (traffic_when_empty and not trials):
        said.append(f"{duration(sum(t.test.spec.duration for t in traffic))} of traffic")
    if benchmarks:
        said.append(f"{benchmarks} benchmarks")
    if across:
        said.append(f"{across} measured across a path")
    if searches:
        from wirespeed.kinds.catalog import trial_seconds

        seconds = sum(trial_seconds(t.test, in_lab) for t in searches)
        plural = "es" if len(searches) > 1 else ""
        said.append(f"{len(searches)} forwarding-rate search{plural} (about {_minutes(seconds)})")
    return said
