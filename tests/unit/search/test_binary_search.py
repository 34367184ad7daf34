"""RFC 2544's binary search against simulated devices."""

from __future__ import annotations

from support.simulated_device import SimulatedDevice
from wirespeed.search.binary import rfc2544_binary
from wirespeed.search.model import SearchLimits

LIMITS = SearchLimits(max_load=1_488_095.0, min_load=1000.0)


def test_binary_search_finds_the_capacity_with_full_length_trials() -> None:
    device = SimulatedDevice(capacity=15_000)
    result = rfc2544_binary(device, LIMITS, duration=60.0, width=0.01)
    found = result.goal("NDR")
    assert result.algorithm == "rfc2544-binary" and result.stopped is None
    assert found.converged and found.lower is not None and found.upper is not None
    assert 15_000 * 0.99 <= found.lower <= 15_000 < found.upper
    assert all(trial.duration == 60.0 for trial in result.trials)
    assert result.trials[0].intended == LIMITS.max_load


def test_a_loss_ratio_makes_it_a_pdr_search() -> None:
    device = SimulatedDevice(capacity=15_000, knee=12_000)
    result = rfc2544_binary(device, LIMITS, loss_ratio=0.005, duration=10.0)
    found = result.goal("PDR")
    truth = 12_000 + 3_000 * 0.5**0.5
    assert found.lower is not None and truth * 0.99 <= found.lower <= truth


def test_binary_search_never_takes_the_generators_limit_for_loss() -> None:
    device = SimulatedDevice(capacity=15_000, generator=9_000, generator_loss=0.2)
    result = rfc2544_binary(device, LIMITS, duration=10.0)
    found = result.goal("NDR")
    assert result.generator_ceiling == 9_000
    assert found.upper is None and found.generator_limited
    assert found.lower is not None and 0.98 * 9_000 <= found.lower < 9_000


def test_binary_search_below_the_minimum_load_has_no_lower_bound() -> None:
    result = rfc2544_binary(SimulatedDevice(capacity=500), LIMITS, duration=1.0)
    found = result.goal("NDR")
    assert found.lower is None and found.upper == LIMITS.min_load and found.converged


def test_binary_search_stops_at_max_trials() -> None:
    limits = SearchLimits(max_load=1_488_095.0, min_load=1000.0, max_trials=3)
    result = rfc2544_binary(SimulatedDevice(capacity=15_000), limits, duration=1.0)
    assert len(result.trials) == 3 and result.stopped is not None
