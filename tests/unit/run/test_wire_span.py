"""iperf2 -P 64 over a shaped gigabit link, timed by its receiver and by the receiving
interface's counters (tests/fixtures/capture_wire_span.py): a server that took its
connections late counted their bytes over less time than they took to cross, and read
above the link's 941.5 Mbit/s ceiling; the flow's figure is its bytes over the wire's span."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.model import (
    Direction,
    Flow,
    Proto,
    Result,
    Side,
    TestCase,
    TestSpec,
    Tool,
    WarningKind,
)
from wirespeed.run.wire_span import WireSpan, receiving_flow, traffic_span, with_wire_span
from wirespeed.tools import iperf2

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "iperf2"
CEILING = 1e9 * 1448 / 1538  # TCP over 1 GbE, MTU 1500 (LIMITS.md)


def counters(name: str) -> list[tuple[float, int]]:
    lines = (FIXTURES / f"{name}.counters").read_text().splitlines()
    return [(float(at), int(received)) for at, received in map(str.split, lines)]


def server(name: str) -> Result:
    return iperf2.parse((FIXTURES / f"{name}.server.txt").read_text(), Side.SERVER)


def test_a_server_that_took_its_streams_late_is_timed_by_the_wire() -> None:
    timed = server("wirespan-p64-short")
    received = timed.direction(Flow.UP)
    assert received is not None and received.received is not None
    # What iperf2 printed: 310,083,664 bytes over 2.586 s, 959.2 Mbit/s: 1.9 % above
    # what the link can carry.
    assert received.received.bits_per_second > CEILING * 1.01
    span = traffic_span(counters("wirespan-p64-short"))
    assert span is not None and span.seconds == pytest.approx(2.651, abs=0.005)
    assert span.bytes >= received.received.bytes  # they crossed this interface

    result = with_wire_span(timed, Flow.UP, span)
    direction = result.direction(Flow.UP)
    assert direction is not None and direction.received is not None
    assert direction.received.bytes == received.received.bytes
    assert direction.received.seconds == span.seconds
    assert direction.goodput_bps == pytest.approx(935.8e6, rel=1e-3)
    assert direction.goodput_bps is not None and direction.goodput_bps <= CEILING
    (said,) = [w for w in result.warnings if w not in timed.warnings]
    assert said.kind is WarningKind.TIMED_BY_THE_WIRE
    assert "timed 310,083,664 bytes over 2.586 s (959.2 Mbit/s)" in said.message
    assert "received them over 2.651 s" in said.message
    assert "the goodput is over the wire's 2.651 s (935.8 Mbit/s)" in said.message


def test_a_server_that_timed_its_streams_whole_keeps_its_figure() -> None:
    timed = server("wirespan-p64-whole")
    span = traffic_span(counters("wirespan-p64-whole"))
    assert span is not None
    direction = timed.direction(Flow.UP)
    assert direction is not None and direction.received is not None
    assert direction.received.seconds == pytest.approx(span.seconds, abs=0.005)
    assert with_wire_span(timed, Flow.UP, span) is timed


def test_bytes_the_interface_did_not_receive_say_nothing_of_their_time() -> None:
    # The whole run's interface received 297.5 MB: not the short run's 310.1 MB, which
    # must have crossed elsewhere (over loopback, say).
    timed = server("wirespan-p64-short")
    elsewhere = traffic_span(counters("wirespan-p64-whole"))
    assert elsewhere is not None
    assert with_wire_span(timed, Flow.UP, elsewhere) is timed
    assert with_wire_span(timed, Flow.UP, None) is timed
    assert with_wire_span(timed, Flow.DOWN, WireSpan(9.0, 10**12)) is timed  # no such flow


def test_counters_that_never_grew_show_no_traffic() -> None:
    idle = [(at, 1_000) for at, _ in counters("wirespan-p64-short")[:20]]
    assert traffic_span(idle) is None
    assert traffic_span(idle[:1]) is None


@pytest.mark.parametrize(
    ("tool", "protocol", "parallel", "direction", "timed"),
    [
        (Tool.IPERF2, Proto.TCP, 64, Direction.UP, Flow.UP),
        (Tool.IPERF2, Proto.TCP, 8, Direction.DOWN, Flow.DOWN),
        (Tool.IPERF2, Proto.TCP, 1, Direction.UP, None),  # one stream: taken at once
        (Tool.IPERF2, Proto.TCP, 8, Direction.BIDIR, None),  # each way's ACKs in the other
        (Tool.IPERF2, Proto.UDP, 8, Direction.UP, None),
        (Tool.IPERF3, Proto.TCP, 64, Direction.UP, None),  # its server takes all, then starts
    ],
)
def test_which_flows_are_timed_on_the_wire(
    tool: Tool, protocol: Proto, parallel: int, direction: Direction, timed: Flow | None
) -> None:
    spec = TestSpec(protocol=protocol, parallel=parallel, direction=direction)
    assert receiving_flow(TestCase(id="1", name="t", tool=tool, spec=spec)) is timed
