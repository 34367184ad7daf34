"""iperf2 -P 64 over a shaped gigabit link, timed by its receiver and by the receiving
interface's counters (tests/fixtures/capture_wire_span.py): a server that took its
connections late counted their bytes over less time than they took to cross, and read
above the link's 941.5 Mbit/s ceiling; the flow's figure is its bytes over the wire's span."""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from wirespeed.hosts.base import Host
from wirespeed.hosts.local import LocalHost
from wirespeed.hosts.netns import NetnsHost
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
from wirespeed.run.wire_span import (
    SLACK,
    CounterWatch,
    WireSpan,
    receiving_flow,
    sample,
    traffic_span,
    watch_for,
    with_wire_span,
)
from wirespeed.tools import iperf2

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "iperf2"
BOARD_NET_DEV = FIXTURES.parent / "boards" / "r4s-sampling" / "proc" / "net" / "dev"
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
        (Tool.IPERF2, Proto.TCP, 2, Direction.UP, Flow.UP),  # the second may be taken late
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


STEADY = 1_000_000  # bytes a full 10 ms poll carries: 800 Mbit/s


def _polls(
    shares: list[float], *, start: float = 100.0, every: float = 0.01
) -> list[tuple[float, int]]:
    """Synthetic counters: a poll every 10 ms, each carrying a share of the steady rate."""
    samples, received = [(start, 50_000)], 50_000
    for i, share in enumerate(shares, 1):
        received += round(STEADY * share)
        samples.append((start + i * every, received))
    return samples


def test_a_partly_filled_first_and_last_poll_place_the_edges_inside_them() -> None:
    # An ARP reply, then the traffic: its first poll 40 % filled (it began 4 ms before
    # the poll's end), twelve full ones, its last 30 % filled (it ended 3 ms into it).
    samples = _polls([0.001, 0.0, 0.4] + [1.0] * 12 + [0.3, 0.002, 0.0])
    span = traffic_span(samples)
    assert span is not None
    assert span.seconds == pytest.approx(0.004 + 12 * 0.01 + 0.003, abs=1e-9)
    assert span.bytes == round(STEADY * 12.7)
    # Mirrored (30 % first, 40 % last): the same span.
    mirrored = traffic_span(_polls([0.3] + [1.0] * 12 + [0.4]))
    assert mirrored is not None and mirrored.seconds == pytest.approx(0.127, abs=1e-9)


def test_a_poll_under_a_quarter_of_the_steady_rate_is_not_the_flows() -> None:
    # 24 % at the start (SYNs, a latency probe's burst) is left out, 26 % is the flow's.
    left_out = traffic_span(_polls([0.24] + [1.0] * 10))
    assert left_out is not None
    assert left_out.seconds == pytest.approx(0.1, abs=1e-9)
    assert left_out.bytes == 10 * STEADY
    kept = traffic_span(_polls([0.26] + [1.0] * 10))
    assert kept is not None
    assert kept.seconds == pytest.approx(0.1026, abs=1e-9)
    assert kept.bytes == round(10.26 * STEADY)


def test_a_poll_run_late_does_not_set_the_steady_rate() -> None:
    # The scheduler ran one read 1 ms after the one before: its bytes over that short
    # step read ten times the line. The median of the polls still gives the line's rate.
    samples = _polls([1.0] * 5)
    t, received = samples[-1]
    samples.append((t + 0.001, received + STEADY))
    samples += [(t + 0.001 + i * 0.01, received + (i + 1) * STEADY) for i in range(1, 6)]
    span = traffic_span(samples)
    assert span is not None
    assert span.seconds == pytest.approx(0.101, abs=1e-9)
    assert span.bytes == 11 * STEADY
    # Steps that do not go forward in time are left out.
    assert traffic_span([(1.0, 0), (1.0, STEADY), (0.9, 2 * STEADY)]) is None


def test_counters_are_read_without_loopback() -> None:
    # A board's /proc/net/dev: eth0, eth1 and br-lan count; lo does not.
    # (A read that waited for a CPU longer than a poll is None: tried again.)
    taken = next(t for t in (sample(str(BOARD_NET_DEV)) for _ in range(1000)) if t is not None)
    at, received = taken
    assert received == 13_204_433_112 + 201_332_090 + 198_012_331
    assert abs(at - time.monotonic()) < 5


