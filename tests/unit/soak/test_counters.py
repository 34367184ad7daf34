"""The DUT's counters a soak reads per chunk, from captured files."""

from __future__ import annotations

from pathlib import Path

from wirespeed.soak.soak_runner import ethtool_counters, softnet_dropped

FIXTURES = Path(__file__).parents[2] / "fixtures"


def test_softnet_drops_are_the_second_column_summed_over_the_cpus() -> None:
    text = (FIXTURES / "boards" / "r4s-sampling" / "proc" / "net" / "softnet_stat").read_text()

    assert softnet_dropped(text) == 0x29  # CPU 0 dropped 41; the others none


def test_ethtool_statistics_are_read_by_name() -> None:
    counters = ethtool_counters((FIXTURES / "soak" / "ethtool-S-veth.txt").read_text())

    assert counters["peer_ifindex"] == 2
    assert counters["rx_queue_0_drops"] == 0
    assert "NIC statistics" not in counters
