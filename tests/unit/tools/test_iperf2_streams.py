"""Many parallel iperf2 streams over a 100 Mbit/s link (tests/fixtures/capture_streams.sh):
a flow's total is its streams' bytes over the span of them all, as iperf's own [SUM]
says, never their rates added up (each timed from its own start)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from wirespeed.analysis.ceiling import ceiling
from wirespeed.model import Flow, Proto, Result, Side
from wirespeed.tools import iperf2

CAPTURES = Path(__file__).parents[2] / "fixtures" / "iperf2"
# TCP goodput at 100 Mbit/s, MTU 1500: 94.1 Mbit/s; a second's test starts with a queue
# and a bucket full, so its totals may pass it by a little.
CEILING = ceiling(100_000_000, Proto.TCP).bits_per_second
SLACK = 1.01
_FINAL_SUM = re.compile(
    r"^\[SUM(?:-\d+)?\]\s+0\.0+-(?P<end>[\d.]+) sec\s+\S+ \S+\s+(?P<rate>[\d.]+) "
)


def parsed(name: str) -> Result:
    side = Side.SERVER if name.endswith(".server") else Side.CLIENT
    return iperf2.parse((CAPTURES / f"{name}.txt").read_text(), side)


def iperfs_own_sum(name: str) -> tuple[float, float]:
    """(span in seconds, bit/s) of the last [SUM] from 0 s the capture prints."""
    found = [
        match
        for line in (CAPTURES / f"{name}.txt").read_text().splitlines()
        if (match := _FINAL_SUM.match(line))
    ]
    last = max(found, key=lambda match: float(match["end"]))
    return float(last["end"]), float(last["rate"])


def up_goodput(name: str) -> float:
    up = parsed(name).direction(Flow.UP)
    assert up is not None and up.goodput_bps is not None
    return up.goodput_bps


@pytest.mark.parametrize(
    "name", ["streams-tcp-p32.server", "sumonly-tcp-p4.server", "sumonly-tcp-p4.client"]
)
def test_the_total_of_many_streams_is_iperfs_own_sum(name: str) -> None:
    _, rate = iperfs_own_sum(name)
    assert up_goodput(name) == pytest.approx(rate, rel=1e-6)


def test_in_adaptive_units_the_total_is_iperfs_own_sum_as_printed() -> None:
    # "[SUM] 0.0000-2.2363 sec  25.1 MBytes  94.3 Mbits/sec"
    assert up_goodput("streams-plain-tcp-p8.server") == 94.3e6


@pytest.mark.parametrize(
    "name",
    [
        f"streams-{test}.{side}"
        for test in ("tcp-p32", "tcp-p128", "plain-tcp-p8", "tcp-dual-p4")
        for side in ("client", "server")
    ],
)
def test_no_total_of_many_streams_passes_the_links_ceiling(name: str) -> None:
    # Their rates added: 97.3 to 124.6 Mbit/s on this 100 Mbit/s link.
    assert 0 < up_goodput(name) <= CEILING * SLACK


def test_a_senders_sum_that_ends_before_its_streams_is_stretched_to_them() -> None:
    # The client's "[SUM] 0.0000-1.5120 sec 24990192 Bytes 132226474 bits/sec": its clock
    # stopped when the writes ended, while its streams ran to 3.0796 s draining the data.
    up = parsed("streams-tcp-p128.client").direction(Flow.UP)
    assert up is not None and up.sent is not None
    assert len(up.streams) == 128
    assert up.sent.bytes == 24990192
    assert up.sent.seconds == pytest.approx(3.0796)
    assert up.sent.bits_per_second == pytest.approx(24990192 * 8 / 3.0796)


def test_the_sender_and_receiver_totals_of_32_streams_agree() -> None:
    client, server = parsed("streams-tcp-p32.client"), parsed("streams-tcp-p32.server")
    sent, received = client.direction(Flow.UP), server.direction(Flow.UP)
    assert sent is not None and sent.sent is not None
    assert received is not None and received.received is not None
    assert sent.sent.bytes == received.received.bytes == 30153704
    assert sent.sent.bits_per_second == pytest.approx(received.received.bits_per_second, rel=0.01)


def test_a_dual_tests_sum_of_both_flows_is_neither_flows_total() -> None:
    # 2.1.8 -d -P 4: "[SUM] 0.0000-2.1976 sec 1029046512 Bytes" is up and down together.
    result = parsed("streams-tcp-dual-p4.server")
    up, down = result.direction(Flow.UP), result.direction(Flow.DOWN)
    assert up is not None and up.received is not None and len(up.streams) == 4
    assert down is not None and down.sent is not None and len(down.streams) == 4
    assert up.received.bytes + down.sent.bytes == 1029046512
    longest = max(s.received.seconds for s in up.streams if s.received)
    assert up.received.bits_per_second == pytest.approx(up.received.bytes * 8 / longest)


def test_sum_only_output_has_its_flow_without_streams() -> None:
    for name, role in (("sumonly-tcp-p4.client", "sent"), ("sumonly-tcp-p4.server", "received")):
        result = parsed(name)
        assert [d.flow for d in result.directions] == [Flow.UP]
        up = result.directions[0]
        assert up.streams == ()
        measured = up.sent if role == "sent" else up.received
        assert measured is not None and measured.bytes == 25952496
