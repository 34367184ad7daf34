"""A lab DUT's forwarding limit: the model, its ring and budget (tc), the lab record."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.lab import record
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.limits import (
    BACKLOG,
    DEFAULT_RING,
    PACKET_COST,
    budget_argvs,
    burst_bytes,
    burst_packets,
    forward_family,
    ring_packets,
)
from wirespeed.lab.links import parse_link
from wirespeed.model import ForwardingLimit, ModelError, Topology

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "lab"


def test_a_limit_names_itself_for_lab_names() -> None:
    assert ForwardingLimit(pps=15000).label == "15kpps"
    assert ForwardingLimit(pps=15000, bps=100_000_000).label == "15kpps-100mbit"
    assert ForwardingLimit(pps=12345).label == "12345pps"
    assert ForwardingLimit(bps=2_500_000_000).label == "2500mbit"
    assert ForwardingLimit(bps=1_000_000_000).label == "1gbit"
    assert ForwardingLimit(pps=2_000_000).label == "2mpps"


@pytest.mark.parametrize(
    ("pps", "bps"), [(None, None), (0, None), (-1, None), (None, 0), (1000, -5)]
)
def test_a_limit_needs_a_positive_rate(pps: int | None, bps: int | None) -> None:
    with pytest.raises(ModelError):
        ForwardingLimit(pps=pps, bps=bps)


def test_the_packet_burst_is_ten_milliseconds_and_at_least_five() -> None:
    assert burst_packets(15000) == 150
    assert burst_packets(60000) == 600
    assert burst_packets(100) == 5


def _qdiscs(limit: ForwardingLimit, link: str = "gbe", mtu: int = 1500) -> list[list[str]]:
    argvs = budget_argvs("ns", limit, parse_link(link, mtu=mtu), mtu)
    assert all(a[:7] == ["tc", "-n", "ns", "qdisc", "replace", "dev", BACKLOG] for a in argvs)
    return [a[7:] for a in argvs]


def test_every_packet_costs_the_same_whatever_its_size() -> None:
    (tbf, ring) = _qdiscs(ForwardingLimit(pps=15000))
    # 15,000 packets/s of PACKET_COST bytes each (mpu): a 64-byte frame costs as much
    # as a 1518-byte one; the burst is 150 of them.
    assert tbf == [
        "root", "handle", "1:", "tbf", "rate", f"{15000 * PACKET_COST * 8}bit",
        "burst", str(150 * PACKET_COST), "limit", str(150 * PACKET_COST),
        "mpu", str(PACKET_COST), "overhead", "0",
    ]  # fmt: skip
    assert PACKET_COST == 65535  # tbf's mpu is 16 bits: its largest
    assert ring == ["parent", "1:1", "handle", "2:", "pfifo", "limit", str(DEFAULT_RING)]


def test_a_packet_rate_of_millions_keeps_its_burst_within_what_tc_takes() -> None:
    (tbf, _) = _qdiscs(ForwardingLimit(pps=10_000_000))
    assert tbf[tbf.index("burst") + 1] == str(2**32 - 1)
    (tbf, _) = _qdiscs(ForwardingLimit(pps=6_000_000))
    assert tbf[tbf.index("burst") + 1] == str(60_000 * PACKET_COST)


def test_the_bit_rate_counts_the_wire_as_a_link_does() -> None:
    (tbf, ring) = _qdiscs(ForwardingLimit(bps=100_000_000))
    assert tbf[:6] == ["root", "handle", "1:", "tbf", "rate", "100000000bit"]
    assert tbf[-4:] == ["mpu", "84", "overhead", "24"]
    assert tbf[tbf.index("burst") + 1] == str(125_000)  # 10 ms of 100 Mbit/s
    assert ring[:2] == ["parent", "1:1"]
    # A jumbo frame must fit the bucket: five of them at least.
    assert burst_bytes(1_000_000, 9000) == 5 * (9000 + 38)


def test_both_rates_chain_the_packet_budget_over_the_bit_rate_over_the_ring() -> None:
    pps, bps, ring = _qdiscs(ForwardingLimit(pps=15000, bps=100_000_000, ring=500))
    assert pps[:3] == ["root", "handle", "1:"]
    assert bps[:4] == ["parent", "1:1", "handle", "2:"] and "100000000bit" in bps
    assert ring == ["parent", "2:1", "handle", "3:", "pfifo", "limit", "500"]


def test_the_ring_is_the_limits_own_else_the_queue_at_the_rate_else_the_default() -> None:
    gbe, queued = parse_link("gbe"), parse_link("gbe", queue=0.040)
    assert ring_packets(ForwardingLimit(pps=20000), gbe, 1500) == DEFAULT_RING == 256
    # A round trip crosses the ring twice: 40 ms of it is 20 ms of 20,000 packets/s.
    assert ring_packets(ForwardingLimit(pps=20000), queued, 1500) == 400
    assert ring_packets(ForwardingLimit(pps=20000, ring=64), queued, 1500) == 64
    # A bit rate drains full-size frames: 100 Mbit/s is 8,127 of 1538 wire bytes a second.
    assert ring_packets(ForwardingLimit(bps=100_000_000), queued, 1500) == 163
    # Both: whichever drains full-size frames slower.
    assert ring_packets(ForwardingLimit(pps=5000, bps=100_000_000), queued, 1500) == 100
    assert ring_packets(ForwardingLimit(pps=10), parse_link("gbe", queue=0.001), 1500) == 2


def test_a_ring_must_be_a_positive_number_of_packets() -> None:
    for ring in (0, -1, 10**7):
        with pytest.raises(ModelError):
            ForwardingLimit(pps=1000, ring=ring)
    assert ForwardingLimit(pps=15000, ring=500).label == "15kpps-ring500"


def test_a_bridge_is_faulted_where_bridged_frames_pass() -> None:
    assert forward_family(Topology.BRIDGE) == "bridge"
    assert forward_family(Topology.ROUTER) == forward_family(Topology.NAT) == "ip"


def test_an_endpoint_dut_forwards_nothing_to_limit() -> None:
    with pytest.raises(UsageError) as caught:
        Lab(LabSpec(Topology.ENDPOINT, parse_link("gbe"), limit=ForwardingLimit(pps=1000)), 1500)
    assert "endpoint" in caught.value.message
    assert caught.value.hint is not None and "bridge, router or nat" in caught.value.hint


def test_a_nat_lab_names_its_wan_address_and_port_forward() -> None:
    nat = Lab(LabSpec(Topology.NAT, parse_link("gbe")), 1500)
    assert nat.wan_address == "198.19.1.1"
    assert nat.port_forward == (5800, 5899)
    router = Lab(LabSpec(Topology.ROUTER, parse_link("gbe")), 1500)
    assert router.wan_address == "198.19.1.1"
    assert router.port_forward is None
    bridge = Lab(LabSpec(Topology.BRIDGE, parse_link("gbe")), 1500)
    assert bridge.wan_address is None
    assert bridge.port_forward is None


def test_a_limit_survives_the_record_round_trip(tmp_path: Path) -> None:
    limit = ForwardingLimit(pps=15000, bps=100_000_000)
    saved = record.LabRecord("n", Topology.NAT, parse_link("fe"), 1500, limit=limit)
    record.save(saved, str(tmp_path))
    assert record.load("n", str(tmp_path)) == saved
    text = (tmp_path / "n.json").read_text()
    assert '"version": 2' in text and "ring" not in text


def test_a_limit_with_its_ring_is_a_version_4_record() -> None:
    limit = ForwardingLimit(pps=15000, ring=500)
    saved = record.LabRecord("n", Topology.NAT, parse_link("fe"), 1500, limit=limit)
    text = record.to_json(saved)
    assert '"version": 4' in text and '"ring": 500' in text
    assert record.from_json(text) == saved


def test_a_lab_without_limit_is_written_as_version_1_and_read_back() -> None:
    unlimited = record.LabRecord("b", Topology.BRIDGE, parse_link("gbe"), 1500)
    text = record.to_json(unlimited)
    assert '"version": 1' in text and "limit" not in text
    assert record.from_json(text) == unlimited


def test_an_old_record_reads_as_a_lab_without_limit() -> None:
    # Written by wirespeed before labs had limits (record version 1).
    loaded = record.from_json((FIXTURES / "record-version-1.json").read_text())
    assert loaded is not None
    assert loaded.limit is None and loaded.topology is Topology.NAT


def test_a_record_with_a_bad_limit_is_unreadable_not_a_crash() -> None:
    text = record.to_json(
        record.LabRecord("n", Topology.NAT, parse_link("fe"), 1500, limit=ForwardingLimit(1))
    )
    assert record.from_json(text.replace('"pps": 1', '"pps": -3')) is None
    assert record.from_json(text.replace('"pps": 1,', '"pps": null,')) is None
