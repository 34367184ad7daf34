"""Token bucket numbers: framing counted, bursts that hold frames, queues that hold TCP."""

from __future__ import annotations

import pytest

from wirespeed.lab.shaping import format_cpumask, rps_masks, tbf_argv, tbf_params


def test_gigabit_counts_ethernet_framing_and_buffers_two_ms() -> None:
    params = tbf_params(1_000_000_000, 1500)
    assert (params.overhead, params.mpu) == (24, 84)
    assert params.burst_bytes == 250_000
    assert params.limit_bytes == 2_500_000


def test_slow_or_jumbo_links_still_hold_two_whole_frames() -> None:
    params = tbf_params(1_000_000, 9000)
    assert params.burst_bytes == 2 * (9000 + 14 + 24)
    assert params.limit_bytes == 100 * (9000 + 14 + 24)


def test_tbf_argv_gives_tc_plain_numbers() -> None:
    argv = tbf_argv("wirespeed-x-dut", "wan", tbf_params(100_000_000, 1500))
    assert argv == [
        "tc", "-n", "wirespeed-x-dut", "qdisc", "replace", "dev", "wan", "root", "tbf",
        "rate", "100000000bit", "burst", "25000", "limit", "250000",
        "overhead", "24", "mpu", "84",
    ]  # fmt: skip


def test_endpoints_and_dut_receive_on_separate_cpus() -> None:
    assert rps_masks(1) == ("1", "1")
    assert rps_masks(2) == ("1", "2")
    assert rps_masks(8) == ("f", "f0")
    assert rps_masks(40) == ("fffff", "ff,fff00000")
    with pytest.raises(ValueError):
        rps_masks(0)


def test_cpumask_puts_a_comma_every_32_bits() -> None:
    assert format_cpumask(0x3) == "3"
    assert format_cpumask((1 << 64) - 1) == "ffffffff,ffffffff"
