"""tcpreplay as the search's packet generator: the frame it replays (checked byte for byte
against trafgen's pcap of the same frame), its argv, and its captured outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.tools import tcpreplay

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tcpreplay"
PCAP_HEADER = 24 + 16  # file header, one record header


def _text(name: str) -> str:
    return (FIXTURES / name).read_text(encoding="utf-8")


@pytest.mark.parametrize("frame", [64, 1518])
def test_the_frame_is_trafgens_byte_for_byte(frame: int) -> None:
    built = tcpreplay.udp_frame(
        destination_mac="02:00:00:00:00:02",
        source_mac="02:00:00:00:00:01",
        source="10.77.0.1",
        destination="10.77.0.2",
        port=5800,
        frame_bytes=frame,
    )
    captured = (FIXTURES / f"trafgen-{frame}.pcap").read_bytes()[PCAP_HEADER:]
    assert built == captured
    assert len(built) + tcpreplay.FCS == frame


def test_the_pcap_file_holds_the_one_frame_as_trafgen_wrote_it() -> None:
    frame = (FIXTURES / "trafgen-64.pcap").read_bytes()[PCAP_HEADER:]
    written = tcpreplay.pcap_of(frame)
    assert written[PCAP_HEADER:] == frame
    assert written[:4] == bytes.fromhex("d4c3b2a1")  # little-endian microsecond pcap


def test_the_file_is_written_by_printf_octal_escapes() -> None:
    argv = tcpreplay.write_script(b"\x00\xff\n'", "/tmp/f.pcap")
    assert argv[:2] == ["sh", "-c"]
    assert "\\000\\377\\012\\047" in argv[2]
    assert argv[-1] == "/tmp/f.pcap"


def test_what_it_sent_and_for_how_long() -> None:
    report = tcpreplay.parse_sender(_text("sent-20000pps.txt"))
    assert (report.sent, report.failed) == (20_000, 0)
    printed = float(_text("sent-20000pps.txt").split("sent in ")[1].split()[0])
    assert report.seconds == pytest.approx(printed, abs=0.01)


def test_from_a_second_on_its_time_is_its_count_over_its_rate() -> None:
    # "sent in 2.00 seconds" has hundredths only; "Rated: ... 19999.97 pps" more.
    text = _text("sent-2s.txt")
    report = tcpreplay.parse_sender(text)
    assert report.sent == 40_000
    printed = float(text.split("sent in ")[1].split()[0])
    rated = float(text.split(" pps")[0].rsplit(" ", 1)[1])
    assert report.seconds == pytest.approx(40_000 / rated, rel=1e-9)
    assert report.seconds == pytest.approx(printed, abs=0.01)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("no-device.txt", "Invalid interface name/alias: nosuchdev"),
        ("no-file.txt", "Unable to retrieve information from file"),
    ],
)
def test_a_failure_says_tcpreplays_reason(name: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        tcpreplay.parse_sender(_text(name))


def test_the_argv_replays_a_count_at_a_rate() -> None:
    assert tcpreplay.sender_argv("eth0", "/tmp/f.pcap", 150_000, 75_000) == [
        "tcpreplay",
        "-i",
        "eth0",
        "-K",
        "--pps=150000",
        "--loop=75000",
        "/tmp/f.pcap",
    ]


def test_routes_neighbours_and_links_as_ip_prints_them() -> None:
    direct = tcpreplay.parse_route(_text("route-direct.txt"))
    assert direct == tcpreplay.Route("fxa", None, "10.77.0.1")
    assert direct.next_hop("10.77.0.2") == "10.77.0.2"
    via = tcpreplay.parse_route(_text("route-via.txt"))
    assert via.next_hop("10.88.0.9") == "10.77.0.2"
    assert tcpreplay.parse_neighbour(_text("neigh.txt")) == "02:00:00:00:00:02"
    assert tcpreplay.parse_neighbour(_text("neigh-none.txt")) is None
    assert tcpreplay.parse_neighbour("10.0.0.9 dev eth0 FAILED") is None
    assert tcpreplay.parse_link_mac(_text("link.txt")) == "02:00:00:00:00:01"
    with pytest.raises(ValueError, match="no route"):
        tcpreplay.parse_route("RTNETLINK answers: Network is unreachable")
