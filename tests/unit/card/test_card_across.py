"""The card read across its parts (card/across.py): TCP beside the forwarding rate,
tunnels beside the packet budget, the bufferbloat grade with its queue."""

from __future__ import annotations

import json

from wirespeed.card.across import (
    card_lab,
    compute_words,
    elsewhere,
    tcp_against_forwarding,
    tunnels_against_budget,
)
from wirespeed.model import ForwardingLimit

LINE_TCP = 941.5e6  # LIMITS.md: TCP at 1 GbE, MTU 1500


def _lab(**lab: object) -> str:
    return f"title: x\nlab: {json.dumps(lab)}\npaths: []\n"


def test_tcp_far_below_what_the_forwarding_rate_carries_is_said() -> None:
    # The card: 21,300 packets/s forwarded, TCP at 5.8 Mbit/s.
    said = tcp_against_forwarding(5.8e6, 21_300, 1500, LINE_TCP)
    assert said.startswith("TCP at 5.8 Mbit/s is far below what the forwarding rate carries")
    assert "21,300 packets/s carry about 164.5 Mbit/s of TCP" in said
    assert "drops TCP's bursts rather than queueing them" in said


def test_tcp_at_the_packet_rate_is_said_bounded_by_it_not_the_line() -> None:
    said = tcp_against_forwarding(150e6, 21_300, 1500, LINE_TCP)
    assert said.startswith("TCP at 150.0 Mbit/s is bounded by the forwarding rate, not the line")
    assert "91 % of it reached" in said
    # Just at the edge of "far below": half of what the packets carry is not far below.
    half = 0.5 * 21_300 * 2 / 3 * 1448 * 8
    assert "far below" not in tcp_against_forwarding(half, 21_300, 1500, LINE_TCP)
    assert "far below" in tcp_against_forwarding(half * 0.99, 21_300, 1500, LINE_TCP)


def test_tcp_at_the_line_rate_below_the_packet_rate_says_nothing() -> None:
    assert tcp_against_forwarding(94.0e6, 30_000, 1500, 94.1e6) == ""
    assert tcp_against_forwarding(None, 30_000, 1500, 94.1e6) == ""
    assert tcp_against_forwarding(94.0e6, None, 1500, 94.1e6) == ""
    # Far below the line where the line, not the packet rate, is the bound.
    assert "far below" in tcp_against_forwarding(40e6, 30_000, 1500, 94.1e6)


def test_a_tunnel_above_the_packet_budget_did_not_cross_it() -> None:
    above, within = tunnels_against_budget(
        [("WireGuard", 866.5e6), ("OpenVPN", 120e6)], 21_300, 1500
    )
    assert above.startswith("WireGuard at 866.5 Mbit/s is more than 21,300 packets/s can carry")
    assert "at most 246.7 Mbit/s" in above and "did not cross" in above
    assert within.startswith("OpenVPN at 120.0 Mbit/s within the packet budget: 73 % of")
    # The edge: 2 % above every packet a full segment is still within rounding.
    most = 21_300 * 1448 * 8
    (edge,) = tunnels_against_budget([("W", most * 1.02)], 21_300, 1500)
    assert "within" in edge
    (over,) = tunnels_against_budget([("W", most * 1.021)], 21_300, 1500)
    assert "did not cross" in over
    assert tunnels_against_budget([("W", 1e6)], None, 1500) == ()


def test_tunnels_on_another_lab_dut_are_said_plainly() -> None:
    labs = {"WireGuard": "endpoint", "OpenVPN": "nat limited to 21300pps"}
    (said,) = elsewhere(labs, "nat limited to 21300pps")
    assert said == (
        "WireGuard ran on a second lab DUT (endpoint), not the nat limited to 21300pps DUT "
        "of the other parts, without its limits"
    )


def test_the_queue_at_the_packet_rate_when_it_is_the_bottleneck() -> None:
    lab = card_lab(_lab(link="gbe", queue="27ms", dut={"forward_pps": 21_300}))
    assert lab is not None and lab.limit == ForwardingLimit(pps=21_300)
    words = lab.queue_words()
    # 27 ms a round trip: 13.5 ms each way of 21,300 packets/s is 288 packets.
    assert words == (
        "the 27ms queue: the DUT's ring of 288 packets at its 21,300 packets/s, the "
        "bottleneck below the line rate: 27 ms a round trip when full"
    )
    assert lab.queue_short() == "the DUT's ring at 21,300 packets/s"


def test_the_queue_at_the_line_rate_when_the_line_is_the_bottleneck() -> None:
    # Fast Ethernet carries 8,127 full frames a way; 30,000 packets/s carry 20,000 of TCP.
    lab = card_lab(_lab(link="fe", queue="40ms", dut={"forward_pps": 30_000}))
    assert lab is not None
    assert lab.queue_words() == "the 40ms queue at the line rate, the bottleneck"
    assert lab.queue_short() == "a 40ms queue at the line rate"
    plain = card_lab(_lab(link="gbe"))
    assert plain is not None and plain.queue_words() == (
        "the lab's own short queue at the line rate (20 ms)"
    )


def test_the_default_ring_is_said_to_be_the_default() -> None:
    lab = card_lab(_lab(link="gbe", dut={"forward_pps": 20_000}))
    assert lab is not None
    words = lab.queue_words()
    assert words is not None and "ring of 256 packets (its default)" in words
    assert "26 ms a round trip" in words  # 2 x 256 / 20,000 s
    named = card_lab(_lab(link="gbe", dut={"forward_pps": 20_000, "ring": 100}))
    assert named is not None and "ring of 100 packets at" in (named.queue_words() or "")


def test_a_card_of_real_hosts_has_no_lab() -> None:
    assert card_lab("title: x\nhosts: {}\n") is None
    assert card_lab(None) is None
    assert card_lab("lab: [1, 2]\n") is None
    assert card_lab("lab: {not json\n") is None


def test_a_lab_cards_compute_is_said_to_be_this_machines() -> None:
    assert compute_words(None) == ""
    said = compute_words(card_lab(_lab(link="gbe", dut={"forward_pps": 20_000})))
    assert said.startswith("crypto and compute ran in a lab namespace on this machine's CPUs")
