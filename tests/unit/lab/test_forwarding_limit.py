"""A lab DUT's forwarding limit: the model, the nftables rules, the lab record."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.lab import record
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.limits import (
    burst_packets,
    ip_bytes_per_second,
    limit_family,
    limit_rules,
    limit_ruleset,
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
    assert limit_rules(ForwardingLimit(pps=15000), 1500) == [
        "limit rate over 15000/second burst 150 packets drop"
    ]


def test_the_bit_rate_counts_the_wire_and_nft_counts_ip_bytes() -> None:
    # 100 Mbit/s of full-size frames: 12.5 MB/s on the wire, of which 1500/1538 is IP.
    assert ip_bytes_per_second(100_000_000, 1500) == 12_191_157
    assert ip_bytes_per_second(100_000_000, 9000) == 12_447_444
    (rule,) = limit_rules(ForwardingLimit(bps=100_000_000), 1500)
    assert rule.startswith("limit rate over 12191157 bytes/second burst ")


def test_the_ruleset_replaces_the_table_in_one_transaction() -> None:
    ruleset = limit_ruleset(ForwardingLimit(pps=15000, bps=100_000_000), Topology.NAT, 1500)
    lines = ruleset.splitlines()
    assert lines[:3] == [
        "table ip wirespeed-limit {}",
        "delete table ip wirespeed-limit",
        "table ip wirespeed-limit {",
    ]
    assert "    type filter hook forward priority filter; policy accept;" in lines
    assert "    limit rate over 15000/second burst 150 packets drop" in lines


def test_a_bridge_is_limited_where_bridged_frames_pass() -> None:
    assert limit_family(Topology.BRIDGE) == "bridge"
    assert limit_family(Topology.ROUTER) == limit_family(Topology.NAT) == "ip"


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
    assert '"version": 2' in text


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
