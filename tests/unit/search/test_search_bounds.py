"""RFC 9971's load classification, relevant bounds and the phases of a goal."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest

from wirespeed.search.bounds import Verdict, bounds_of, classify, records
from wirespeed.search.model import Goal, TrialResult
from wirespeed.search.phases import phases_of


def trial(load: float, duration: float, lost: int = 0) -> TrialResult:
    sent = round(load * duration)
    return TrialResult(intended=load, duration=duration, sent=sent, received=sent - lost)


def test_one_trial_decides_when_the_duration_sum_is_one_trial() -> None:
    assert classify(good=10, bad=0, duration_sum=10, exceed_ratio=0.5) is Verdict.LOWER
    assert classify(good=0, bad=10, duration_sum=10, exceed_ratio=0.5) is Verdict.UPPER


def test_three_trials_with_exceed_ratio_half_tolerate_one_bad_trial() -> None:
    assert classify(good=0, bad=10, duration_sum=30, exceed_ratio=0.5) is Verdict.UNDECIDED
    assert classify(good=10, bad=10, duration_sum=30, exceed_ratio=0.5) is Verdict.UNDECIDED
    assert classify(good=20, bad=10, duration_sum=30, exceed_ratio=0.5) is Verdict.LOWER
    assert classify(good=0, bad=20, duration_sum=30, exceed_ratio=0.5) is Verdict.UPPER


def test_exceed_ratio_zero_is_rfc2544_no_trial_may_lose() -> None:
    assert classify(good=20, bad=10, duration_sum=30, exceed_ratio=0.0) is Verdict.UPPER
    assert classify(good=20, bad=0, duration_sum=30, exceed_ratio=0.0) is Verdict.UNDECIDED


def test_the_decided_edges_of_the_classification() -> None:
    # Bad seconds exactly at the exceed ratio of the whole: not an upper bound.
    assert classify(good=15, bad=0, duration_sum=30, exceed_ratio=0.5) is Verdict.LOWER
    # More measured than the duration sum: the sum grows with it (40 s, 20 bad allowed).
    assert classify(good=20, bad=20, duration_sum=30, exceed_ratio=0.5) is Verdict.LOWER
    assert classify(good=10, bad=30, duration_sum=30, exceed_ratio=0.5) is Verdict.UPPER


def test_a_trial_at_the_goals_loss_ratio_is_good() -> None:
    (record,) = records([trial(100, 10)]).values()
    assert record.load == 100 and record.seconds(loss_ratio=0.0) == (10, 0)
    lossy = TrialResult(intended=100, duration=10, sent=1000, received=995)  # 0.5 %
    (record,) = records([lossy]).values()
    assert record.seconds(loss_ratio=0.005) == (10, 0)
    assert record.seconds(loss_ratio=0.004) == (0, 10)


def test_undecided_loads_lean_where_their_trials_so_far_put_them() -> None:
    # Three 10 s trials decide (exceed ratio half): 100 has one good trial, 120 one bad
    # one, 140 two bad ones (decided). The search goes on between the leanings.
    bad_twice = [trial(140, 10, lost=9)] * 2
    trials = [trial(100, 10), trial(120, 10, lost=3), *bad_twice]
    found = bounds_of(records(trials), loss_ratio=0.0, duration_sum=30, exceed_ratio=0.5)
    assert found.verdicts == {
        100: Verdict.UNDECIDED,
        120: Verdict.UNDECIDED,
        140: Verdict.UPPER,
    }
    assert (found.lower, found.upper) == (None, 140)
    assert found.leaning == {100: Verdict.LOWER, 120: Verdict.UPPER, 140: Verdict.UPPER}
    assert (found.tentative_lower, found.tentative_upper) == (100, 120)
    assert found.count_leaning(Verdict.UPPER) == 2 and found.count_leaning(Verdict.LOWER) == 1


def test_the_relevant_lower_bound_lies_below_the_lowest_upper_bound() -> None:
    # 110 lost once (an upper bound) although 120 did not: 120 is not relevant.
    trials = [trial(100, 1), trial(110, 1, lost=5), trial(120, 1), trial(130, 1, lost=9)]
    found = bounds_of(records(trials), loss_ratio=0.0, duration_sum=1, exceed_ratio=0.5)
    assert (found.lower, found.upper) == (100, 110)


def test_generator_limited_trials_are_not_counted() -> None:
    limited = TrialResult(intended=200, duration=1, sent=150, received=100)
    found = bounds_of(records([limited]), loss_ratio=0.0, duration_sum=1, exceed_ratio=0.5)
    assert (found.lower, found.upper, found.verdicts) == (None, None, {})


def test_phases_grow_to_the_final_duration_and_halve_the_width() -> None:
    goal = Goal("NDR", final_duration=60.0, duration_sum=180.0, width=0.01)
    phases = phases_of(goal, initial_duration=1.0)
    durations = [phase.trial_duration for phase in phases]
    assert durations[0] == 1.0 and durations[-1] == 60.0
    assert durations == sorted(set(durations))
    assert all(later / earlier <= 4.0 for earlier, later in itertools.pairwise(durations))
    assert phases[-1].duration_sum == 180.0 and math.isclose(phases[-1].width, 0.01)
    assert all(phase.duration_sum == phase.trial_duration for phase in phases[:-1])
    for earlier, later in itertools.pairwise(phases):
        assert math.isclose(earlier.log_width, 2 * later.log_width)
    assert phases[-1].counts(60.0) and not phases[-1].counts(15.0)
    assert phases[0].counts(1.0) and not phases[0].counts(durations[1])


def test_a_goal_as_short_as_the_initial_trials_has_one_phase() -> None:
    assert len(phases_of(Goal("NDR", final_duration=1.0), initial_duration=1.0)) == 1


def test_phases_step_at_most_fourfold_in_tenths_below_2_s_whole_seconds_above() -> None:
    cases = {
        (1.0, 10.0): [1.0, 3.0, 10.0],
        (1.0, 60.0): [1.0, 4.0, 15.0, 60.0],
        (1.0, 4.0): [1.0, 4.0],  # exactly four times longer: no step between
        (1.0, 1.5): [1.0, 1.5],
        (1.0, 4.5): [1.0, 2.0, 4.5],  # 2.12 s, rounded from 2 s on
        (0.1, 1.0): [0.1, 0.3, 1.0],  # below 2 s: tenths (0.316 s), which iperf2 keeps
        (0.25, 8.0): [0.25, 0.8, 3.0, 8.0],  # 0.794 s
    }
    for (initial, final), expected in cases.items():
        phases = phases_of(Goal("NDR", final_duration=final), initial_duration=initial)
        assert [phase.trial_duration for phase in phases] == pytest.approx(expected, rel=1e-12)
        assert [phase.index for phase in phases] == list(range(len(expected)))


def test_a_phase_is_narrow_up_to_its_width_with_a_relative_and_an_absolute_slack() -> None:
    (phase,) = phases_of(Goal("NDR", final_duration=1.0, width=0.01), initial_duration=1.0)
    exact = math.exp(phase.log_width)
    assert phase.narrow(1000.0, 1000.0 * exact)
    assert not phase.narrow(1000.0, 1000.0 * exact * (1 + 1e-8))
    assert not phase.narrow(1000.0, 1000.0 * exact**1.5)
    # A wide phase (log width 4): floating point's error grows with it, so does the slack.
    wide = replace(phase, log_width=4.0)
    assert wide.narrow(1.0, math.exp(4.0 + 3e-9)) and not wide.narrow(1.0, math.exp(4.0 + 6e-9))
    assert not wide.narrow(100.0, 100.0 * math.exp(4.0) * 100.0)  # a ratio, not a product
