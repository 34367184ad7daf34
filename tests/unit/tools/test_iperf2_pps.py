"""iperf2 as the search's packet generator: argv and what its outputs count, read from
outputs captured through a lab DUT that forwards at most 15,000 packets/s
(tests/fixtures/iperf2-pps: `iperf -s -u -e` and `iperf -c ... -u -e -l L -b Npps`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.tools import iperf2_pps

FIXTURES = Path(__file__).parents[2] / "fixtures" / "iperf2-pps"


def outputs(name: str) -> tuple[str, str]:
    return (
        (FIXTURES / f"{name}.sender.txt").read_text(),
        (FIXTURES / f"{name}.receiver.txt").read_text(),
    )


def test_argv_asks_for_a_packet_rate_and_an_exact_datagram() -> None:
    assert iperf2_pps.sender_argv("198.19.1.2", 5800, 18, 15000, 10.0) == [
        "iperf", "-c", "198.19.1.2", "-u", "-e", "-p", "5800", "-l", "18",
        "-b", "15000pps", "-t", "10",
    ]  # fmt: skip
    # The receiver reads whole datagrams: never fewer bytes than the sender writes.
    assert iperf2_pps.receiver_argv(5800, 18)[-2:] == ["-l", "1470"]
    assert iperf2_pps.receiver_argv(5800, 8972)[-2:] == ["-l", "8972"]
    assert iperf2_pps.sender_argv("fd00::2", 5800, 18, 1, 1.5)[-3:] == ["-t", "1.5", "-V"]


@pytest.mark.parametrize(
    ("name", "writes", "lost", "received"),
    [
        # Offered 16,000/s to a 15,000/s device: 5.8 % lost.
        ("loss-16000pps-64B", 32003, 1856, 30147),
        ("noloss-14000pps-1518B", 28002, 0, 28002),
        # Asked for 1 Mpps, the generator managed ~190 kpps: generator-limited.
        ("limited-1Mpps-64B", 379465, 349316, 30149),
    ],
)
def test_sent_and_received_are_counted_from_both_ends(
    name: str, writes: int, lost: int, received: int
) -> None:
    sender_text, receiver_text = outputs(name)
    sender = iperf2_pps.parse_sender(sender_text)
    receiver = iperf2_pps.parse_receiver(receiver_text)
    assert sender.writes == writes
    assert receiver is not None and receiver.lost == lost
    # The final datagram is numbered too: Total is one above the data datagrams.
    assert receiver.total >= writes + 1
    assert sender.relayed == receiver  # the same report, relayed to the sender
    assert iperf2_pps.received(sender, receiver) == received
    assert iperf2_pps.received(sender, None) == received  # the relayed one stands in


def test_nothing_arriving_is_zero_received_not_an_error() -> None:
    sender_text, receiver_text = outputs("nothing-arrives")
    sender = iperf2_pps.parse_sender(sender_text)
    assert sender.writes == 1002 and sender.relayed is None
    assert iperf2_pps.no_ack(sender_text)
    assert iperf2_pps.parse_receiver(receiver_text) is None
    assert not iperf2_pps.receiver_connected(receiver_text)
    assert iperf2_pps.received(sender, None) == 0


def test_a_sender_that_printed_no_summary_is_an_error_in_its_words() -> None:
    # iperf2 exits 0 after this (captured from a namespace without a route).
    text = (FIXTURES / "unreachable.sender.txt").read_text()
    with pytest.raises(ValueError, match="udp connect failed: Network is unreachable"):
        iperf2_pps.parse_sender(text)
    with pytest.raises(ValueError, match="printed nothing"):
        iperf2_pps.parse_sender("")
