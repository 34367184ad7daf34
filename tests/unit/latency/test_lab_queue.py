"""`queue: 40ms`: the bottleneck's tbf holds that much time of data; the ends are fast."""

from __future__ import annotations

import pytest

from wirespeed.lab.build import shaping_steps
from wirespeed.lab.links import parse_link
from wirespeed.lab.record import LabRecord, from_json, to_json
from wirespeed.lab.shaping import queue_limit_bytes, tbf_params
from wirespeed.lab.topology import plan_for
from wirespeed.model import LinkModel, ModelError, Topology
from wirespeed.units import format_delay, parse_delay


def test_a_full_queue_of_full_frames_drains_in_the_queue_time() -> None:
    limit = queue_limit_bytes(100_000_000, 1500, 0.040)
    frames = limit / 1514
    # Each frame costs 1538 bytes of wire time (IP + header + FCS, preamble, gap).
    assert frames * 1538 * 8 / 100e6 == pytest.approx(0.040, rel=1e-4)
    assert tbf_params(100_000_000, 1500, 0.040).limit_bytes == limit
    # Without a queue the lab keeps its small one (20 ms, at least 100 frames).
    assert tbf_params(100_000_000, 1500).limit_bytes == 250_000


def test_a_tiny_queue_still_holds_two_frames() -> None:
    assert queue_limit_bytes(1_000_000, 1500, 0.000_001) == 2 * 1514


@pytest.mark.parametrize(
    ("topology", "shaped"),
    [
        (Topology.ROUTER, {("dut", "lan"), ("dut", "wan")}),
        (Topology.BRIDGE, {("dut", "lan"), ("dut", "wan")}),
        (Topology.ENDPOINT, {("switch", "client"), ("switch", "dut")}),
    ],
)
def test_only_the_bottleneck_is_shaped_when_it_queues(
    topology: Topology, shaped: set[tuple[str, str]]
) -> None:
    plan = plan_for(topology)
    link = parse_link("100mbit", queue=0.040)
    steps = shaping_steps(plan, "latency-x", link, 1500)
    found = set()
    for step in steps:
        argv = step.argv  # type: ignore[union-attr]
        namespace, interface = argv[2], argv[6]
        found.add((namespace.rsplit("-", 1)[1], interface))
        assert argv[argv.index("limit") + 1] == str(queue_limit_bytes(100_000_000, 1500, 0.04))
    assert found == shaped
    # Without a queue every veth end is shaped, as before.
    assert len(shaping_steps(plan, "latency-x", parse_link("100mbit"), 1500)) == len(
        plan.veth_ports
    )


def test_delays_are_written_with_their_unit() -> None:
    assert parse_delay("40ms") == pytest.approx(0.040)
    assert parse_delay("0.5s") == 0.5
    assert parse_delay("1500us") == pytest.approx(0.0015)
    for bad in ("40", "40 m", "-3ms", "0ms"):
        with pytest.raises(ValueError):
            parse_delay(bad)
    assert format_delay(0.040) == "40ms"
    assert format_delay(0.0005) == "500us"


def test_a_queue_needs_a_shaped_link_and_a_sane_size() -> None:
    with pytest.raises(ModelError, match="shaped link"):
        parse_link("unshaped", queue=0.04)
    with pytest.raises(ModelError, match="at most 10 s"):
        LinkModel("fe", 100_000_000, queue=11.0)


def test_the_lab_record_keeps_the_queue_and_older_records_still_read() -> None:
    queued = LabRecord("latency-q", Topology.ROUTER, parse_link("100mbit", queue=0.04), 1500)
    text = to_json(queued)
    assert '"version": 3' in text
    assert from_json(text) == queued
    plain = LabRecord("latency-p", Topology.ROUTER, parse_link("100mbit"), 1500)
    assert '"version": 1' in to_json(plain)
    assert from_json(to_json(plain)) == plain
