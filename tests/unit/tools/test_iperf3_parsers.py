"""iperf 3.12 outputs captured on loopback: JSON (what runs use) and text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wirespeed.model import Flow, Proto, Result, Side, TestSpec, WarningKind
from wirespeed.tools import iperf3

CAPTURES = Path(__file__).parents[2] / "fixtures" / "iperf3"


def text(name: str) -> str:
    return (CAPTURES / f"{name}.txt").read_text()


def parsed(name: str) -> Result:
    side = Side.SERVER if name.endswith(".server") else Side.CLIENT
    return iperf3.parse(text(name), side)


def kinds(result: Result) -> set[WarningKind]:
    return {w.kind for w in result.warnings}


@pytest.mark.parametrize(
    ("capture", "expected"),
    [
        ("json-tcp-up", [Flow.UP]),
        ("json-tcp-down", [Flow.DOWN]),
        ("json-tcp-bidir", [Flow.UP, Flow.DOWN]),
        ("json-tcp-parallel", [Flow.UP]),
        ("json-tcp-up-ipv6", [Flow.UP]),
        ("json-udp-up", [Flow.UP]),
        ("json-udp-down", [Flow.DOWN]),
        ("json-udp-bidir", [Flow.UP, Flow.DOWN]),
        ("text-tcp-up", [Flow.UP]),
        ("text-tcp-down", [Flow.DOWN]),
        ("text-tcp-bidir", [Flow.UP, Flow.DOWN]),
        ("text-udp-up", [Flow.UP]),
        ("text-udp-bidir", [Flow.UP, Flow.DOWN]),
    ],
)
def test_both_ends_agree_on_the_flows_and_the_receiver_total(
    capture: str, expected: list[Flow]
) -> None:
    client, server = parsed(f"{capture}.client"), parsed(f"{capture}.server")
    assert [d.flow for d in client.directions] == expected
    assert [d.flow for d in server.directions] == expected
    for flow in expected:
        at_client, at_server = client.direction(flow), server.direction(flow)
        assert at_client is not None and at_server is not None
        # The client learns the receiver's numbers at the end: the same as the server's.
        receiver = at_server if flow is Flow.UP else at_client
        assert at_client.received is not None and receiver.received is not None
        assert at_client.received.bytes == receiver.received.bytes


def test_the_json_client_has_exact_bytes_from_both_ends_and_retransmits() -> None:
    data = json.loads(text("json-tcp-up.client"))
    up = parsed("json-tcp-up.client").direction(Flow.UP)
    assert up is not None and up.sent is not None and up.received is not None
    assert up.sent.bytes == data["end"]["sum_sent"]["bytes"]
    assert up.received.bits_per_second == data["end"]["sum_received"]["bits_per_second"]
    assert up.retransmits == data["end"]["sum_sent"]["retransmits"]
    assert len(up.intervals) == 2


def test_the_server_json_drops_the_zeros_it_holds_for_the_clients_half() -> None:
    up = parsed("json-tcp-up.server").direction(Flow.UP)
    assert up is not None and up.sent is None and up.received is not None


def test_bidir_json_gives_each_direction_its_own_socket() -> None:
    result = parsed("json-tcp-bidir.client")
    assert [[s.id for s in d.streams] for d in result.directions] == [[5], [7]]


def test_udp_json_reports_receiver_counters_and_receiver_rate() -> None:
    result = parsed("json-udp-loss.client")
    up = result.direction(Flow.UP)
    assert up is not None and up.udp is not None and up.received is not None
    assert up.sent is not None and up.received.bits_per_second < up.sent.bits_per_second
    assert up.udp.loss_percent is not None and up.udp.loss_percent > 10
    assert WarningKind.WINDOW_ADJUSTED in kinds(result)


def test_a_json_run_that_could_not_connect_exits_0_but_says_error() -> None:
    result = parsed("json-err-refused.client")
    assert result.directions == ()
    assert WarningKind.CONNECT_FAILED in kinds(result)
    assert "Connection refused" in result.warnings[0].message


def test_a_text_run_that_could_not_connect_reports_it() -> None:
    assert WarningKind.CONNECT_FAILED in kinds(parsed("text-err-refused.client"))


def test_a_requested_window_the_kernel_doubled_is_flagged() -> None:
    assert WarningKind.WINDOW_ADJUSTED in kinds(parsed("json-tcp-window.client"))


def test_the_tool_version_comes_with_the_json() -> None:
    assert parsed("json-tcp-up.client").tool_version == "3.12"
    assert iperf3.parse_version(text("version")) == "3.12"


def test_udp_text_computes_loss_from_the_counters() -> None:
    up = parsed("text-udp-up.client").direction(Flow.UP)
    assert up is not None and up.udp is not None
    # [  5]   0.00-2.00   sec  23.8 MBytes  99.9 Mbits/sec  0.134 ms  1/763 (0.13%)  receiver
    assert (up.udp.lost, up.udp.packets) == (1, 763)
    assert up.udp.loss_percent == pytest.approx(100 / 763)
    assert up.udp.jitter_ms == 0.134


def test_a_cut_json_is_not_complete_and_parses_as_truncated() -> None:
    whole = text("json-udp-up.server")
    spec = TestSpec(protocol=Proto.UDP, duration=2)
    assert iperf3.server_report_complete(whole, spec)
    cut = whole[: len(whole) // 2]
    assert not iperf3.server_report_complete(cut, spec)
    assert WarningKind.TRUNCATED in kinds(iperf3.parse_json(cut, Side.SERVER))


def test_a_text_server_is_complete_once_its_summary_is_out() -> None:
    whole = text("text-tcp-up.server")
    assert iperf3.server_report_complete(whole, TestSpec(duration=2))
    before_summary = whole.split("- - -")[0]
    assert not iperf3.server_report_complete(before_summary, TestSpec(duration=2))
