"""MLRsearch against simulated devices whose true limits are known."""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from support.simulated_device import SimulatedDevice
from wirespeed.model import ModelError
from wirespeed.search.mlrsearch import mlrsearch
from wirespeed.search.model import Goal, Measurer, SearchLimits, SearchResult, TrialResult
from wirespeed.search.phases import phases_of

GIGABIT_64B = 1_488_095.0  # 64-byte frames/s on gigabit Ethernet
LIMITS = SearchLimits(max_load=GIGABIT_64B, min_load=1000.0)
NDR = Goal("NDR", loss_ratio=0.0, final_duration=10.0, width=0.01)
PDR = Goal("PDR", loss_ratio=0.005, final_duration=10.0, width=0.01)


def assert_brackets(result: SearchResult, name: str, truth: float) -> None:
    found = result.goal(name)
    assert found.lower is not None and found.upper is not None
    assert found.converged
    # Packets are whole: a trial loses nothing until the excess is half a packet.
    slack = 1 / (2 * found.goal.final_duration)
    assert found.lower <= truth + slack and truth < found.upper
    assert (truth - found.lower) / truth <= found.goal.width + 1e-9


def test_a_15000_pps_router_has_its_ndr_found_within_the_width() -> None:
    device = SimulatedDevice(capacity=15_000)
    result = mlrsearch(device, [NDR], LIMITS)
    assert result.algorithm == "mlrsearch" and result.stopped is None
    assert_brackets(result, "NDR", 15_000)
    assert result.goal("NDR").conditional_throughput == result.goal("NDR").lower


@settings(max_examples=40, deadline=None)
@given(
    capacity=st.floats(min_value=2_000, max_value=1_400_000),
    seed=st.integers(min_value=0, max_value=1000),
)
def test_any_capacity_is_bracketed_within_the_goal_width(capacity: float, seed: int) -> None:
    device = SimulatedDevice(capacity=capacity, seed=seed)
    assert_brackets(mlrsearch(device, [NDR], LIMITS), "NDR", capacity)


def test_short_trials_first_and_the_answer_only_from_full_length_trials() -> None:
    device = SimulatedDevice(capacity=15_000)
    result = mlrsearch(device, [NDR], LIMITS)
    durations = [trial.duration for trial in result.trials]
    assert durations[0] == LIMITS.initial_duration
    assert durations == sorted(durations)  # phases only lengthen
    assert durations.count(NDR.final_duration) < len(durations) / 2
    found = result.goal("NDR")
    full = {t.intended for t in result.trials if t.duration == NDR.final_duration}
    assert found.lower in full and found.upper in full


def test_the_first_trial_is_at_max_load_and_the_second_at_its_forwarding_rate() -> None:
    device = SimulatedDevice(capacity=15_000)
    first, second = mlrsearch(device, [NDR], LIMITS).trials[:2]
    assert first.intended == GIGABIT_64B
    assert second.intended == first.forwarding_rate


def test_exceed_ratio_half_of_three_trials_tolerates_a_loss_spike() -> None:
    # The first full-length trial loses 3 packets (a spike): the one bad trial in three
    # that the goal allows must not take the NDR below the device's capacity.
    goal = Goal("NDR", exceed_ratio=0.5, final_duration=10.0, duration_sum=30.0)
    clean = mlrsearch(SimulatedDevice(capacity=15_000), [goal], LIMITS)
    first_full = next(n for n, t in enumerate(clean.trials, 1) if t.duration == 10.0)
    device = SimulatedDevice(capacity=15_000, spike_calls=frozenset({first_full}))
    result = mlrsearch(device, [goal], LIMITS)
    assert_brackets(result, "NDR", 15_000)
    spiked = result.trials[first_full - 1]
    assert spiked.loss_ratio > 0 and spiked.intended == result.goal("NDR").lower
    at_lower = [t for t in result.trials if t.intended == spiked.intended and t.duration == 10.0]
    assert len(at_lower) == 3  # the spike called for a third trial


def spiking(device: SimulatedDevice, load: float, times: int) -> Measurer:
    """The device, but its first `times` full-length trials at `load` lose 3 packets."""
    spikes = [times]

    def measure(intended: float, duration: float) -> TrialResult:
        trial = device(intended, duration)
        if intended == load and duration == 10.0 and spikes[0] > 0:
            spikes[0] -= 1
            return replace(trial, received=trial.received - 3)
        return trial

    return measure


