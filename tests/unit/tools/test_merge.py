"""One Result per test: each number from the end that measured it."""

from __future__ import annotations

from pathlib import Path

from wirespeed.model import Flow, Result, Side, WarningKind
from wirespeed.tools import iperf2, iperf3
from wirespeed.tools.merge import merge

FIXTURES = Path(__file__).parents[2] / "fixtures"


def pair(tool: str, capture: str) -> tuple[Result, Result]:
    module = iperf2 if tool == "iperf2" else iperf3
    client = module.parse((FIXTURES / tool / f"{capture}.client.txt").read_text(), Side.CLIENT)
    server = module.parse((FIXTURES / tool / f"{capture}.server.txt").read_text(), Side.SERVER)
    return client, server


def test_iperf2_tcp_up_takes_sent_from_the_client_and_received_from_the_server() -> None:
    client, server = pair("iperf2", "tcp-up")
    up = merge(client, server).direction(Flow.UP)
    client_up, server_up = client.direction(Flow.UP), server.direction(Flow.UP)
    assert up is not None and client_up is not None and server_up is not None
    assert up.sent == client_up.sent and up.received == server_up.received
    assert up.retransmits == client_up.retransmits
    assert up.intervals == server_up.intervals  # the receiver's goodput series
    assert up.goodput_source is Side.SERVER
    assert up.streams[0].sent == client_up.sent and up.streams[0].received == server_up.received


def test_iperf2_tcp_down_takes_sent_and_retransmits_from_the_server() -> None:
    client, server = pair("iperf2", "tcp-down")
    down = merge(client, server).direction(Flow.DOWN)
    server_down = server.direction(Flow.DOWN)
    assert down is not None and server_down is not None
    assert down.sent == server_down.sent and down.retransmits == server_down.retransmits
    assert down.received is not None and down.goodput_source is Side.CLIENT


def test_iperf2_udp_bidir_takes_each_directions_loss_from_its_receiver() -> None:
    client, server = pair("iperf2", "udp-bidir")
    merged = merge(client, server)
    up, down = merged.direction(Flow.UP), merged.direction(Flow.DOWN)
    server_up, client_down = server.direction(Flow.UP), client.direction(Flow.DOWN)
    assert up is not None and down is not None
    assert server_up is not None and client_down is not None
    # The full-duplex client never gets a server report: the server's output has it.
    assert up.udp is not None and up.udp == server_up.udp
    assert down.udp == client_down.udp
    assert not {w.kind for w in merged.warnings} & {WarningKind.NO_SERVER_REPORT}


def test_iperf2_dual_with_different_stream_ids_keeps_the_receivers_streams() -> None:
    client, server = pair("iperf2", "tcp-dual-p2")
    merged = merge(client, server)
    up = merged.direction(Flow.UP)
    server_up = server.direction(Flow.UP)
    assert up is not None and server_up is not None
    assert [s.id for s in up.streams] == [s.id for s in server_up.streams]
    assert up.sent is not None and up.received is not None


def test_a_warning_both_ends_printed_appears_once() -> None:
    client, server = pair("iperf2", "tcp-window")
    merged = merge(client, server)
    assert [w.kind for w in merged.warnings] == [WarningKind.WINDOW_ADJUSTED]


def test_a_udp_client_whose_server_died_keeps_what_it_sent_and_its_warnings() -> None:
    client, server = pair("iperf2", "err-udp-server-killed")
    merged = merge(client, server)
    up = merged.direction(Flow.UP)
    assert up is not None and up.sent is not None and up.received is None
    assert {WarningKind.NO_SERVER_REPORT, WarningKind.TRUNCATED} <= {
        w.kind for w in merged.warnings
    }


def test_iperf3_json_bidir_merges_to_both_directions_with_both_ends_numbers() -> None:
    client, server = pair("iperf3", "json-udp-bidir")
    merged = merge(client, server)
    assert merged.tool_version == "3.12"
    for direction in merged.directions:
        assert direction.sent is not None and direction.received is not None
        assert direction.udp is not None


def test_without_a_server_output_the_client_result_stands() -> None:
    client, _ = pair("iperf2", "udp-up")
    assert merge(client, None) is client
