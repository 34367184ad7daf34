"""TRex ndr_bench's defaults, simulated: what its 1 % error and 10 iterations give."""

from __future__ import annotations

from support.simulated_device import SimulatedDevice
from wirespeed.search.model import SearchLimits
from wirespeed.search.ndr_bench import ndr_bench

LIMITS = SearchLimits(max_load=148_810.0, min_load=1000.0)  # 64-byte frames at 100 Mbit/s


def test_ndr_bench_finds_the_capacity_within_one_percent_of_the_max_rate() -> None:
    device = SimulatedDevice(capacity=50_000)
    result = ndr_bench(device, LIMITS)
    found = result.goal("NDR")
    assert result.algorithm == "ndr-bench"
    assert found.lower is not None and found.upper is not None
    # Its error is 1 % of the max rate (1,488 pps here), not 1 % of the answer.
    assert 50_000 - 0.01 * LIMITS.max_load <= found.lower <= 50_000 < found.upper
    assert found.upper - found.lower <= 0.01 * LIMITS.max_load + 1
    assert found.converged
    assert all(trial.duration == 20.0 for trial in result.trials)
    assert len(result.trials) <= 1 + 10


def test_ndr_bench_bisects_linearly_in_percent_of_the_max_rate() -> None:
    result = ndr_bench(SimulatedDevice(capacity=50_000), LIMITS)
    loads = [trial.intended for trial in result.trials]
    assert loads[:3] == [LIMITS.max_load, LIMITS.max_load * 0.5, LIMITS.max_load * 0.25]


def test_a_device_that_keeps_up_is_done_after_the_first_run() -> None:
    result = ndr_bench(SimulatedDevice(capacity=200_000), LIMITS)
    assert len(result.trials) == 1 and result.goal("NDR").lower == LIMITS.max_load


def test_ndr_bench_takes_the_generators_rate_as_its_max_rate() -> None:
    device = SimulatedDevice(capacity=50_000, generator=40_000, generator_loss=0.2)
    result = ndr_bench(device, LIMITS)
    found = result.goal("NDR")
    assert result.generator_ceiling == 40_000
    assert all(trial.intended <= 40_000 for trial in result.trials[1:])
    assert found.upper is None and found.generator_limited
    assert found.lower is not None and 0.98 * 40_000 <= found.lower < 40_000


def test_ndr_bench_stops_after_its_iterations_and_says_so() -> None:
    result = ndr_bench(SimulatedDevice(capacity=50_000), LIMITS, error=0.0001, max_iterations=4)
    assert len(result.trials) == 1 + 4
    assert result.stopped is not None and "4 iterations" in result.stopped
