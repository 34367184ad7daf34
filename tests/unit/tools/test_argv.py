"""What wirespeed asks iperf to do: argv lists with plain integers, never unit suffixes."""

from __future__ import annotations

import pytest

from wirespeed.model import Direction, Proto, TestSpec
from wirespeed.tools import iperf2, iperf3


def value_after(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_a_gigabit_udp_rate_is_passed_as_plain_bits_per_second() -> None:
    spec = TestSpec(protocol=Proto.UDP, rate=1_000_000_000)
    for argv in (
        iperf2.client_argv(spec, "192.0.2.1", 5001),
        iperf3.client_argv(spec, "192.0.2.1", 5201),
    ):
        # iperf2 reads `-b 1000M` as 1000 x 2^20 bit/s.
        assert value_after(argv, "-b") == "1000000000"
        assert not any(arg.endswith(("M", "K", "G", "m", "k", "g")) for arg in argv[3:])


def test_windows_and_lengths_are_plain_bytes() -> None:
    spec = TestSpec(protocol=Proto.UDP, window=65536, length=1000, rate=10_000_000)
    client = iperf2.client_argv(spec, "192.0.2.1", 5001)
    assert value_after(client, "-w") == "65536"
    assert value_after(client, "-l") == "1000"
    assert value_after(iperf2.server_argv(spec, 5001), "-l") == "1000"
    assert value_after(iperf3.client_argv(spec, "192.0.2.1", 5201), "-w") == "65536"


@pytest.mark.parametrize(
    ("direction", "iperf2_flag", "iperf3_flag"),
    [
        (Direction.UP, None, None),
        (Direction.DOWN, "-R", "-R"),
        (Direction.DUAL, "-d", None),
        (Direction.BIDIR, "--full-duplex", "--bidir"),
    ],
)
def test_directions_map_to_the_tools_flags(
    direction: Direction, iperf2_flag: str | None, iperf3_flag: str | None
) -> None:
    spec = TestSpec(direction=direction)
    argv2 = iperf2.client_argv(spec, "192.0.2.1", 5001)
    flags = {"-R", "-d", "--full-duplex", "--bidir"}
    assert [a for a in argv2 if a in flags] == ([iperf2_flag] if iperf2_flag else [])
    if direction is Direction.DUAL:
        with pytest.raises(ValueError, match="bidir"):
            iperf3.client_argv(spec, "192.0.2.1", 5201)
    else:
        argv3 = iperf3.client_argv(spec, "192.0.2.1", 5201)
        assert [a for a in argv3 if a in flags] == ([iperf3_flag] if iperf3_flag else [])


def test_iperf2_runs_with_enhanced_interval_reports_on_both_ends() -> None:
    spec = TestSpec(duration=30, interval=0.5, parallel=4)
    server = iperf2.server_argv(spec, 15001)
    client = iperf2.client_argv(spec, "10.0.0.2", 15001)
    assert server[:4] == ["iperf", "-s", "-p", "15001"]
    assert client[:5] == ["iperf", "-c", "10.0.0.2", "-p", "15001"]
    for argv in (server, client):
        assert "-e" in argv and value_after(argv, "-i") == "0.5"
    assert value_after(client, "-t") == "30"
    assert value_after(client, "-P") == "4"
    assert "-u" not in client and iperf2.OUTPUT_FORMAT == "text"


def test_iperf2_needs_v_for_an_ipv6_target() -> None:
    assert "-V" in iperf2.client_argv(TestSpec(), "fd00::2", 5001)
    assert "-V" not in iperf2.client_argv(TestSpec(), "10.0.0.2", 5001)


def test_the_iperf3_server_is_one_shot_json() -> None:
    server = iperf3.server_argv(TestSpec(), 15201)
    assert server[:2] == ["iperf3", "-s"]
    assert "-1" in server and "-J" in server and value_after(server, "-p") == "15201"
    assert "-J" in iperf3.client_argv(TestSpec(), "10.0.0.2", 15201)
    assert iperf3.OUTPUT_FORMAT == "json"
    assert (iperf2.DEFAULT_PORT, iperf3.DEFAULT_PORT) == (5001, 5201)


@pytest.mark.parametrize("protocol", list(Proto))
def test_iperf3_is_ready_when_its_tcp_control_port_listens_whatever_the_protocol(
    protocol: Proto,
) -> None:
    # iperf3 -s binds no UDP socket until a client asks for a UDP test.
    assert iperf3.server_listens_on(TestSpec(protocol=protocol)) is Proto.TCP


@pytest.mark.parametrize("protocol", list(Proto))
def test_iperf2_is_ready_when_the_socket_of_the_test_protocol_is_bound(protocol: Proto) -> None:
    # iperf -s -u binds a UDP port and no TCP one.
    assert iperf2.server_listens_on(TestSpec(protocol=protocol)) is protocol
