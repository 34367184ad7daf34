"""irtt's JSON and ping's text, as captured in a router lab of 100 Mbit/s whose DUT
queues 40 ms (tests/fixtures/capture_latency.sh), read into probe series."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.analysis.latency import percentile
from wirespeed.tools import irtt, ping

FIXTURES = Path(__file__).parents[2] / "fixtures" / "latency"


def read(name: str) -> str:
    return (FIXTURES / name).read_text()


def test_irtt_idle_probes_cross_the_lab_in_a_fraction_of_a_millisecond() -> None:
    idle = irtt.parse(read("irtt-idle-router-100mbit.json"))
    assert idle.tool == "irtt"
    assert idle.sent == 99 and idle.lost == 0 and idle.loss_percent == 0.0
    assert len(idle.rtt_ms) == len(idle.up_ms) == len(idle.down_ms) == 99
    assert percentile(idle.rtt_ms, 50) < 1.0
    # The round trip is the two ways plus the server's turnaround: never less than both.
    for rtt, up, down in zip(idle.rtt_ms, idle.up_ms, idle.down_ms, strict=True):
        assert rtt >= up + down - 0.001


def test_irtt_under_an_upload_shows_the_queue_on_the_way_up_only() -> None:
    loaded = irtt.parse(read("irtt-loaded-router-100mbit-queue-40ms.json"))
    assert loaded.sent == 150
    up, down = percentile(loaded.up_ms, 50), percentile(loaded.down_ms, 50)
    assert 25 < up < 41  # cubic's sawtooth keeps the 40 ms queue between 28 and 40 ms
    assert down < 1.0  # the way back carries only the upload's ACKs
    assert max(loaded.rtt_ms) < 41


def test_irtt_without_a_server_says_what_irtt_said() -> None:
    with pytest.raises(ValueError, match="connection refused"):
        irtt.parse(read("irtt-no-server.stderr"))
    with pytest.raises(ValueError, match="no reply from server"):
        irtt.parse(read("irtt-unreachable.stderr"))


def test_irtt_argv_asks_for_json_on_stdout_and_waits_for_late_answers() -> None:
    argv = irtt.client_argv("198.19.1.2", 4.5)
    assert argv == [
        "irtt", "client", "-i", "10ms", "-d", "4500ms", "-Q", "-o", "-", "--wait=3x1s",
        "198.19.1.2:2112",
    ]  # fmt: skip
    assert irtt.client_argv("fd00::2", 1)[-1] == "[fd00::2]:2112"
    assert irtt.server_argv(2112) == ["irtt", "server", "-b", ":2112"]


@pytest.mark.parametrize(
    ("name", "sent", "first_rtt"),
    [
        ("iputils-ping-idle.txt", 100, 0.138),
        ("busybox-ping-idle.txt", 100, 0.107),
    ],
)
def test_ping_idle_from_iputils_and_busybox(name: str, sent: int, first_rtt: float) -> None:
    series = ping.parse(read(name))
    assert series.tool == "ping"
    assert (series.sent, series.lost) == (sent, 0)
    assert series.rtt_ms[0] == first_rtt
    assert series.up_ms == () and series.down_ms == ()


def test_ping_under_load_counts_the_probes_in_flight_at_the_deadline_as_unknown() -> None:
    text = read("iputils-ping-loaded-queue-40ms.txt")
    # ping's own summary calls the probes still queued at its deadline lost ...
    assert "224 packets transmitted, 222 received" in text
    series = ping.parse(text)
    # ... the parser counts up to the last answer: none lost.
    assert (series.sent, series.lost) == (222, 0)
    assert 25 < percentile(series.rtt_ms, 50) < 41


def test_busybox_ping_under_load() -> None:
    series = ping.parse(read("busybox-ping-loaded-queue-40ms.txt"))
    assert series.sent == len(series.rtt_ms) == 295
    assert 25 < percentile(series.rtt_ms, 50) < 41


def test_a_gap_in_the_sequence_is_a_lost_probe() -> None:
    lines = read("iputils-ping-idle.txt").splitlines()
    kept = [line for line in lines if "icmp_seq=5 " not in line and "icmp_seq=6 " not in line]
    series = ping.parse("\n".join(kept))
    assert (series.sent, series.lost) == (100, 2)
    assert series.loss_percent == 2.0


def test_ping_that_reached_nothing_says_so() -> None:
    with pytest.raises(ValueError, match="ping printed nothing"):
        ping.parse("")


def test_ping_argv_ends_within_the_duration() -> None:
    assert ping.argv("198.19.1.2", 4.5) == ["ping", "-n", "-i", "0.01", "-w", "4", "198.19.1.2"]
    assert ping.argv("198.19.1.2", 0.4)[-2] == "1"
