"""Trials shorter than a second, as iperf2's timer runs them: it keeps -t in hundredths of
a second, cut down (measured with iperf 2.1.8 at 15,000 pps: `-t 0.7746` sent 11,552
datagrams in 0.7701 s, `-t 0.29` 2,800 in 0.2803 s, `-t 0.3` 4,503 in 0.3001 s)."""

from __future__ import annotations

import pytest

from support.simulated_device import SimulatedDevice
from wirespeed.search.mlrsearch import mlrsearch
from wirespeed.search.model import Goal, SearchLimits, TrialResult
from wirespeed.search.phases import phases_of
from wirespeed.tools.iperf2_pps import sending_seconds

GIGABIT_1518B = 81_274.0


@pytest.mark.parametrize(
    ("asked", "sent_for"), [(0.3, 0.3), (0.7746, 0.77), (0.736806, 0.73), (0.29, 0.28), (2, 2)]
)
def test_iperf2_sends_for_its_timers_hundredths(asked: float, sent_for: float) -> None:
    assert sending_seconds(asked) == sent_for


def test_the_phases_between_a_third_of_a_second_and_two_last_what_iperf2_keeps() -> None:
    goal = Goal("NDR", final_duration=2.0, width=0.02)
    durations = [phase.trial_duration for phase in phases_of(goal, initial_duration=0.3)]
    assert durations == [0.3, 0.8, 2.0]
    assert all(sending_seconds(duration) == duration for duration in durations)


def test_a_trial_is_judged_against_how_long_the_generator_could_send() -> None:
    # 15,000 pps asked for 0.736806 s; iperf2 sent them for 0.73 s: not a shortfall.
    trial = TrialResult(
        intended=15_000, duration=0.736806, sent=10_950, received=10_950, offered_duration=0.73
    )
    assert trial.offered == 15_000 and not trial.generator_limited
    assert trial.forwarding_rate == 15_000
    # The same count judged against the time asked is 0.9 % short.
    assert TrialResult(
        intended=15_000, duration=0.736806, sent=10_950, received=0
    ).generator_limited


class TimerCutGenerator:
    """A device of `capacity` packets/s behind a generator that sends exactly the load
    asked, for as long as iperf2's timer lets it."""

    def __init__(self, capacity: float) -> None:
        self.device = SimulatedDevice(capacity=capacity)

    def __call__(self, intended: float, duration: float) -> TrialResult:
        seconds = sending_seconds(duration)
        ideal = self.device(intended, seconds)
        return TrialResult(
            intended=intended,
            duration=duration,
            sent=ideal.sent,
            received=ideal.received,
            offered_duration=seconds,
        )


def test_a_search_of_sub_second_phases_finds_the_device_not_the_timer() -> None:
    limits = SearchLimits(max_load=GIGABIT_1518B, min_load=100.0, initial_duration=0.3)
    goal = Goal("NDR", final_duration=2.0, width=0.02)
    result = mlrsearch(TimerCutGenerator(capacity=15_000), [goal], limits)
    assert not [trial for trial in result.trials if trial.generator_limited]
    found = result.goal("NDR")
    assert found.lower is not None and 15_000 * 0.98 <= found.lower <= 15_000
    assert found.upper is not None and found.converged


def test_a_trial_of_two_legs_states_its_rates_per_leg() -> None:
    # `both` at 7,500 pps a direction for 2 s: 30,000 sent, 29,974 arrived.
    trial = TrialResult(intended=7_500, duration=2.0, sent=30_000, received=29_974, legs=2)
    assert trial.offered == 7_500 and not trial.generator_limited
    assert trial.forwarding_rate == pytest.approx(7_493.5)
    # One leg short by a tenth is a shortfall of the pair.
    short = TrialResult(intended=7_500, duration=2.0, sent=28_500, received=28_500, legs=2)
    assert short.generator_limited
