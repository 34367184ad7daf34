"""iperf 2.1.8 outputs captured on loopback (tests/fixtures/capture_iperf.sh): every mode,
both ends, enhanced (-e), plain and CSV."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.model import Direction, Flow, Proto, Result, Side, TestSpec, WarningKind
from wirespeed.tools import iperf2

CAPTURES = Path(__file__).parents[2] / "fixtures" / "iperf2"


def text(name: str) -> str:
    return (CAPTURES / f"{name}.txt").read_text()


def parsed(name: str) -> Result:
    side = Side.SERVER if name.endswith(".server") else Side.CLIENT
    return iperf2.parse(text(name), side)


def kinds(result: Result) -> set[WarningKind]:
    return {w.kind for w in result.warnings}


def flows(result: Result) -> list[Flow]:
    return [d.flow for d in result.directions]


@pytest.mark.parametrize(
    ("capture", "expected"),
    [
        ("tcp-up", [Flow.UP]),
        ("tcp-down", [Flow.DOWN]),
        ("tcp-dual", [Flow.UP, Flow.DOWN]),
        ("tcp-dual-p2", [Flow.UP, Flow.DOWN]),
        ("tcp-bidir", [Flow.UP, Flow.DOWN]),
        ("tcp-parallel", [Flow.UP]),
        ("tcp-up-ipv6", [Flow.UP]),
        ("udp-up", [Flow.UP]),
        ("udp-down", [Flow.DOWN]),
        ("udp-dual", [Flow.UP, Flow.DOWN]),
        ("udp-bidir", [Flow.UP, Flow.DOWN]),
        ("plain-tcp-dual", [Flow.UP, Flow.DOWN]),
        ("plain-tcp-bidir", [Flow.UP, Flow.DOWN]),
        ("plain-udp-dual", [Flow.UP, Flow.DOWN]),
        ("csv-tcp-up", [Flow.UP]),
        ("csv-tcp-down", [Flow.DOWN]),
        ("csv-tcp-dual", [Flow.UP, Flow.DOWN]),
        ("csv-tcp-bidir", [Flow.UP, Flow.DOWN]),
        ("csv-udp-dual", [Flow.UP, Flow.DOWN]),
    ],
)
def test_client_and_server_agree_on_which_way_each_flow_went(
    capture: str, expected: list[Flow]
) -> None:
    client, server = parsed(f"{capture}.client"), parsed(f"{capture}.server")
    assert flows(client) == expected
    assert flows(server) == expected
    for flow in expected:
        at_client, at_server = client.direction(flow), server.direction(flow)
        assert at_client is not None and at_server is not None
        # What one end sent the other received: loopback loses little TCP and some UDP.
        sent = (at_client if flow is Flow.UP else at_server).sent
        received = (at_server if flow is Flow.UP else at_client).received
        assert sent is not None and received is not None
        assert received.bytes == pytest.approx(sent.bytes, rel=0.1)


def test_the_enhanced_tcp_client_reports_retransmits_and_one_second_intervals() -> None:
    up = parsed("tcp-up.client").direction(Flow.UP)
    assert up is not None and up.sent is not None
    # [  1] 0.0000-2.0075 sec  2.52 GBytes  10.8 Gbits/sec  20652/0         35 ...
    assert up.retransmits == 35
    assert [(i.start, i.end) for i in up.intervals] == [(0.0, 1.0), (1.0, 2.0)]
    assert [i.retransmits for i in up.intervals] == [22, 13]
    assert up.sent.seconds == pytest.approx(2.0075)
    assert up.sent.bits_per_second == 10.8e9
    assert up.sent.bytes == round(2.52 * 2**30)


def test_down_is_sent_by_the_server_which_reports_its_retransmits() -> None:
    down = parsed("tcp-down.server").direction(Flow.DOWN)
    assert down is not None and down.sent is not None and down.received is None
    assert down.retransmits is not None


def test_two_parallel_streams_total_is_iperfs_own_sum() -> None:
    up = parsed("tcp-parallel.server").direction(Flow.UP)
    assert up is not None and up.received is not None
    assert len(up.streams) == 2
    # "[SUM] 0.0000-2.0166 sec  2.68 GBytes  11.4 Gbits/sec": the streams' bytes over the
    # span of both, not their rates added.
    assert up.received.bytes == sum(s.received.bytes for s in up.streams if s.received)
    assert up.received.seconds == pytest.approx(2.0166)
    assert up.received.bits_per_second == 11.4e9
    assert [len(s.intervals) for s in up.streams] == [2, 2]
    assert up.intervals[0].bytes == sum(s.intervals[0].bytes for s in up.streams)


def test_dual_with_two_streams_has_two_streams_each_way_on_both_ends() -> None:
    for end in ("client", "server"):
        result = parsed(f"tcp-dual-p2.{end}")
        assert [len(d.streams) for d in result.directions] == [2, 2]


def test_full_duplex_carries_both_flows_on_one_id() -> None:
    result = parsed("tcp-bidir.client")
    assert [[s.id for s in d.streams] for d in result.directions] == [[1], [1]]


def test_a_full_duplex_receiver_that_waited_for_a_lost_end_datagram_is_cut_to_its_traffic() -> None:
    # The server printed 0-5.13 s and 34.3 Mbit/s: 3 s of waiting for the client's lost
    # end datagram averaged in. The traffic ended in 2-3 s: 668,164 bytes at the previous
    # second's 10,416,224 B/s take 0.064 s, so 2.064 s, as long as the client's receiving
    # side (the end datagram arrived there) printed: 0-2.0635 s.
    up = parsed("udp-bidir-end-lost.server").direction(Flow.UP)
    assert up is not None and up.received is not None
    assert up.received.bytes == 21_993_160
    assert up.received.seconds == pytest.approx(2.0 + 668_164 / 10_416_224)
    assert up.received.bits_per_second == pytest.approx(85.24e6, rel=1e-3)
    [stream] = up.streams
    assert [(i.start, i.end) for i in stream.intervals] == [(0, 1), (1, 2), (2, 3)]
    [said] = [w.message for w in parsed("udp-bidir-end-lost.server").warnings]
    assert "end-of-test datagram was lost" in said and "waited 3.1 s" in said
    # The end that got its end datagram is left as iperf printed it.
    client = parsed("udp-bidir-end-lost.client")
    down = client.direction(Flow.DOWN)
    assert down is not None and down.received is not None
    assert down.received.seconds == 2.0635 and not client.warnings
    assert flows(client) == flows(parsed("udp-bidir-end-lost.server")) == [Flow.UP, Flow.DOWN]
    assert not parsed("udp-bidir.server").warnings


def test_a_client_hung_after_a_full_duplex_barrier_timeout_has_all_it_needs() -> None:
    spec = TestSpec(protocol=Proto.UDP, direction=Direction.BIDIR, duration=2.0)
    hung = text("udp-bidir-barrier-hang.client")
    assert iperf2.client_stuck_after_report(hung, spec)
    # Before its final reports, or without the barrier timeout, it is still working.
    assert not iperf2.client_stuck_after_report(hung.split("[ *1] 0.0000-5.1468")[0], spec)
    assert not iperf2.client_stuck_after_report(text("udp-bidir.client"), spec)
    down = parsed("udp-bidir-barrier-hang.client").direction(Flow.DOWN)
    assert down is not None and down.received is not None
    assert down.received.seconds < 2.1  # its 3 s of waiting left out
    assert down.received.bits_per_second == pytest.approx(92e6, rel=0.02)


def test_a_window_the_kernel_doubled_is_flagged_on_both_ends() -> None:
    for end in ("client", "server"):
        assert WarningKind.WINDOW_ADJUSTED in kinds(parsed(f"tcp-window.{end}"))


def test_the_udp_client_takes_loss_and_jitter_from_the_server_report() -> None:
    client = parsed("udp-up.client")
    up = client.direction(Flow.UP)
    assert client.protocol is Proto.UDP
    assert up is not None and up.udp is not None and up.received is not None
    assert up.udp.packets == 17010
    assert up.udp.loss_percent == pytest.approx(100 * up.udp.lost / 17010)
    assert up.goodput_source is Side.SERVER


def test_udp_loss_on_loopback_with_a_tiny_receive_buffer_is_computed_not_rounded() -> None:
    server = parsed("udp-loss.server")
    up = server.direction(Flow.UP)
    assert up is not None and up.udp is not None
    assert up.udp.loss_percent is not None and up.udp.loss_percent > 10
    assert up.intervals[0].lost is not None and up.intervals[0].packets is not None
    assert WarningKind.WINDOW_ADJUSTED in kinds(server)


def test_1000_byte_datagrams_are_what_the_receiver_counted() -> None:
    up = parsed("udp-len.server").direction(Flow.UP)
    assert up is not None and up.udp is not None and up.received is not None
    delivered = up.udp.packets - up.udp.lost
    assert up.received.bytes / delivered == pytest.approx(1000, rel=0.01)


def test_a_client_with_no_server_listening_reports_connect_failed() -> None:
    result = parsed("err-refused.client")
    assert result.directions == ()
    assert WarningKind.CONNECT_FAILED in kinds(result)


def test_a_udp_client_whose_server_died_has_no_server_report() -> None:
    client = parsed("err-udp-server-killed.client")
    assert {WarningKind.ACK_OF_LAST_DATAGRAM, WarningKind.NO_SERVER_REPORT} <= kinds(client)
    up = client.direction(Flow.UP)
    assert up is not None and up.received is None and up.sent is not None
    assert WarningKind.TRUNCATED in kinds(parsed("err-udp-server-killed.server"))


def test_a_cut_output_is_truncated_and_numbers_come_from_its_intervals() -> None:
    cut = "\n".join(text("tcp-up.client").splitlines()[:-1])  # drop the final report
    result = iperf2.parse_text(cut, Side.CLIENT)
    up = result.direction(Flow.UP)
    assert WarningKind.TRUNCATED in kinds(result)
    assert up is not None and up.sent is not None and up.sent.seconds == 2.0


def test_the_udp_sender_csv_has_no_loss_the_receiver_csv_does() -> None:
    client = parsed("csv-udp-up.client").direction(Flow.UP)
    server = parsed("csv-udp-up.server").direction(Flow.UP)
    assert client is not None and client.udp is None and client.sent is not None
    assert server is not None and server.udp is not None and server.received is not None
    assert server.received.bytes == 25003230  # CSV is exact


SPECS = {
    "tcp-up": TestSpec(duration=2),
    "tcp-down": TestSpec(duration=2, direction=Direction.DOWN),
    "tcp-dual-p2": TestSpec(duration=2, direction=Direction.DUAL, parallel=2),
    "tcp-bidir": TestSpec(duration=2, direction=Direction.BIDIR),
    "udp-dual": TestSpec(duration=2, direction=Direction.DUAL, protocol=Proto.UDP),
}


@pytest.mark.parametrize("capture", sorted(SPECS))
def test_the_server_report_is_complete_only_once_every_final_line_is_out(capture: str) -> None:
    spec = SPECS[capture]
    lines = text(f"{capture}.server").splitlines()
    assert iperf2.server_report_complete("\n".join(lines), spec)
    first_interval_only = [
        ln for ln in lines if "1.0000-2.0000" not in ln and "0.0000-2." not in ln
    ]
    assert not iperf2.server_report_complete("\n".join(first_interval_only), spec)
    assert not iperf2.server_report_complete("\n".join(lines[:6]), spec)


def test_a_server_whose_client_never_came_is_not_complete() -> None:
    assert not iperf2.server_report_complete(text("err-udp-server-killed.server"), TestSpec())


def test_the_version_comes_from_iperf_v_on_stderr() -> None:
    assert iperf2.parse_version(text("version")) == "2.1.8"
    assert iperf2.parse_version("iperf version 2.0.13 (21 Jan 2019) pthreads") == "2.0.13"
    assert iperf2.parse_version("bash: iperf: command not found") is None