def test_two_spikes_in_three_trials_make_an_upper_bound() -> None:
    goal = Goal("NDR", exceed_ratio=0.5, final_duration=10.0, duration_sum=30.0)
    measure = spiking(SimulatedDevice(capacity=15_000), load=15_000.0, times=2)
    result = mlrsearch(measure, [goal], LIMITS)
    found = result.goal("NDR")
    assert found.upper == 15_000.0  # two bad of three: the load failed
    assert found.converged and found.lower is not None and found.lower >= 15_000 * 0.99
    assert len([t for t in result.trials if t.intended == 15_000.0 and t.duration == 10]) == 2


def test_random_loss_spikes_keep_the_answer_near_the_truth() -> None:
    goal = Goal("NDR", exceed_ratio=0.5, final_duration=10.0, duration_sum=30.0)
    for seed in range(20):
        device = SimulatedDevice(capacity=15_000, spike_probability=0.1, seed=seed)
        found = mlrsearch(device, [goal], LIMITS).goal("NDR")
        assert found.converged and found.lower is not None
        assert 15_000 * 0.95 <= found.lower <= 15_000


def test_one_trial_goal_without_exceed_tolerance_is_pulled_down_by_a_spike() -> None:
    # The contrast: with one decisive trial, a spike at the truth makes it an upper bound.
    device = SimulatedDevice(capacity=15_000, spike_probability=1.0)
    found = mlrsearch(device, [NDR], LIMITS).goal("NDR")
    assert found.lower is None  # every trial lost a few packets


def test_a_generator_slower_than_the_device_is_reported_never_as_device_loss() -> None:
    # The generator manages 9,000 pps; saturated, it also starves the receiver.
    device = SimulatedDevice(capacity=15_000, generator=9_000, generator_loss=0.2)
    result = mlrsearch(device, [NDR, PDR], LIMITS)
    assert result.generator_ceiling is not None
    assert abs(result.generator_ceiling - 9_000) <= 1
    for found in result.goals:
        assert found.upper is None and found.generator_limited and found.converged
        assert found.lower is not None and 0.98 * 9_000 <= found.lower < 9_000
    limited = [t for t in result.trials if t.generator_limited]
    assert limited and all(t.loss_ratio > 0 for t in limited)  # lossy, yet not an upper bound


def test_a_device_below_the_minimum_load_has_no_lower_bound() -> None:
    device = SimulatedDevice(capacity=500)
    result = mlrsearch(device, [NDR], LIMITS)
    found = result.goal("NDR")
    assert found.lower is None and found.upper == LIMITS.min_load
    assert found.converged and result.stopped is None


def test_max_trials_stops_the_search_and_says_so() -> None:
    device = SimulatedDevice(capacity=15_000)
    limits = SearchLimits(max_load=GIGABIT_64B, min_load=1000.0, max_trials=4)
    result = mlrsearch(device, [NDR], limits)
    assert len(result.trials) == 4
    assert result.stopped is not None and "4 trials" in result.stopped
    assert not result.goal("NDR").converged


def test_ndr_and_pdr_at_once_on_a_soft_knee() -> None:
    # Lossless up to 12,000 pps, then a little loss growing to 1 % at 15,000.
    device = SimulatedDevice(capacity=15_000, knee=12_000)
    result = mlrsearch(device, [NDR, PDR], LIMITS)
    ndr, pdr = result.goal("NDR"), result.goal("PDR")
    assert ndr.converged and pdr.converged
    assert ndr.lower is not None and pdr.lower is not None
    assert pdr.lower >= ndr.lower
    # The PDR's truth: 1 % x ((x - 12000) / 3000)^2 = 0.5 %.
    truth = 12_000 + 3_000 * 0.5**0.5
    assert pdr.lower <= truth < (pdr.upper or 0) * 1.001
    assert 12_000 * 0.99 <= ndr.lower <= 12_200


