"""`wirespeed run -c HOST ...`: iperf's options become a one-test plan."""

from __future__ import annotations

import pytest

from wirespeed.errors import UsageError
from wirespeed.model import Direction, Proto, Tool, Topology
from wirespeed.plan import PlanError, parse_plan
from wirespeed.plan.adhoc import (
    AdhocTest,
    HostTarget,
    LabTarget,
    adhoc_plan,
    parse_target,
    plan_text,
    tool_rate,
    tool_size,
)


def test_lab_alone_is_the_bridge_at_gigabit_and_parts_can_be_given_or_left_empty() -> None:
    assert parse_target("lab") == LabTarget(Topology.BRIDGE, "gbe")
    assert parse_target("lab:router") == LabTarget(Topology.ROUTER, "gbe")
    assert parse_target("lab:router:fe") == LabTarget(Topology.ROUTER, "fe")
    assert parse_target("lab::300mbit") == LabTarget(Topology.BRIDGE, "300mbit")


@pytest.mark.parametrize(
    ("host", "message"),
    [
        ("lab:switch", "no topology 'switch' in the lab"),
        ("lab:router:gigabit", "unknown link 'gigabit'"),
        ("lab:a:b:c", "write lab, lab:TOPOLOGY or lab:TOPOLOGY:LINK"),
        ("root@r4s;reboot", "is not an SSH target"),
        ("-oProxyCommand=x", "is not an SSH target"),
    ],
)
def test_a_host_that_is_neither_is_refused_naming_the_option(host: str, message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        parse_target(host)
    assert caught.value.message.startswith(f"-c {host}: ")


def test_a_device_is_reached_over_ssh_and_loopback_stays_on_this_machine() -> None:
    assert parse_target("root@r4s.lan:2222") == HostTarget("r4s.lan", ssh="root@r4s.lan:2222")
    assert parse_target("192.168.0.62") == HostTarget("192.168.0.62", ssh="192.168.0.62")
    assert parse_target("fe80::1%eth0") == HostTarget("fe80-1-eth0", ssh="[fe80::1%eth0]")
    assert parse_target("127.0.0.1") == HostTarget("loopback", address="127.0.0.1")
    assert parse_target("::1") == HostTarget("loopback", address="::1")
    assert parse_target("localhost") == HostTarget("loopback", address="localhost")


# As iperf 2.1.8 and iperf3 3.12 read them, checked against the tools on loopback: iperf2
# -e prints the datagram size and the gap it keeps (-b 1M: 1024 B every 7812.5 us, so
# 2^20 bit/s; -b 1m: 8192 us, 10^6), iperf3 -J its target_bitrate and blksize (-b 1M and
# 1m: 1000000; -l 1k and 1K: 1024).
@pytest.mark.parametrize(
    ("text", "tool", "bits"),
    [
        ("100M", Tool.IPERF2, 100 * 2**20),
        ("100m", Tool.IPERF2, 100 * 10**6),
        ("1000k", Tool.IPERF2, 10**9 // 1000),
        ("1G", Tool.IPERF2, 2**30),
        ("100M", Tool.IPERF3, 100 * 10**6),
        ("100m", Tool.IPERF3, 100 * 10**6),
        ("2.5G", Tool.IPERF3, 2_500_000_000),
        ("94100000", Tool.IPERF2, 94_100_000),
    ],
)
def test_b_is_read_as_the_tool_reads_it(text: str, tool: Tool, bits: int) -> None:
    assert tool_rate(text, tool) == bits


@pytest.mark.parametrize(
    ("text", "tool", "size"),
    [
        ("1K", Tool.IPERF2, 1024),
        ("1k", Tool.IPERF2, 1000),
        ("1K", Tool.IPERF3, 1024),
        ("1k", Tool.IPERF3, 1024),
        ("64K", Tool.IPERF3, 65536),
        ("1470", Tool.IPERF2, 1470),
    ],
)
def test_l_and_w_are_read_as_the_tool_reads_them(text: str, tool: Tool, size: int) -> None:
    assert tool_size(text, "-l", tool) == size


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("0", "a rate must be above 0"),
        ("100pps", "packets per second are not supported"),
        ("100M/10", "iperf3's /burst is not supported"),
        ("fast", "not a rate"),
    ],
)
def test_a_rate_the_plan_cannot_say_is_refused(text: str, message: str) -> None:
    with pytest.raises(UsageError, match=message):
        tool_rate(text, Tool.IPERF3)


