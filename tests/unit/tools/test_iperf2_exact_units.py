"""iperf2 with -f b, the format runs use: exact bytes and bit/s, not 3 significant digits.

"941 Mbits/sec" can be anything from 940.5 to 941.5; a ceiling check within 0.1 % needs
the full number, which `-f b` prints (captures: tests/fixtures/capture_iperf.sh)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.model import Direction, Flow, Proto, Side, TestSpec, WarningKind
from wirespeed.tools import iperf2
from wirespeed.tools.merge import merge

CAPTURES = Path(__file__).parents[2] / "fixtures" / "iperf2"


def both(name: str) -> tuple[str, str]:
    return (
        (CAPTURES / f"{name}.client.txt").read_text(),
        (CAPTURES / f"{name}.server.txt").read_text(),
    )


def test_runs_ask_iperf2_for_exact_units_on_both_ends() -> None:
    spec = TestSpec(duration=2)
    for argv in (iperf2.client_argv(spec, "198.18.1.3", 5001), iperf2.server_argv(spec, 5001)):
        index = argv.index("-f")
        assert argv[index + 1] == "b"


def test_the_tcp_receiver_total_is_the_byte_exact_number_the_server_printed() -> None:
    client, server = both("exact-tcp-up")
    final = [line for line in server.splitlines() if " 0.0000-" in line and "Bytes" in line]
    printed_bytes = int(final[-1].split("sec")[1].split()[0])
    result = merge(iperf2.parse(client, Side.CLIENT), iperf2.parse(server, Side.SERVER))
    up = result.direction(Flow.UP)
    assert up is not None and up.received is not None
    assert up.received.bytes == printed_bytes
    # Not rounded to three digits: the rate keeps all its digits.
    assert up.received.bits_per_second % 1e6 != 0


def test_dual_with_two_streams_in_exact_units_reports_both_directions() -> None:
    client, server = both("exact-tcp-dual-p2")
    result = merge(iperf2.parse(client, Side.CLIENT), iperf2.parse(server, Side.SERVER))
    # The receivers' final lines: up, the server's [1] and [3]; down, the client's
    # [3] and [4] (reverse streams); the direction lasts as long as its longest stream.
    printed = {
        Flow.UP: ({976748604: 2.0127, 1071382588: 2.0132}, 2.0132),
        Flow.DOWN: ({1121714176: 2.0068, 1038483456: 1.9993}, 2.0068),
    }
    for flow, (streams, seconds) in printed.items():
        direction = result.direction(flow)
        assert direction is not None and direction.received is not None
        assert {s.received.bytes: s.received.seconds for s in direction.streams if s.received} == (
            streams
        )
        assert direction.received.bytes == sum(streams)
        assert direction.goodput_bps == pytest.approx(sum(streams) * 8 / seconds, rel=1e-12)


def test_a_window_the_kernel_doubled_is_still_flagged_in_exact_units() -> None:
    client, _ = both("exact-tcp-window")
    kinds = {w.kind for w in iperf2.parse(client, Side.CLIENT).warnings}
    assert WarningKind.WINDOW_ADJUSTED in kinds


@pytest.mark.parametrize("name", ["exact-udp-up", "exact-udp-dual"])
def test_udp_in_exact_units_keeps_loss_and_jitter_from_the_receiver(name: str) -> None:
    client, server = both(name)
    spec = TestSpec(
        protocol=Proto.UDP,
        duration=2,
        rate=100_000_000,
        direction=Direction.DUAL if "dual" in name else Direction.UP,
    )
    assert iperf2.server_report_complete(server, spec)
    result = merge(iperf2.parse(client, Side.CLIENT), iperf2.parse(server, Side.SERVER))
    for flow in spec.flows:
        direction = result.direction(flow)
        assert direction is not None and direction.udp is not None
        assert direction.udp.packets > 0
        assert direction.received is not None
        assert 90e6 < direction.received.bits_per_second < 101e6