def test_the_conditional_throughput_is_what_arrived_not_what_was_offered() -> None:
    # On the knee a PDR's lower bound loses a little (up to 0.5 %), and a spike takes 3
    # more packets from one of its full-length trials: the conditional throughput is the
    # average of what those trials forwarded, below the load they were offered.
    goal = Goal("PDR", loss_ratio=0.005, final_duration=10.0, duration_sum=30.0)
    clean = mlrsearch(SimulatedDevice(capacity=15_000, knee=12_000), [goal], LIMITS)
    first_full = next(n for n, t in enumerate(clean.trials, 1) if t.duration == 10.0)
    device = SimulatedDevice(capacity=15_000, knee=12_000, spike_calls=frozenset({first_full}))
    result = mlrsearch(device, [goal], LIMITS)
    found = result.goal("PDR")
    assert found.lower is not None and found.conditional_throughput is not None
    at_lower = [t for t in result.trials if t.intended == found.lower and t.duration == 10.0]
    assert len(at_lower) >= 2 and len({t.received for t in at_lower}) > 1
    forwarded = sum(t.received / t.duration for t in at_lower) / len(at_lower)
    assert found.conditional_throughput == pytest.approx(forwarded, rel=1e-12)
    assert found.lower - found.conditional_throughput > 1.0  # packets/s lost on the way


def test_the_goals_share_trials() -> None:
    device = SimulatedDevice(capacity=15_000)
    both = len(mlrsearch(device, [NDR, PDR], LIMITS).trials)
    alone = len(mlrsearch(device, [NDR], LIMITS).trials) + len(
        mlrsearch(device, [PDR], LIMITS).trials
    )
    assert both < alone


def test_progress_tells_each_trial_in_one_line() -> None:
    lines: list[str] = []
    mlrsearch(SimulatedDevice(capacity=15_000), [NDR], LIMITS, progress=lines.append)
    assert lines[0].startswith("trial 1: 1,488,095 pps for 1 s: ")
    assert "NDR upper bound" in lines[0]
    assert any(line.endswith(": 0 lost (NDR lower bound)") for line in lines)


class DippingGenerator:
    """A generator that reaches `ceiling` but once falls 2 % short at one load below it,
    as iperf2 on a busy machine does now and then; the device forwards `capacity`."""

    def __init__(self, capacity: float, ceiling: float, dip_at_call: int) -> None:
        self.device = SimulatedDevice(capacity=capacity, generator=ceiling)
        self.dip_at_call = dip_at_call

    def __call__(self, intended: float, duration: float) -> TrialResult:
        trial = self.device(intended, duration)
        if len(self.device.calls) != self.dip_at_call:
            return trial
        sent = round(intended * 0.98 * duration)
        return TrialResult(intended, duration, sent, min(sent, trial.received))


def test_a_generator_dip_below_its_ceiling_is_asked_again_not_made_the_top() -> None:
    # Capacity 60k, generator up to 120k: the third trial (below the top) dips.
    measure = DippingGenerator(capacity=60_000, ceiling=120_000, dip_at_call=3)
    result = mlrsearch(measure, [NDR], LIMITS)
    ndr = result.goal("NDR")
    assert ndr.lower is not None and 60_000 * 0.99 <= ndr.lower <= 60_000
    assert ndr.upper is not None and not ndr.generator_limited
    dipped = result.trials[2]
    assert dipped.generator_limited
    # The load that dipped was measured again.
    assert [t.intended for t in result.trials].count(dipped.intended) >= 2


def test_a_trial_at_the_top_that_falls_short_lowers_the_top_at_once() -> None:
    measure = SimulatedDevice(capacity=500_000, generator=120_000)
    result = mlrsearch(measure, [NDR], LIMITS)
    assert result.trials[1].intended <= 120_000 * 0.99 + 1e-6


def test_goals_without_names_to_tell_them_apart_are_refused() -> None:
    device = SimulatedDevice(capacity=15_000)
    with pytest.raises(ModelError, match=r"^a search needs at least one goal$"):
        mlrsearch(device, [], LIMITS)
    with pytest.raises(ModelError, match=r"^goal names must differ: NDR, PDR, NDR$"):
        mlrsearch(device, [NDR, PDR, replace(PDR, name="NDR")], LIMITS)
    assert device.calls == []


def test_a_generator_below_the_minimum_load_stops_the_search_and_says_why() -> None:
    device = SimulatedDevice(capacity=15_000, generator=800)
    result = mlrsearch(device, [NDR], LIMITS)
    assert (
        result.stopped == "the generator offered at most 800 pps, below the minimum load 1,000 pps"
    )
    assert len(result.trials) == 1 and result.generator_ceiling == 800
    assert result.goal("NDR").lower is None