def test_iperf_defaults_iperf3_tcp_one_stream_ten_seconds_through_the_lab_bridge() -> None:
    plan = adhoc_plan(AdhocTest("lab"))
    (test,) = plan.tests
    assert plan.source == "<command line>"
    assert plan.title == "iperf3 -c lab"
    assert plan.lab is not None and plan.lab.link.rate_bps == 10**9
    assert [(p.name, p.topology) for p in plan.paths] == [("bridge", Topology.BRIDGE)]
    assert test.tool is Tool.IPERF3
    assert (test.spec.protocol, test.spec.direction, test.spec.parallel) == (
        Proto.TCP,
        Direction.UP,
        1,
    )
    assert test.spec.duration == 10
    assert plan.repetitions == 1


def test_every_option_reaches_the_test_and_iperf2s_100M_is_binary() -> None:
    adhoc = AdhocTest(
        "lab:router:fe",
        tool=Tool.IPERF2,
        udp=True,
        rate="100M",
        length="1k",
        parallel=2,
        window="64K",
        time=2.5,
        reverse=True,
        repeat=3,
    )
    plan = adhoc_plan(adhoc)
    spec = plan.tests[0].spec
    assert plan.tests[0].tool is Tool.IPERF2
    assert (spec.protocol, spec.rate, spec.length, spec.window) == (
        Proto.UDP,
        104_857_600,
        1000,
        65536,
    )
    assert (spec.parallel, spec.duration, spec.direction) == (2, 2.5, Direction.DOWN)
    assert plan.repetitions == 3
    assert plan.title == "iperf -c lab:router:fe -u -b 100M -l 1k -w 64K -P 2 -t 2.5 -R"
    # The text is the plan: read again as a file would be, it is the same plan.
    again = parse_plan(plan.text, "saved.yaml")
    assert (again.tests, again.paths, again.repetitions) == (
        plan.tests,
        plan.paths,
        plan.repetitions,
    )
    assert plan.text.startswith(
        "# wirespeed run -c lab:router:fe -u -b 100M -l 1k -w 64K -P 2 -t 2.5 -R "
        "--tool iperf2 --repeat 3\n"
    )


def test_bidir_is_both_ways_over_the_clients_connections() -> None:
    assert adhoc_plan(AdhocTest("lab", bidir=True)).tests[0].spec.direction is Direction.BIDIR


def test_a_device_over_ssh_is_the_server_of_an_endpoint_path_from_this_machine() -> None:
    plan = adhoc_plan(AdhocTest("root@192.168.2.1"))
    (path,) = plan.paths
    assert (path.topology, path.client, path.server, path.dut) == (
        Topology.ENDPOINT,
        "here",
        "server",
        "server",
    )
    assert plan.lab is None
    assert plan.hosts["here"].is_local
    server = plan.hosts["server"]
    assert server.ssh is not None and (server.ssh.user, server.ssh.host) == (
        "root",
        "192.168.2.1",
    )
    assert server.traffic_address == "192.168.2.1"


def test_loopback_runs_both_ends_here_without_a_same_host_warning() -> None:
    plan = adhoc_plan(AdhocTest("127.0.0.1"))
    assert all(host.is_local for host in plan.hosts.values())
    assert plan.hosts["server"].traffic_address == "127.0.0.1"
    assert plan.warnings == ()


def test_a_problem_the_plan_check_finds_names_the_option_not_a_line() -> None:
    with pytest.raises(PlanError) as caught:
        adhoc_plan(AdhocTest("lab", parallel=300, time=0.0))
    assert [str(p) for p in caught.value.problems] == [
        "<command line>: -P 300: parallel: must be at most 128, got 300",
        "<command line>: -t 0: duration: must be more than 0, got 0.0",
    ]


def test_the_plans_warnings_are_kept_without_the_yamls_lines() -> None:
    (warning,) = adhoc_plan(AdhocTest("lab", udp=True)).warnings
    assert warning.where == "<command line>"
    assert "UDP without rate: iperf sends 1 Mbit/s" in warning.message


def test_the_text_never_lets_a_value_be_read_as_yaml() -> None:
    # Values are checked before they reach the text; what passes is quoted anyway.
    text = plan_text(AdhocTest("lab::300mbit")).text
    assert 'lab: {link: "300mbit"}' in text
