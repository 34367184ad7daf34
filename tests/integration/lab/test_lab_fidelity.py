"""Shaped lab links give Ethernet's real limits (LIMITS.md), measured with iperf3.

Each test takes about 5 s of traffic. The machine may be shared with other benchmarks,
so a measurement that misses is taken once more before the test fails.
"""

from __future__ import annotations

import pytest
from lab_helpers import Iperf3Run, MakeLab, iperf3

from wirespeed.lab.lab import Lab
from wirespeed.model import Topology

pytestmark = [pytest.mark.root, pytest.mark.slow]


def _within(
    lab: Lab, port: int, expected_mbit: float, *options: str, ceiling_mbit: float | None = None
) -> float:
    """Within 2 % of expected_mbit (and not above ceiling_mbit, if given)."""
    measured: list[float] = []
    for _ in range(2):
        run: Iperf3Run = iperf3(lab, port, 5, *options)
        measured.append(run.received_mbit)
        close = abs(measured[-1] - expected_mbit) <= 0.02 * expected_mbit
        if close and (ceiling_mbit is None or measured[-1] <= ceiling_mbit):
            return measured[-1]
    limit = "" if ceiling_mbit is None else f", at most {ceiling_mbit:.1f}"
    pytest.fail(f"expected {expected_mbit} Mbit/s ± 2 %{limit}; measured {measured}")


def test_tcp_through_a_gigabit_bridge_reaches_941_mbit(make_lab: MakeLab) -> None:
    _within(make_lab(Topology.BRIDGE, "gbe"), 15501, 941.5)


def test_tcp_from_a_client_to_a_gigabit_endpoint_does_not_exceed_941_mbit(
    make_lab: MakeLab,
) -> None:
    # The sender's own shaper over-admits GSO packets; the switch in front of the DUT
    # must hold the link to Ethernet's limit, noise allowed for only below it.
    _within(make_lab(Topology.ENDPOINT, "gbe"), 15505, 941.5, ceiling_mbit=941.5 * 1.005)


def test_tcp_through_a_fast_ethernet_bridge_reaches_94_mbit(make_lab: MakeLab) -> None:
    _within(make_lab(Topology.BRIDGE, "fe"), 15502, 94.1)


def test_udp_1470_through_a_fast_ethernet_bridge_reaches_95_7_mbit(make_lab: MakeLab) -> None:
    _within(make_lab(Topology.BRIDGE, "fe"), 15503, 95.7, "-u", "-b", "200000000", "-l", "1470")


def test_tcp_at_mtu_512_through_a_fast_ethernet_router_reaches_83_6_mbit(
    make_lab: MakeLab,
) -> None:
    lab = make_lab(Topology.ROUTER, "fe")
    lab.set_mtu(512)
    _within(lab, 15504, 83.6)
