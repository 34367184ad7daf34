"""The ceilings against every figure of LIMITS.md."""

from __future__ import annotations

from dataclasses import replace

import pytest

from wirespeed.analysis.ceiling import ceiling, ceiling_for, frames_per_second, link_rate_text
from wirespeed.analysis.tunnel_ceiling import tunnel_ceiling
from wirespeed.model import (
    LinkModel,
    ModelError,
    PathSpec,
    Proto,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
    TunnelKind,
    TunnelSpec,
)

M = 10**6
RATES = {"100M": 100 * M, "1G": 1000 * M, "2.5G": 2500 * M, "10G": 10_000 * M}

# LIMITS.md, "Mbit/s, IPv4": (protocol, MTU, UDP length) -> figure per link rate.
LIMITS_TABLE = [
    (Proto.TCP, 1500, None, {"100M": 94.1, "1G": 941.5, "2.5G": 2353.7, "10G": 9414.8}),
    (Proto.UDP, 1500, 1470, {"100M": 95.7, "1G": 957.0, "2.5G": 2392.6, "10G": 9570.3}),
    (Proto.TCP, 9000, None, {"100M": 99.0, "1G": 990.0, "2.5G": 2475.1, "10G": 9900.4}),
    (Proto.TCP, 512, None, {"100M": 83.6, "1G": 836.4, "2.5G": 2090.9, "10G": 8363.6}),
    (Proto.UDP, 512, 512 - 28, {"100M": 88.0, "1G": 880.0, "2.5G": 2200.0, "10G": 8800.0}),
]


@pytest.mark.parametrize(
    ("protocol", "mtu", "length", "rate", "mbit"),
    [
        (protocol, mtu, length, rate, figures[rate])
        for protocol, mtu, length, figures in LIMITS_TABLE
        for rate in RATES
    ],
)
def test_goodput_ceiling_matches_limits_table(
    protocol: Proto, mtu: int, length: int | None, rate: str, mbit: float
) -> None:
    result = ceiling(RATES[rate], protocol, mtu=mtu, length=length)
    assert round(result.bits_per_second / M, 1) == mbit


def test_gigabit_tcp_formula_reads_like_limits_md() -> None:
    result = ceiling(1000 * M, Proto.TCP)
    assert result.formula == "1 Gbit/s \N{MULTIPLICATION SIGN} (1500\N{MINUS SIGN}52)/(1500+38)"
    assert result.fragments == 1


def test_tcp_without_timestamps_carries_12_more_bytes_per_segment() -> None:
    result = ceiling(1000 * M, Proto.TCP, timestamps=False)
    assert result.bits_per_second == pytest.approx(1e9 * 1460 / 1538)


def test_udp_default_length_is_iperf2s_1470() -> None:
    assert ceiling(1000 * M, Proto.UDP).payload_bytes == 1470
    assert ceiling(1000 * M, Proto.UDP).formula == "1 Gbit/s \N{MULTIPLICATION SIGN} 1470/(1470+66)"


@pytest.mark.parametrize(
    ("rate", "frame", "per_second"),
    [
        ("100M", 64, 148_810),
        ("1G", 64, 1_488_095),
        ("2.5G", 64, 3_720_238),
        ("10G", 64, 14_880_952),
        ("100M", 1518, 8_127),
        ("1G", 1518, 81_274),
        ("2.5G", 1518, 203_186),
        ("10G", 1518, 812_744),
    ],
)
def test_frames_per_second_matches_limits_table(rate: str, frame: int, per_second: int) -> None:
    assert round(frames_per_second(RATES[rate], frame)) == per_second


@pytest.mark.parametrize(
    ("length", "per_second"), [(55, 1_033_058), (200, 469_925), (500, 220_848), (1470, 81_380)]
)
def test_udp_datagrams_per_second_at_gigabit(length: int, per_second: int) -> None:
    assert round(ceiling(1000 * M, Proto.UDP, length=length).packets_per_second) == per_second


def test_tiny_datagrams_are_padded_to_a_minimum_frame() -> None:
    # 10 bytes of payload make a 56-byte frame, padded to 64: 84 bytes of wire time.
    result = ceiling(1000 * M, Proto.UDP, length=10)
    assert result.wire_bytes == 84
    assert "padded" in result.formula


def test_1500_byte_datagrams_at_mtu_1500_are_fragmented() -> None:
    # LIMITS.md: `-l 1500` at MTU 1500 fragments every datagram. 1508 bytes of UDP
    # travel as 1480 + 28 bytes of IP payload, each fragment with its own header and frame.
    result = ceiling(1000 * M, Proto.UDP, mtu=1500, length=1500)
    assert result.fragments == 2
    assert result.wire_bytes == (1480 + 20 + 38) + max(28 + 20 + 18, 64) + 20
    assert result.bits_per_second == pytest.approx(1e9 * 1500 / 1624)
    assert "2 IP fragments" in result.formula


def test_iperf2_default_datagrams_at_mtu_512_cost_four_fragments() -> None:
    # 1478 bytes of UDP in fragments of 488, 488, 488 and 14 bytes. The seeds' R4S run at
    # MTU 512 reported 854 Mbit/s from the sender alone: exactly this wire limit.
    result = ceiling(1000 * M, Proto.UDP, mtu=512, length=1470)
    assert result.fragments == 4
    assert round(result.bits_per_second / M, 1) == 853.7


