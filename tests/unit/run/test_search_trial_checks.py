"""A search trial's own verdicts: a search whose every trial was generator-limited
measured nothing of the device and fails saying so; what is cheap to check for every
direction is checked before the first long search."""

from __future__ import annotations

from typing import Any

import pytest

from support.forwarding_samples import forwarding_test, nat_path
from wirespeed.hosts.base import Host
from wirespeed.model import Trial, TrialStatus
from wirespeed.run.search_legs import Leg, SearchPath
from wirespeed.run.search_trial import _check_measured_device, run_search_trial
from wirespeed.run.trial import TrialFailure
from wirespeed.search.log import SearchLog
from wirespeed.search.model import Goal, GoalResult, SearchResult, TrialResult


def _log(*trials: TrialResult, goals: tuple[GoalResult, ...] = ()) -> SearchLog:
    result = SearchResult(goals=goals, trials=trials, algorithm="mlrsearch", stopped=STOPPED)
    return SearchLog(1518, "up", result, 1_000_000_000, 81_274.4)


STOPPED = "the generator offered at most 74,210 pps, below the minimum load 100 pps"


def test_a_search_of_nothing_but_generator_limited_trials_fails_and_says_so() -> None:
    # iperf2 cut each trial's time by 1 %, and the search took it for a shortfall each time.
    short = [
        TrialResult(15_000 * 0.98**k, 0.74, round(15_000 * 0.98**k * 0.73), 0) for k in range(3)
    ]
    with pytest.raises(TrialFailure, match="every one of the search's 3 trials was generator"):
        _check_measured_device(_log(*short))
    measured = TrialResult(15_000, 2.0, 30_000, 30_000)
    _check_measured_device(_log(*short, measured))  # one trial measured the device


def test_a_search_that_found_no_bound_for_any_goal_fails_with_its_reason() -> None:
    measured = TrialResult(15_000, 0.3, 4_500, 4_500)
    nothing = GoalResult(Goal("NDR"), lower=None, upper=None, conditional_throughput=None)
    with pytest.raises(TrialFailure, match="no bound for any goal: the generator offered"):
        _check_measured_device(_log(measured, goals=(nothing,)))
    found = GoalResult(Goal("NDR"), lower=15_000, upper=None, conditional_throughput=15_000)
    _check_measured_device(_log(measured, goals=(found, nothing)))


class Untouchable:
    """A host no check may reach before the cheap ones are done."""

    name = "workstation"

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the host was used ({name}) before every direction was checked")


def test_a_direction_that_cannot_run_fails_the_trial_before_any_search() -> None:
    host: Host = Untouchable()
    out = (Leg(host, host, "198.19.1.2", 5800),)
    path = SearchPath(legs={"out": out, "up": out}, link_rate_bps=None, in_lab=False)
    trial = Trial(forwarding_test(frames=(64,), directions=("out", "in")), nat_path())
    searched: list[str] = []

    def search(*args: Any, **kwargs: Any) -> SearchResult:
        searched.append("a search ran")
        raise AssertionError("no search may start")

    outcome = run_search_trial(trial, path, search=search)
    assert outcome.status is TrialStatus.FAILED and searched == []
    assert (
        outcome.reason is not None and "direction in needs the client's address" in outcome.reason
    )
