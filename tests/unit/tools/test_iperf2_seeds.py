"""The seeds' iperf 2.0.x outputs (NanoPi R4S/R2S, PlutoSDR) parse to the numbers the
seeds' own comparison table shows, and their traps are flagged."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.model import Flow, Proto, Result, Side, WarningKind
from wirespeed.tools import iperf2

SEEDS = Path(__file__).parents[2] / "fixtures" / "seeds"


def seed(name: str) -> Result:
    return iperf2.parse_text((SEEDS / f"{name}.txt").read_text(), Side.CLIENT)


def kinds(result: Result) -> set[WarningKind]:
    return {w.kind for w in result.warnings}


def up_goodput_mbit(result: Result) -> float:
    up = result.direction(Flow.UP)
    assert up is not None and up.goodput_bps is not None
    return up.goodput_bps / 1e6


# "Nanopi-R4S vs Nanopi-R2S" table of seed 000, Mbits/sec, the up direction.
TABLE = {
    "r4s-wan": (942, 941, 941, 922, 957, 926),
    "r4s-br0": (940, 680, 758, 941, 957, 561),
    "r2s-wan": (941, 937, 938, 701, 577, 576),
    "r2s-br0": (681, 360, 360, 647, 460, 64),
}


@pytest.mark.parametrize(
    ("column", "test"), [(column, test) for column in TABLE for test in range(1, 7)]
)
def test_every_seed_test_reports_the_number_of_the_seeds_table(column: str, test: int) -> None:
    result = seed(f"{column}-test{test}")
    # R2S Br0 #4 sums two streams printed as 315 and 331 (646); iperf's [SUM] says 647.
    assert up_goodput_mbit(result) == pytest.approx(TABLE[column][test - 1], abs=1.01)


def test_the_r4s_wan_test4_reports_922_mbit_up_and_924_down_over_two_streams_each() -> None:
    result = seed("r4s-wan-test4")
    up, down = result.direction(Flow.UP), result.direction(Flow.DOWN)
    assert up is not None and down is not None
    # "[SUM] 12.9 GBytes" is either direction's bytes (2.0.x does not say which): each
    # total is its streams' bytes, printed to 3 digits, over the longest one's time.
    assert up.sent is not None and up.sent.bits_per_second == pytest.approx(922e6, rel=1e-3)
    assert sorted(s.id for s in up.streams) == [4, 5]
    # [8] was never announced by a connection line: it is the reverse stream [7] became.
    assert sorted(s.id for s in down.streams) == [6, 8]
    assert down.received is not None
    assert down.received.bits_per_second == pytest.approx(924e6, rel=1e-3)
    assert up.sent.seconds == pytest.approx(120.5)


def test_the_r2s_wan_test4_reverse_stream_8_after_the_sum_counts_as_down() -> None:
    down = seed("r2s-wan-test4").direction(Flow.DOWN)
    assert down is not None and down.received is not None
    assert sorted(s.id for s in down.streams) == [6, 8]
    # Bytes printed to 3 digits ("5.65 GBytes") over the longest stream's 120.0 s.
    assert down.received.bits_per_second == pytest.approx((405 + 521) * 1e6, rel=1e-3)


def test_transfers_are_binary_gigabytes_and_rates_si_megabits() -> None:
    up = seed("r4s-wan-test1").direction(Flow.UP)
    assert up is not None and up.sent is not None
    assert up.sent.bytes == round(13.2 * 2**30)
    assert up.sent.bits_per_second == 942_000_000
    assert up.sent.seconds == 120.0


def test_a_requested_window_the_kernel_doubled_is_flagged() -> None:
    result = seed("r4s-wan-test2")
    assert WarningKind.WINDOW_ADJUSTED in kinds(result)
    assert "requested 64.0 KByte" in result.warnings[0].message


def test_the_2_0_13_server_counters_are_flagged_and_not_reported_as_loss() -> None:
    result = seed("r4s-wan-test5")
    assert result.protocol is Proto.UDP
    up = result.direction(Flow.UP)
    assert up is not None and up.received is not None
    # 2127956392/2137718708 while the client sent 9764940 datagrams: nonsense.
    assert up.udp is None
    assert WarningKind.IMPLAUSIBLE_COUNTERS in kinds(result)
    assert "9764940" in next(w.message for w in result.warnings)
    # The bytes that arrived are still credible: 13.4 GBytes, 957 Mbit/s.
    assert up.received.bits_per_second == 957e6


def test_the_r2s_br0_test6_shows_saturated_loss_and_a_missing_reverse_direction() -> None:
    result = seed("r2s-br0-test6")
    assert {
        WarningKind.LOSS_SATURATED,
        WarningKind.IMPLAUSIBLE_COUNTERS,
        WarningKind.CONNECT_FAILED,
    } <= kinds(result)
    assert result.direction(Flow.DOWN) is None
    assert up_goodput_mbit(result) == 64.0


def test_the_r4s_wan_test6_reverse_udp_stream_lost_nothing_but_its_ack_failed() -> None:
    result = seed("r4s-wan-test6")
    down = result.direction(Flow.DOWN)
    assert down is not None and down.udp is not None
    assert (down.udp.lost, down.udp.packets) == (0, 6653321)
    assert down.udp.loss_percent == 0.0
    assert down.udp.jitter_ms == 0.027
    assert WarningKind.ACK_OF_LAST_DATAGRAM in kinds(result)
    assert "ack of last datagram failed" in "".join(w.message for w in result.warnings)


def test_the_r4s_br0_test5_without_server_report_has_only_the_senders_rate() -> None:
    result = seed("r4s-br0-test5")
    up = result.direction(Flow.UP)
    assert up is not None
    assert up.received is None and up.udp is None
    assert up.goodput_source is Side.CLIENT
    assert {WarningKind.NO_SERVER_REPORT, WarningKind.ACK_OF_LAST_DATAGRAM} <= kinds(result)


def test_a_dual_test_whose_server_never_connected_back_says_so() -> None:
    result = seed("r4s-br0-test4")
    assert result.direction(Flow.DOWN) is None
    assert WarningKind.CONNECT_FAILED in kinds(result)
    assert up_goodput_mbit(result) == 941


def test_the_plutosdr_run_has_five_one_second_intervals_and_a_609_mbit_total() -> None:
    up = seed("plutosdr-window-2").direction(Flow.UP)
    assert up is not None and up.sent is not None
    assert [(i.start, i.end) for i in up.intervals] == [(n, n + 1.0) for n in range(5)]
    assert up.intervals[0].bits_per_second == 603e6
    assert up.sent.bits_per_second == 609e6