def test_bad_inputs_fail_at_the_door() -> None:
    with pytest.raises(ModelError):
        ceiling(0, Proto.TCP)
    with pytest.raises(ModelError):
        ceiling(1000 * M, Proto.TCP, mtu=40)
    with pytest.raises(ModelError):
        ceiling(1000 * M, Proto.UDP, length=0)
    with pytest.raises(ModelError):
        frames_per_second(1000 * M, 0)


def _trial(tool: Tool, spec: TestSpec, link: LinkModel | None) -> Trial:
    test = TestCase(id="#5", name="UDP", tool=tool, spec=spec)
    path = PathSpec(name="WAN", topology=Topology.ENDPOINT, client="a", server="b", link=link)
    return Trial(test=test, path=path)


def test_ceiling_for_a_trial_on_a_gigabit_link() -> None:
    trial = _trial(Tool.IPERF2, TestSpec(protocol=Proto.UDP), LinkModel("gbe", 1000 * M))
    found = ceiling_for(trial)
    assert found is not None
    assert round(found.bits_per_second / M, 1) == 957.0


def test_ceiling_for_iperf3_udp_uses_the_control_connections_mss() -> None:
    trial = _trial(Tool.IPERF3, TestSpec(protocol=Proto.UDP), LinkModel("gbe", 1000 * M))
    found = ceiling_for(trial)
    assert found is not None
    assert found.payload_bytes == 1448


def test_ceiling_for_prefers_the_tests_mtu_over_the_links() -> None:
    trial = _trial(Tool.IPERF2, TestSpec(mtu=512), LinkModel("gbe", 1000 * M, mtu=1500))
    found = ceiling_for(trial)
    assert found is not None
    assert round(found.bits_per_second / M, 1) == 836.4


def test_no_ceiling_without_a_known_link_rate() -> None:
    assert ceiling_for(_trial(Tool.IPERF2, TestSpec(), None)) is None
    assert ceiling_for(_trial(Tool.IPERF2, TestSpec(), LinkModel("unshaped", None))) is None


def test_the_limits_of_the_inputs_are_inclusive_and_said() -> None:
    with pytest.raises(ModelError, match=r"^link rate must be positive, got 0$"):
        ceiling(0, Proto.TCP)
    assert ceiling(1, Proto.TCP).bits_per_second == pytest.approx(1448 / 1538)
    for mtu in (67, 65536):
        with pytest.raises(ModelError, match=rf"^mtu must be 68\.\.65535, got {mtu}$"):
            ceiling(1000 * M, Proto.TCP, mtu=mtu)
    assert ceiling(1000 * M, Proto.UDP, mtu=68, length=40).mtu == 68
    assert ceiling(1000 * M, Proto.TCP, mtu=65535).mtu == 65535
    with pytest.raises(ModelError, match=r"^a UDP datagram length must be positive, got 0$"):
        ceiling(1000 * M, Proto.UDP, length=0)
    one = ceiling(1000 * M, Proto.UDP, length=1)
    assert (one.protocol, one.payload_bytes, one.wire_bytes) == (Proto.UDP, 1, 84)


@pytest.mark.parametrize(
    ("rate", "text"),
    [
        (10**10, "10 Gbit/s"),
        (2_500_000_000, "2.5 Gbit/s"),
        (10**9, "1 Gbit/s"),
        (999_999_999, "1000 Mbit/s"),
        (100 * M, "100 Mbit/s"),
        (M, "1 Mbit/s"),
        (999_999, "999.999 kbit/s"),
        (300_000, "300 kbit/s"),
        (1000, "1 kbit/s"),
        (999, "999 bit/s"),
    ],
)
def test_link_rates_are_said_as_people_say_them(rate: int, text: str) -> None:
    assert link_rate_text(rate) == text


def test_ceiling_for_a_tunnel_is_the_tunnels_with_the_trials_own_figures() -> None:
    tunnel = TunnelSpec(TunnelKind.OPENVPN)
    for spec in (TestSpec(mtu=1400), TestSpec(protocol=Proto.UDP, length=1200)):
        trial = _trial(Tool.IPERF2, spec, LinkModel("gbe", 1000 * M))
        tunnelled = Trial(test=trial.test, path=replace(trial.path, tunnel=tunnel))
        expected = tunnel_ceiling(
            1000 * M,
            spec.protocol,
            tunnel,
            link_mtu=spec.mtu or 1500,
            length=spec.length,
            tool=Tool.IPERF2,
        )
        assert ceiling_for(tunnelled) == expected
        assert expected != ceiling_for(trial)
    for tool in (Tool.IPERF2, Tool.IPERF3):  # UDP's length: the tool's own default
        udp = _trial(tool, TestSpec(protocol=Proto.UDP), LinkModel("gbe", 1000 * M))
        tunnelled = Trial(test=udp.test, path=replace(udp.path, tunnel=tunnel))
        assert ceiling_for(tunnelled) == tunnel_ceiling(1000 * M, Proto.UDP, tunnel, tool=tool)
    iperf2 = tunnel_ceiling(1000 * M, Proto.UDP, tunnel, tool=Tool.IPERF2)
    assert iperf2 != tunnel_ceiling(1000 * M, Proto.UDP, tunnel, tool=Tool.IPERF3)
