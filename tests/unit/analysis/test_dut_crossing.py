"""A trial's traffic against its DUT's interface counters: a router that received far
less than iperf delivered was never crossed (two ends on one machine talk over
loopback). Real captures: the foreign bench's router sampled during TCP through its NAT
(tests/fixtures/bench/INDEX.txt), and an idle machine's sampler stream."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from wirespeed.analysis.dut_crossing import bytes_delivered, dut_received_bytes, not_crossed
from wirespeed.model import Result, Side
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.stream import parse_stream
from wirespeed.tools.iperf2 import parse

FIXTURES = Path(__file__).parents[2] / "fixtures" / "bench"
IDLE = Path(__file__).parents[1] / "sampling" / "stream-v1-x86-vm-2cpu.txt"


def _samples(path: Path) -> SampleSet:
    parsed = parse_stream(path.read_text())
    return SampleSet(
        host="router",
        interval=parsed.interval or 1.0,
        start_uptime=parsed.start_uptime or 0.0,
        device_epoch=parsed.device_epoch,
        info=parsed.info,
        snapshots=parsed.snapshots,
    )


def _result() -> Result:
    return parse((FIXTURES / "tcp-through-nat.server.txt").read_text(), Side.SERVER)


def test_tcp_through_the_router_crossed_it() -> None:
    result = _result()
    delivered = bytes_delivered(result)
    samples = _samples(FIXTURES / "router-sampler-tcp-through-nat.txt")
    seen = dut_received_bytes(samples)
    assert delivered is not None and seen is not None
    # Every byte arrived on the LAN port, with its headers: more than iperf's payload.
    assert seen > delivered > 200_000_000
    assert (
        not_crossed(result, _samples(FIXTURES / "router-sampler-tcp-through-nat.txt"), "r") is None
    )


def test_a_router_whose_ports_stayed_idle_was_never_crossed() -> None:
    message = not_crossed(_result(), _samples(IDLE), "router")
    assert message is not None
    assert message.startswith("the traffic never crossed router: iperf counted 232,390,716 bytes")
    assert "received 0 bytes" in message


def test_samples_that_stop_early_conclude_nothing() -> None:
    partial = dataclasses.replace(_samples(IDLE), partial=True, reason="the host went away")
    assert not_crossed(_result(), partial, "router") is None


def test_without_two_readings_nothing_is_concluded() -> None:
    samples = _samples(IDLE)
    one = SampleSet(
        host=samples.host,
        interval=samples.interval,
        start_uptime=samples.start_uptime,
        device_epoch=samples.device_epoch,
        info=samples.info,
        snapshots=samples.snapshots[:1],
    )
    assert dut_received_bytes(one) is None
    assert not_crossed(_result(), one, "router") is None