def test_progress_gives_each_goal_whose_phase_the_trial_counts_in() -> None:
    # Half-second trials are shorter than any phase of the NDR: they name the quick
    # goal alone; the NDR's trials count for both.
    quick = Goal("quick", final_duration=0.5, width=0.05)
    lines: list[str] = []
    mlrsearch(SimulatedDevice(capacity=15_000), [NDR, quick], LIMITS, progress=lines.append)
    assert lines[0].endswith(" lost (quick upper bound)"), lines[0]
    half = [line for line in lines if " for 0.5 s: " in line]
    assert half and all("NDR" not in line and "(quick " in line for line in half)
    longer = [line for line in lines if " for 0.5 s: " not in line]
    assert longer and all(", quick " in line for line in longer)


def test_external_search_doubles_its_step_with_each_further_bound() -> None:
    # Lossless only below 5,000 pps: from the forwarding rate at the maximum load
    # (14,850), the second upper bound, the first phase steps down by twice its width,
    # then four, eight and sixteen times, until a load loses nothing.
    width = phases_of(NDR, LIMITS.initial_duration)[0].log_width
    result = mlrsearch(SimulatedDevice(capacity=15_000, knee=5_000), [NDR], LIMITS)
    loads = [trial.intended for trial in result.trials[1:6]]
    assert loads[0] == 14_850.0
    steps = [math.log(high / low) for high, low in itertools.pairwise(loads)]
    assert steps == pytest.approx([width * 2**n for n in range(1, 5)], rel=1e-9)
    assert [t.loss_ratio > 0 for t in result.trials[1:6]] == [True] * 4 + [False]
    # Up from the first lower bound: one width.
    up = mlrsearch(SimulatedDevice(capacity=15_000), [NDR], LIMITS).trials
    assert up[1].loss_ratio == 0 and math.log(up[2].intended / up[1].intended) == (
        pytest.approx(width, rel=1e-9)
    )


def _collapsing(forwarded_at_max: int) -> Measurer:
    """A device that forwards everything up to 10,000 packets/s and, in livelock above
    it, `forwarded_at_max` packets over a whole trial."""

    def measure(load: float, duration: float) -> TrialResult:
        sent = round(load * duration)
        received = sent if load <= 10_000 else forwarded_at_max
        return TrialResult(intended=load, duration=duration, sent=sent, received=received)

    return measure


def test_a_device_that_forwards_nothing_at_max_load_is_stepped_down_one_width() -> None:
    # Its forwarding rate (0) is no guess of its capacity: one width below instead.
    first, second = mlrsearch(_collapsing(0), [NDR], LIMITS).trials[:2]
    assert (first.intended, first.forwarding_rate) == (GIGABIT_64B, 0.0)
    width = phases_of(NDR, LIMITS.initial_duration)[0].log_width
    assert second.intended == pytest.approx(GIGABIT_64B * math.exp(-width), rel=1e-12)


def test_a_device_that_forwards_a_trickle_at_max_load_is_tried_at_the_minimum_next() -> None:
    # 1 packet/s arrived: the next load is that rate, raised to the minimum load.
    first, second = mlrsearch(_collapsing(1), [NDR], LIMITS).trials[:2]
    assert first.forwarding_rate == 1.0
    assert second.intended == LIMITS.min_load


class SaggingGenerator:
    """A generator that reaches every load until call `after`, then no more than
    `ceiling`: its ceiling sagged below loads it offered before, as iperf2's does on a
    machine that gets busy mid-search. The device has by default a soft knee (NDR 29,800 pps, PDR
    below 31,000), so the bounds it gives are not found in one step."""

    def __init__(self, ceiling: float, after: int, device: SimulatedDevice | None = None) -> None:
        self.device = device or SimulatedDevice(capacity=31_000, knee=29_800)
        self.ceiling, self.after = ceiling, after

    def __call__(self, intended: float, duration: float) -> TrialResult:
        trial = self.device(intended, duration)
        if len(self.device.calls) <= self.after or intended <= self.ceiling:
            return trial
        sent = round(self.ceiling * duration)
        return TrialResult(intended, duration, sent, min(sent, trial.received))