def test_a_watch_never_started_spans_nothing() -> None:
    assert CounterWatch(LocalHost()).stop() is None


def test_the_receiving_host_is_watched_unless_it_is_a_device() -> None:
    client, server = LocalHost("client"), NetnsHost("ws-server")
    up = TestCase(id="1", name="t", tool=Tool.IPERF2, spec=TestSpec(parallel=8))
    down = TestCase(
        id="2", name="t", tool=Tool.IPERF2, spec=TestSpec(parallel=8, direction=Direction.DOWN)
    )
    watched = watch_for(up, client, server)
    assert watched is not None and watched[0] is Flow.UP and watched[1]._host is server
    watched = watch_for(down, client, server)
    assert watched is not None and watched[0] is Flow.DOWN and watched[1]._host is client
    device = cast("Host", SimpleNamespace(name="router"))  # an SSH device
    assert watch_for(up, client, device) is None
    assert watch_for(down, device, server) is None
    single = TestCase(id="3", name="t", tool=Tool.IPERF2, spec=TestSpec(parallel=1))
    assert watch_for(single, client, server) is None


def test_a_watch_polls_this_machines_counters_until_stopped() -> None:
    watch = CounterWatch(LocalHost())
    watch.start()
    assert watch.samples  # the counters before the traffic, read before start returns
    time.sleep(0.2)
    watch.stop()
    count = len(watch.samples)
    assert count >= 3  # a poll every 10 ms; a busy machine may skip many
    times = [at for at, _ in watch.samples]
    assert times == sorted(times) and len(set(times)) == count
    counts = [received for _, received in watch.samples]
    assert counts == sorted(counts)  # counters only grow
    time.sleep(0.05)
    assert len(watch.samples) == count  # stopped: no more polls


def test_the_edges_of_the_shares_count_as_carrying() -> None:
    # Whole seconds apart, so that each rate is exact: a poll at exactly a quarter of the
    # steady rate carries the flow's traffic.
    quarter = traffic_span(_polls([0.25] + [1.0] * 4, start=0.0, every=1.0))
    assert quarter == WireSpan(4.25, round(4.25 * STEADY))
    # Polls at exactly 1 % of the fastest set the steady rate with the others (here
    # halving it, so that the half-filled poll is as full as any).
    span = traffic_span(_polls([1.0, 0.01, 0.01, 1.0, 0.5], start=0.0, every=1.0))
    assert span == WireSpan(5.0, round(2.52 * STEADY))
    # A trickle (5 bytes in 10 s) is traffic too: what the counters saw, however little.
    assert traffic_span([(0.0, 0), (10.0, 5)]) == WireSpan(10.0, 5)


def test_the_span_replaces_the_receivers_time_only_beyond_the_slack() -> None:
    timed = server("wirespan-p64-short")
    direction = timed.direction(Flow.UP)
    assert direction is not None and direction.received is not None
    received = direction.received
    # Exactly the bytes the receiver counted (none more crossed): still timed by the wire.
    same_bytes = with_wire_span(timed, Flow.UP, WireSpan(received.seconds + 0.1, received.bytes))
    stretched = same_bytes.direction(Flow.UP)
    assert stretched is not None and stretched.received is not None
    assert stretched.received.seconds == received.seconds + 0.1
    # Longer by the slack alone: the edges' placement could miss that much, kept as is.
    at_slack = WireSpan(received.seconds + SLACK, received.bytes)
    assert with_wire_span(timed, Flow.UP, at_slack) is timed


def test_only_the_timed_flows_figure_is_stretched() -> None:
    timed = server("wirespan-p64-short")
    up = timed.direction(Flow.UP)
    assert up is not None and up.received is not None
    down = dataclasses.replace(up, flow=Flow.DOWN)
    both = dataclasses.replace(timed, directions=(up, down))
    span = WireSpan(up.received.seconds + 0.1, up.received.bytes)
    result = with_wire_span(both, Flow.UP, span)
    assert result.direction(Flow.DOWN) == down
    stretched = result.direction(Flow.UP)
    assert stretched is not None and stretched != up


def test_a_watchs_thread_is_named_and_never_holds_the_program_up() -> None:
    watch = CounterWatch(LocalHost())
    assert watch._thread.name == "wire-span" and watch._thread.daemon