@settings(max_examples=60, deadline=None)
@given(
    ceiling=st.floats(min_value=28_000, max_value=32_000),
    after=st.integers(min_value=1, max_value=14),
)
def test_a_generator_ceiling_that_sags_mid_search_ends_the_search_below_it(
    ceiling: float, after: int
) -> None:
    # Before: a ceiling that sagged between the bounds, or below a lower bound, had the
    # search ask the same load again and again until its trial limit (a lab card on a
    # busy machine: 29,996 pps forty times over).
    limits = SearchLimits(max_load=148_810.0, min_load=1000.0)
    goals = [replace(NDR, final_duration=2.0), replace(PDR, final_duration=2.0)]
    measure = SaggingGenerator(ceiling, after)
    result = mlrsearch(measure, goals, limits)
    assert len(result.trials) <= 20, [t.intended for t in result.trials]
    sagged = [t for t in result.trials[after:] if not t.generator_limited]
    assert all(t.intended * 0.995 <= ceiling for t in sagged)  # 0.5 % short is not limited
    for found in result.goals:
        assert found.lower is not None and found.lower <= 31_000
        if not found.converged:
            # The bounds stayed apart because no load between them could be offered.
            assert result.stopped is not None
            assert result.stopped.startswith("the generator's shortfalls capped the loads at ")
            assert f"{found.goal.name} between " in result.stopped


def test_a_device_that_loses_just_above_the_minimum_load_still_has_its_ndr_found() -> None:
    # Its forwarding rate at the maximum load is an upper bound with no lower bound yet:
    # only an upper bound within tolerance of the minimum load ends the search with none.
    device = SimulatedDevice(capacity=1_300, knee=1_100)
    result = mlrsearch(device, [NDR], LIMITS)
    ndr = result.goal("NDR")
    # (a soft knee loses less than a packet a trial just above it: whole packets)
    assert ndr.lower is not None and 1_100 * (1 - NDR.width) <= ndr.lower <= 1_100 * (1 + NDR.width)
    assert ndr.converged


def test_a_generator_that_sags_below_the_device_leaves_its_answer_generator_limited() -> None:
    # One phase: after the first trial the generator offers at most 29,500 pps of the
    # device's 30,000, so no load between the bounds can ever be offered.
    goals = [replace(NDR, final_duration=1.0), replace(PDR, final_duration=1.0)]
    limits = SearchLimits(max_load=148_810.0, min_load=1000.0)
    measure = SaggingGenerator(ceiling=29_500, after=1, device=SimulatedDevice(capacity=30_000))
    result = mlrsearch(measure, goals, limits)
    assert [round(t.intended) for t in result.trials] == [148_810, 30_000, 30_000, 29_205]
    for found in result.goals:
        assert (found.lower, found.upper) == (29_205, 148_810)
        assert found.generator_limited and not found.converged
    assert result.stopped == (
        "the generator's shortfalls capped the loads at 29,205 pps, too little to narrow "
        "NDR between 29,205 and 148,810 pps, PDR between 29,205 and 148,810 pps"
    )
    assert result.generator_ceiling == 29_500


def test_a_device_above_a_generator_that_never_sagged_has_no_stopped_reason() -> None:
    result = mlrsearch(SimulatedDevice(capacity=500_000, generator=120_000), [NDR], LIMITS)
    assert result.stopped is None and result.goal("NDR").generator_limited


def test_a_search_cut_short_by_its_trial_limit_is_not_the_generator_s_limit() -> None:
    # The generator fell short once, at the top; the search then stopped at its trial
    # limit with its bounds apart: that is the limit's doing, not the generator's.
    device = SimulatedDevice(capacity=15_000, generator=120_000)
    one_phase = replace(NDR, final_duration=1.0)
    result = mlrsearch(device, [one_phase], replace(LIMITS, max_trials=3))
    ndr = result.goal("NDR")
    assert result.generator_ceiling == 120_000
    assert ndr.upper is not None and not ndr.converged
    assert not ndr.generator_limited
    assert result.stopped == "reached the maximum of 3 trials before converging"


def test_a_generator_short_only_at_the_top_leaves_a_converged_search_without_a_reason() -> None:
    result = mlrsearch(SimulatedDevice(capacity=15_000, generator=120_000), [NDR, PDR], LIMITS)
    assert result.generator_ceiling == 120_000
    assert all(found.converged and found.upper is not None for found in result.goals)
    assert result.stopped is None
