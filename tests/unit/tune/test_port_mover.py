"""The port mover (tune/ports.py) against a PC that answers with what ip, tc and
/proc/sys/net printed while a port was moved into a namespace and back
(tests/fixtures/ports/moved/capture.sh, replayed by tests/support/port_replay.py): which
commands it runs, in which order, what it writes back, what it refuses and says."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.port_replay import MOVED, PORT, PortHost, captured, refusal
from wirespeed.errors import HostError, UsageError
from wirespeed.hosts.base import Completed
from wirespeed.tune import port_restore, ports
from wirespeed.tune.apply import RestoreError
from wirespeed.tune.journal import Journal, State
from wirespeed.tune.port_state import SYSCTL_SCRIPT
from wirespeed.tune.ports import (
    PortSetup,
    check_port,
    move_port,
    port_is_back,
    ports_moved,
    read_port,
    restore_port,
    ssh_session_port,
)

OLD = MOVED.parent  # tests/fixtures/ports/capture.sh: a qdisc, a nexthop object, a default route
NS = "pt-cap0-port"
READS = [
    ("ip", "-j", "link", "show", "dev", PORT),
    ("ip", "-j", "addr", "show", "dev", PORT),
    ("ip", "-j", "route", "show", "table", "all"),
    ("sh", "-c", SYSCTL_SCRIPT, "sh", PORT),
]
ADDRESS_ADDS = [
    tuple(f"ip addr add {address} dev {PORT}".split())
    for address in (
        "192.168.71.50/24",
        "10.9.0.5/16 broadcast 10.9.255.255 label pt-cap0:lan",
        "2001:db8:7::5/64 nodad",
    )
]
ROUTE_ADDS = {
    tuple(route.split())
    for route in (
        f"ip route add 198.51.100.0/24 via 192.168.71.1 dev {PORT} metric 7",
        f"ip route replace 172.31.0.0/16 nexthop via 10.9.0.1 dev {PORT} weight 1 "
        "nexthop via 10.10.0.1 dev pt-cap2 weight 1",
        "ip -6 route replace 2001:db8:99::/48 metric 1024 pref medium "
        f"nexthop via 2001:db8:7::1 dev {PORT} weight 1 "
        "nexthop via 2001:db8:8::1 dev pt-cap2 weight 1",
    )
}
# The sysctls the user had set (before/) that the port lost on its move (after/).
SYSCTL_WRITES = [
    ("/proc/sys/net/ipv4/conf/pt-cap0/arp_ignore", "1\n"),
    ("/proc/sys/net/ipv4/conf/pt-cap0/rp_filter", "2\n"),
    ("/proc/sys/net/ipv6/conf/pt-cap0/accept_ra", "0\n"),
    ("/proc/sys/net/ipv6/conf/pt-cap0/mtu", "1400\n"),
]
SETUP = PortSetup(host="lan", interface=PORT, address="192.168.200.2/24", mtu=1500)


@pytest.fixture(autouse=True)
def no_real_namespaces(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[int, int]]]:
    """The mover's namespaces and kills are the replaying host's: nothing real is looked
    at or signalled."""
    killed: list[tuple[int, int]] = []
    for module in (ports, port_restore):
        monkeypatch.setattr(
            module, "namespace_exists", lambda name: any(name in h.namespaces for h in _hosts)
        )
    monkeypatch.setattr(os, "kill", lambda pid, sig: killed.append((pid, sig)))
    yield killed
    _hosts.clear()


_hosts: list[PortHost] = []


def host(where: str = "before") -> PortHost:
    made = PortHost(where)
    _hosts.append(made)
    return made


def in_namespace(
    pc: PortHost, pids: str = "inside/no-pids.txt", port: str = PORT, back_as: str = "after"
) -> None:
    """The port moved into its namespace by a run; `ip netns pids` as captured."""
    ns = f"{port}-port"
    pc.moved_away(port)
    pc.namespaces.add(ns)
    pc.answer(["ip", "-n", ns, "link", "show", "dev", port], captured("before/link.txt"))
    pc.answer(["ip", "netns", "pids", ns], captured(pids))
    back = ["ip", "-n", ns, "link", "set", "dev", port, "netns", str(os.getpid())]
    pc.when(back, lambda: pc.show(back_as, port))


@pytest.fixture
def journal(tmp_path: Path) -> Iterator[Journal]:
    with Journal.open(tmp_path / "store.db") as opened:
        yield opened


def test_a_port_is_read_from_ip_and_the_sysctls_with_a_timeout_of_15_s() -> None:
    pc = host()
    state = read_port(pc, PORT)
    assert pc.ran == READS and pc.timeouts == [15.0] * 4
    assert state.interface == PORT and state.mtu == 1400 and state.up
    assert [a.cidr for a in state.own_addresses] == [
        "192.168.71.50/24",
        "10.9.0.5/16",
        "2001:db8:7::5/64",
    ]
    assert {r.get("dst") for r in state.routes} == {
        "198.51.100.0/24",
        "172.31.0.0/16",
        "2001:db8:99::/48",
    }
    assert ("ipv4/conf/rp_filter", "2") in state.sysctls


def test_a_port_that_is_not_there_is_an_error_that_says_what_ip_said() -> None:
    pc = host()
    pc.moved_away()
    with pytest.raises(HostError) as error:
        read_port(pc, PORT)
    assert error.value.message == (
        f'ip -j link show dev {PORT} failed on pc: Device "{PORT}" does not exist.'
    )


def test_sysctls_that_cannot_be_read_are_an_error_naming_the_port() -> None:
    pc = host()
    argv = ["sh", "-c", SYSCTL_SCRIPT, "sh", PORT]
    pc.answers[tuple(argv)] = refusal("moved-away", argv)
    with pytest.raises(HostError) as error:
        read_port(pc, PORT)
    assert error.value.message == (
        f'cannot read the sysctls of {PORT} on pc: Device "{PORT}" does not exist.\n'
    )


def test_what_ip_printed_that_is_not_a_port_state_is_an_error_naming_the_port() -> None:
    pc = host()
    pc.answer(["ip", "-j", "link", "show", "dev", PORT], captured("all-addr.json"))
    with pytest.raises(HostError) as error:
        read_port(pc, PORT)
    assert (
        error.value.message
        == f"cannot read the state of {PORT} on pc: ip -j link shows no single {PORT}"
    )


def test_restore_brings_the_port_back_from_its_namespace_with_everything_it_had() -> None:
    pc = host()
    state = read_port(pc, PORT)
    in_namespace(pc)
    pc.ran.clear()
    pc.when(["ip", "netns", "del", NS], lambda: pc.show("before"))
    restore_port(pc, state)
    here = str(os.getpid())
    assert pc.ran[:4] == [
        ("ip", "netns", "pids", NS),
        ("ip", "link", "show", "dev", PORT),
        ("ip", "-n", NS, "link", "show", "dev", PORT),
        ("ip", "-n", NS, "link", "set", "dev", PORT, "netns", here),
    ]
    assert pc.ran[4:8] == READS
    assert pc.ran[8] == ("ip", "link", "set", "dev", PORT, "mtu", "1400")
    assert pc.ran[9:12] == ADDRESS_ADDS
    assert pc.ran[12] == ("ip", "link", "set", "dev", PORT, "up")
    assert pc.ran[13] == ("ip", "link", "show", "dev", "pt-cap2")
    assert set(pc.ran[14:17]) == ROUTE_ADDS
    assert pc.ran[17:] == [("ip", "netns", "del", NS)]
    # MTU first, then the sysctls: before the addresses and the link going up.
    assert pc.writes == SYSCTL_WRITES
    assert pc.namespaces == set() and set(pc.timeouts) == {15.0}
    assert port_is_back(pc, state)


def test_a_restore_cut_short_after_the_port_came_back_finishes_and_deletes_the_namespace() -> None:
    pc = host()
    state = read_port(pc, PORT)
    in_namespace(pc)
    pc.show("after")  # back in this machine's namespace, bare, its namespace still there
    pc.ran.clear()
    restore_port(pc, state)
    assert pc.ran[:2] == [("ip", "netns", "pids", NS), ("ip", "link", "show", "dev", PORT)]
    assert pc.ran[2:6] == READS
    assert not any("netns" in argv[5:] for argv in pc.ran)  # not moved again
    assert pc.ran[7:10] == ADDRESS_ADDS and pc.ran[-1] == ("ip", "netns", "del", NS)
    assert pc.namespaces == set()


def test_a_route_someone_added_again_meanwhile_is_no_error() -> None:
    pc = host()
    state = read_port(pc, PORT)
    pc.show("after")
    for route in ROUTE_ADDS:
        pc.answers[route] = refusal("route-exists", route)
    restore_port(pc, state)
    assert set(pc.ran) >= ROUTE_ADDS
    # Any other refusal is an error that says what ip said.
    pc.show("after")
    route = min(ROUTE_ADDS)
    pc.answers[route] = refusal("address-exists", route)
    with pytest.raises(HostError) as error:
        restore_port(pc, state)
    assert error.value.message == (
        f"{' '.join(route)} failed on pc: Error: ipv4: Address already assigned."
    )


def test_restore_of_a_port_already_back_changes_nothing() -> None:
    pc = host()
    state = read_port(pc, PORT)
    pc.ran.clear()
    restore_port(pc, state)
    assert pc.ran == [
        ("ip", "link", "show", "dev", PORT),
        *READS,
        ("ip", "link", "show", "dev", "pt-cap2"),
    ]
    assert pc.writes == []


def test_restore_of_a_bare_port_takes_off_what_it_was_given_since() -> None:
    bare = read_port(host("after"), PORT)
    pc = host("before")
    restore_port(pc, bare)
    changes = [argv for argv in pc.ran if argv not in READS and "show" not in argv]
    assert changes[0] == ("ip", "link", "set", "dev", PORT, "mtu", "1500")
    assert set(changes[1:4]) == {
        ("ip", "addr", "del", cidr, "dev", PORT)
        for cidr in ("10.9.0.5/16", "192.168.71.50/24", "2001:db8:7::5/64")
    }
    assert changes[4:] == [("ip", "link", "set", "dev", PORT, "down")]
    assert [path for path, _ in pc.writes] == [path for path, _ in SYSCTL_WRITES]
    assert [value for _, value in pc.writes] == ["0\n", "0\n", "1\n", "1500\n"]


def test_a_multipath_route_through_a_port_still_moved_waits_for_that_port() -> None:
    pc = host()
    state = read_port(pc, PORT)
    pc.show("after")
    argv = ["ip", "link", "show", "dev", "pt-cap2"]
    pc.answers[tuple(argv)] = refusal("pt-cap2-away", argv)
    restore_port(pc, state)
    routes = {argv for argv in pc.ran if argv[1:3] in (("route", "add"), ("route", "replace"))}
    assert routes == {next(r for r in ROUTE_ADDS if "add" in r)}
    assert not any("-6" in argv for argv in pc.ran)
    pc.show("back-alone")  # as it then is
    assert port_is_back(pc, state)


def test_a_port_with_other_routes_or_addresses_is_not_back() -> None:
    pc = host()
    state = read_port(pc, PORT)
    pc.show("after")
    assert not port_is_back(pc, state)


def test_a_port_neither_here_nor_in_its_namespace_is_an_error() -> None:
    pc = host()
    state = read_port(pc, PORT)
    pc.moved_away()
    with pytest.raises(HostError) as error:
        restore_port(pc, state)
    assert error.value.message == f"port {PORT} is neither on pc nor in {NS}"
    pc.namespaces.add(NS)  # the namespace is there, the port is not in it
    argv = ["ip", "-n", NS, "link", "show", "dev", PORT]
    pc.answers[tuple(argv)] = refusal("moved-away", argv)
    pc.answer(["ip", "netns", "pids", NS], captured("inside/no-pids.txt"))
    with pytest.raises(HostError, match="is neither on pc nor in"):
        restore_port(pc, state)


def test_what_a_killed_run_left_in_the_namespace_is_killed_but_never_wirespeed_itself(
    no_real_namespaces: list[tuple[int, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = host()
    state = read_port(pc, PORT)
    in_namespace(pc, "inside/pids.txt")
    pids = [int(word) for word in captured("inside/pids.txt").split()]
    # Wirespeed itself in the namespace (as a run's own thread is): the shell's pid.
    monkeypatch.setattr(os, "getpid", lambda: pids[0])
    pc.when(
        ["ip", "-n", NS, "link", "set", "dev", PORT, "netns", str(pids[0])],
        lambda: pc.show("after"),
    )
    restore_port(pc, state)
    assert no_real_namespaces == [(pid, signal.SIGKILL) for pid in pids[1:]]


def test_a_process_already_gone_or_an_unreadable_list_stops_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pc = host()
    state = read_port(pc, PORT)
    in_namespace(pc, "inside/pids.txt")
    gone: list[int] = []

    def kill(pid: int, sig: int) -> None:
        gone.append(pid)
        raise ProcessLookupError(pid)

    monkeypatch.setattr(os, "kill", kill)
    restore_port(pc, state)
    # Every captured process but wirespeed's own: this test's pid may be one of them.
    pids = [int(word) for word in captured("inside/pids.txt").split()]
    assert gone == [pid for pid in pids if pid != os.getpid()] and len(pids) == 6
    assert pc.namespaces == set()
    # `ip netns pids` failing: nothing is killed, the port still comes back.
    gone.clear()
    in_namespace(pc, "inside/pids.txt")
    argv = ["ip", "netns", "pids", NS]
    pc.answers[tuple(argv)] = failed_with(argv, captured("inside/pids.txt"))
    restore_port(pc, state)
    assert gone == [] and pc.namespaces == set()


def failed_with(argv: list[str], stdout: str) -> Completed:
    """What ip printed, with the failing status of a namespace that went meanwhile."""
    return Completed(tuple(argv), int(captured("moved-away.rc")), stdout, "")


def test_a_sysctl_that_cannot_be_written_back_is_said_after_the_rest_is_restored() -> None:
    pc = host()
    state = read_port(pc, PORT)
    in_namespace(pc)
    refused = "/proc/sys/net/ipv4/conf/pt-cap0/rp_filter"
    pc.refused_writes.add(refused)
    unreadable = "/proc/sys/net/ipv6/conf/pt-cap0/accept_ra"

    def back_without_accept_ra() -> None:
        pc.show("after")
        del pc.files[unreadable]

    pc.when(
        ["ip", "-n", NS, "link", "set", "dev", PORT, "netns", str(os.getpid())],
        back_without_accept_ra,
    )
    with pytest.raises(HostError) as error:
        restore_port(pc, state)
    assert error.value.message == (
        f"{PORT}: could not write back {refused} = 2 (Permission denied); "
        "/proc/sys/net/ipv6/conf/pt-cap0/accept_ra = 0 (/proc/sys/net/ipv6/conf/pt-cap0/accept_ra)"
    )
    assert pc.writes == [SYSCTL_WRITES[0], SYSCTL_WRITES[3]]
    assert set(ROUTE_ADDS) <= set(pc.ran) and pc.namespaces == set()


def check(pc: PortHost, setup: PortSetup = SETUP, ssh: str | None = None) -> UsageError:
    with pytest.raises(UsageError) as error:
        check_port(pc, setup, ssh)
    return error.value


def test_a_port_with_nothing_of_its_own_the_move_would_lose_may_move() -> None:
    pc = host()
    check_port(pc, SETUP, "192.168.71.1 50000 10.10.0.5 22")
    assert pc.ran == [
        ("ip", "link", "show", "dev", PORT),
        ("tc", "-j", "qdisc", "show", "dev", PORT),
        ("ip", "-j", "nexthop", "show", "dev", PORT),
        ("ip", "-4", "-j", "route", "show", "table", "all", "default"),
        ("ip", "-6", "-j", "route", "show", "table", "all", "default"),
        ("ip", "-j", "addr", "show"),
    ]
    assert set(pc.timeouts) == {15.0}


def test_the_loopback_device_is_refused() -> None:
    error = check(host(), PortSetup(host="lan", interface="lo", address="10.0.0.1/24"))
    assert error.message == "hosts: lan: port lo is the loopback device"
    assert error.hint == "name a network port"


def test_a_port_this_machine_does_not_have_is_refused_with_how_to_list_them() -> None:
    pc = host()
    pc.moved_away()
    error = check(pc)
    assert error.message == f"hosts: lan: port {PORT}: this machine has no such port"
    assert error.hint == "`ip -br link` lists this machine's ports"


HINT_IN_USE = (
    "wait for it to end; if none runs, `wirespeed tune restore local` (with the --db of "
    "the run that moved it) gives the port back"
)


def test_a_port_another_run_moved_is_in_use_and_says_what_runs_there() -> None:
    pc = host()
    in_namespace(pc, "inside/pids.txt")
    pids = captured("inside/pids.txt").split()
    error = check(pc)
    assert error.message == (
        f"hosts: lan: port {PORT} is in use: it is in namespace {NS}, where another "
        f"wirespeed run moved it (running there: sh (pid {pids[0]}), sleep (pid {pids[1]}), "
        f"sleep (pid {pids[2]}), sleep (pid {pids[3]}) and 2 more)"
    )
    assert error.hint == HINT_IN_USE
    assert set(pc.timeouts) == {15.0}
    del pc.files[f"/proc/{pids[1]}/comm"]  # the process ended meanwhile
    assert f"? (pid {pids[1]})" in check(pc).message


def test_a_namespace_left_without_the_port_says_nothing_runs_there() -> None:
    pc = host()
    in_namespace(pc)
    argv = ["ip", "-n", NS, "link", "show", "dev", PORT]
    pc.answers[tuple(argv)] = refusal("moved-away", argv)
    error = check(pc)
    assert error.message == (
        f"hosts: lan: port {PORT}: namespace {NS} exists already: another wirespeed run "
        "uses the port (nothing runs there: the run that moved it may have been killed)"
    )
    assert error.hint == HINT_IN_USE
    # `ip netns pids` failing says the same.
    pids = ["ip", "netns", "pids", NS]
    pc.answers[tuple(pids)] = failed_with(pids, captured("inside/pids.txt"))
    assert "(nothing runs there:" in check(pc).message


def old(pc: PortHost, argv: list[str], name: str) -> None:
    """The answer of the capture with a qdisc, a nexthop object and a default route on
    the port (tests/fixtures/ports/capture.sh, whose port is named the same)."""
    pc.answer(argv, (OLD / name).read_text())


def test_a_port_with_a_qdisc_of_its_own_is_refused_with_the_commands_to_take_it_off() -> None:
    pc = host()
    old(pc, ["tc", "-j", "qdisc", "show", "dev", PORT], "qdisc.json")
    error = check(pc)
    assert error.message == (
        f"hosts: lan: port {PORT} has qdisc(s) of its own (tbf 80aa: root, ingress ffff: "
        "parent ffff:fff1): the kernel drops them when the port moves, and wirespeed "
        "cannot give them back exactly"
    )
    assert error.hint == (
        f"`tc qdisc del dev {PORT} root` and `tc qdisc del dev {PORT} ingress` for the run "
        "and add them again after it, or write force: true under hosts: lan to move it "
        "anyway: it comes back with the kernel's default qdisc"
    )
    check_port(pc, PortSetup(host="lan", interface=PORT, address="10.0.0.1/24", force=True), None)
    assert ("tc", "-j", "qdisc", "show", "dev", PORT) in pc.ran[:3]
    assert pc.ran[-1] == ("ip", "link", "show", "dev", PORT)


def test_a_port_whose_qdiscs_tc_cannot_show_is_not_refused_for_them() -> None:
    pc = host()
    argv = ["tc", "-j", "qdisc", "show", "dev", PORT]
    pc.answers[tuple(argv)] = Completed(tuple(argv), 1, (OLD / "qdisc.json").read_text(), "")
    check_port(pc, SETUP, None)
    pc.answer(argv, "not json")
    check_port(pc, SETUP, None)


def test_a_port_used_by_a_nexthop_object_is_refused() -> None:
    pc = host()
    old(pc, ["ip", "-j", "nexthop", "show", "dev", PORT], "nexthop.json")
    error = check(pc)
    assert error.message == (
        f"hosts: lan: port {PORT} is used by nexthop object(s) 7 (`ip nexthop`): the kernel "
        "deletes them, and the routes by them, when the port moves, and wirespeed cannot "
        "give them back"
    )
    assert error.hint == (
        "wire the bench to other ports, or write force: true under hosts: lan to move it "
        "anyway and add them again after the run"
    )
    argv = ["ip", "-j", "nexthop", "show", "dev", PORT]
    pc.answers[tuple(argv)] = Completed(tuple(argv), 2, (OLD / "nexthop.json").read_text(), "")
    check_port(pc, SETUP, None)  # an ip without nexthop objects: none
    pc.answer(argv, "{")
    check_port(pc, SETUP, None)


FORCE = "write force: true under hosts: lan if you have another way in"


@pytest.mark.parametrize("family", ["4", "6"])
def test_a_port_with_this_machines_default_route_is_refused(family: str) -> None:
    pc = host()
    old(
        pc,
        ["ip", f"-{family}", "-j", "route", "show", "table", "all", "default"],
        f"default{family}.json",
    )
    error = check(pc)
    assert error.message == (
        f"hosts: lan: port {PORT} carries this machine's default route: moved into a "
        "namespace for the run, it would cut this machine off its network"
    )
    assert error.hint == f"wire the bench to other ports, or {FORCE}"


def test_default_routes_ip_cannot_show_refuse_nothing() -> None:
    pc = host()
    for family in ("4", "6"):
        argv = ["ip", f"-{family}", "-j", "route", "show", "table", "all", "default"]
        text = (OLD / f"default{family}.json").read_text()
        pc.answers[tuple(argv)] = Completed(tuple(argv), 1, text, "")
    check_port(pc, SETUP, None)
    pc.answer(["ip", "-4", "-j", "route", "show", "table", "all", "default"], "[")
    old(pc, ["ip", "-6", "-j", "route", "show", "table", "all", "default"], "default6.json")
    assert "default route" in check(pc).message


@pytest.mark.parametrize("server", ["192.168.71.50", "2001:db8:7::5", "2001:db8:7::5%pt-cap0"])
def test_a_port_that_carries_the_ssh_session_is_refused(server: str) -> None:
    error = check(host(), ssh=f"192.168.71.1 50000 {server} 22")
    assert error.message == (
        f"hosts: lan: port {PORT} carries the SSH session wirespeed runs in: moved, it would cut it"
    )
    assert error.hint == f"log in over another port, or {FORCE}"


@pytest.mark.parametrize(
    "ssh",
    [
        None,
        "",
        "192.168.71.1 50000 192.168.71.50",
        "192.168.71.1 50000 192.168.71.50 22 x",
        "192.168.71.1 50000 not-an-address 22",
        "192.168.71.1 50000 192.0.2.1 22",
    ],
)
def test_a_session_that_does_not_name_an_address_of_a_port_names_no_port(
    ssh: str | None,
) -> None:
    assert ssh_session_port(host(), ssh) is None


def test_the_ssh_sessions_port_is_found_among_every_ports_addresses() -> None:
    pc = host()
    assert ssh_session_port(pc, "192.168.71.1 50000 10.10.0.5 22") == "pt-cap2"
    assert ssh_session_port(pc, "192.168.71.1 50000 10.9.0.5 22") == PORT
    argv = ["ip", "-j", "addr", "show"]
    pc.answers[tuple(argv)] = Completed(tuple(argv), 1, captured("all-addr.json"), "")
    assert ssh_session_port(pc, "192.168.71.1 50000 10.9.0.5 22") is None
    pc.answer(argv, "")
    assert ssh_session_port(pc, "192.168.71.1 50000 10.9.0.5 22") is None
    pc.answer(argv, "[")
    assert ssh_session_port(pc, "192.168.71.1 50000 10.9.0.5 22") is None


def test_an_address_entry_ip_printed_without_a_local_address_is_passed_over() -> None:
    pc = host()
    links = json.loads(captured("all-addr.json"))
    for link in links:
        for info in link.get("addr_info", []):
            if info.get("local") == "10.10.0.5":
                del info["local"]
    pc.answer(["ip", "-j", "addr", "show"], json.dumps(links))
    assert ssh_session_port(pc, "192.168.71.1 50000 10.10.0.5 22") is None
    assert ssh_session_port(pc, "192.168.71.1 50000 10.9.0.5 22") == PORT


def inside(
    pc: PortHost, link: str = "inside/link.json", port: str = PORT, before: str = "before"
) -> None:
    """The port in its namespace once moved: ip inside it shows it as captured."""
    ns = f"{port}-port"
    pc.when(
        ["ip", "link", "set", "dev", port, "netns", ns],
        lambda: in_namespace(pc, port=port, back_as="after" if port == PORT else before),
    )
    pc.answer(["ip", "-n", ns, "-j", "link", "show", "dev", port], captured(link))
    # Restored: the port back as it was before the run.
    pc.when(["ip", "netns", "del", ns], lambda: pc.show(before, port))


def test_a_moved_port_is_journaled_first_then_set_up_in_its_namespace(journal: Journal) -> None:
    pc = host()
    inside(pc)
    setup = PortSetup(
        host="lan",
        interface=PORT,
        address="2001:db8:200::2/64",
        gateway="2001:db8:200::1",
        mtu=9000,
    )
    session = move_port(pc, journal, setup)
    assert pc.ran[:4] == READS
    assert pc.ran[4:] == [
        ("ip", "netns", "add", NS),
        ("ip", "link", "set", "dev", PORT, "netns", NS),
        ("ip", "-n", NS, "link", "set", "dev", "lo", "up"),
        ("ip", "-n", NS, "link", "set", "dev", PORT, "mtu", "9000"),
        ("ip", "-n", NS, "addr", "add", "2001:db8:200::2/64", "nodad", "dev", PORT),
        ("ip", "-n", NS, "link", "set", "dev", PORT, "up"),
        ("ip", "-n", NS, "-j", "link", "show", "dev", PORT),
        ("ip", "-n", NS, "route", "add", "default", "via", "2001:db8:200::1", "dev", PORT),
    ]
    [entry] = journal.entries(session)
    assert entry.target == f"port:{PORT}" and entry.new == NS and entry.position == 0
    assert entry.previous == read_port(host(), PORT).to_json()
    assert entry.host == "pc" and entry.host_boot == captured("boot_id.txt").strip()
    assert entry.why == "host lan of the plan" and entry.state is State.APPLIED


def test_an_ipv4_port_without_mtu_or_gateway_gets_only_its_address(journal: Journal) -> None:
    pc = host()
    inside(pc)
    given = read_port(host("after"), PORT)
    move_port(pc, journal, PortSetup(host="lan", interface=PORT, address="192.168.200.2/24"), given)
    assert pc.ran == [
        ("ip", "netns", "add", NS),
        ("ip", "link", "set", "dev", PORT, "netns", NS),
        ("ip", "-n", NS, "link", "set", "dev", "lo", "up"),
        ("ip", "-n", NS, "addr", "add", "192.168.200.2/24", "dev", PORT),
        ("ip", "-n", NS, "link", "set", "dev", PORT, "up"),
        ("ip", "-n", NS, "-j", "link", "show", "dev", PORT),
    ]
    [entry] = journal.open_entries()
    assert entry.previous == given.to_json()  # the state given, not read again


class Clock:
    """time.monotonic and time.sleep of a port whose link never comes up."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.slept: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_a_port_without_link_is_waited_for_15_s_then_given_back(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = host()
    inside(pc, "inside/no-link.json")
    clock = Clock()
    monkeypatch.setattr(ports, "time", clock)
    with pytest.raises(HostError) as error:
        move_port(pc, journal, SETUP)
    assert error.value.message == f"port {PORT} (host lan) has no link after 15 s"
    assert error.value.hint == "is its cable in, and the device at the other end on?"
    assert set(clock.slept) == {0.05} and 300 <= len(clock.slept) <= 302
    assert ("ip", "netns", "del", NS) in pc.ran and pc.namespaces == set()
    assert journal.open_entries() == []


def test_a_port_whose_link_comes_up_late_is_waited_for(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = host()
    inside(pc, "inside/no-link.json")
    clock = Clock()
    monkeypatch.setattr(ports, "time", clock)
    show = ["ip", "-n", NS, "-j", "link", "show", "dev", PORT]
    polls = 0

    def count() -> None:
        nonlocal polls
        polls += 1
        if polls == 3:
            pc.answer(show, captured("inside/link.json"))

    pc.when(show, count)
    move_port(pc, journal, SETUP)
    assert polls == 4 and clock.slept == [0.05] * 3
    [entry] = journal.open_entries()
    assert entry.state is State.APPLIED


@pytest.mark.parametrize("printed", ["", "[]"])
def test_a_link_state_ip_did_not_print_is_waited_out_not_a_traceback(
    printed: str, journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = host()
    inside(pc)
    pc.answer(["ip", "-n", NS, "-j", "link", "show", "dev", PORT], printed)
    monkeypatch.setattr(ports, "time", Clock())
    with pytest.raises(HostError, match="has no link after 15 s"):
        move_port(pc, journal, SETUP)


def test_ports_are_checked_and_read_before_any_moves_and_restored_after(
    journal: Journal,
) -> None:
    pc = host()
    inside(pc)
    with ports_moved(pc, journal, [SETUP], None) as namespaces:
        assert namespaces == {PORT: NS}
        assert pc.ran[5:9] == READS  # after the check, before the move
        assert pc.ran[9] == ("ip", "netns", "add", NS)
        [_entry] = journal.open_entries()
    assert journal.open_entries() == []
    assert pc.namespaces == set() and port_is_back(pc, read_port(host(), PORT))
    assert ("ip", "netns", "del", NS) in pc.ran


def test_a_port_that_is_refused_is_never_moved(journal: Journal) -> None:
    pc = host()
    old(pc, ["ip", "-j", "nexthop", "show", "dev", PORT], "nexthop.json")
    with pytest.raises(UsageError), ports_moved(pc, journal, [SETUP], None):
        raise AssertionError("not reached")
    assert not any("set" in argv for argv in pc.ran) and journal.open_entries() == []


def test_a_restore_that_fails_after_the_run_is_an_error_with_how_to_try_again(
    journal: Journal,
) -> None:
    pc = host()
    inside(pc)
    pc.when(["ip", "netns", "del", NS], lambda: None)  # the port stays bare: not back
    with pytest.raises(RestoreError) as error, ports_moved(pc, journal, [SETUP], None):
        pass
    assert error.value.message.startswith("could not restore 1 value(s): port:pt-cap0")
    assert error.value.hint == "`wirespeed tune restore local` tries again"
    [entry] = journal.open_entries()
    assert entry.target == f"port:{PORT}"


def test_a_run_that_failed_keeps_its_own_error_over_the_restores(journal: Journal) -> None:
    pc = host()
    inside(pc)
    pc.when(["ip", "netns", "del", NS], lambda: None)
    with (
        pytest.raises(RuntimeError, match="the benchmark failed"),
        ports_moved(pc, journal, [SETUP], None),
    ):
        raise RuntimeError("the benchmark failed")
    assert ("ip", "netns", "del", NS) in pc.ran  # the restore was tried


def test_two_ports_are_read_before_either_moves_and_given_back_last_moved_first(
    journal: Journal,
) -> None:
    pc = host()
    pc.show("before-pt-cap2", "pt-cap2")
    inside(pc)
    inside(pc, port="pt-cap2", before="before-pt-cap2")
    # Forced: checked for the port's name and whether another run holds it only.
    second = PortSetup(host="wan", interface="pt-cap2", address="192.168.201.2/24", force=True)
    with ports_moved(pc, journal, [SETUP, second], None) as namespaces:
        assert namespaces == {PORT: NS, "pt-cap2": "pt-cap2-port"}
        reads = [pc.ran.index(argv) for argv in READS]
        other = pc.ran.index(("sh", "-c", SYSCTL_SCRIPT, "sh", "pt-cap2"))
        assert max(*reads, other) < pc.ran.index(("ip", "netns", "add", NS))
        rows = journal.open_entries()
        assert sorted(row.target for row in rows) == ["port:pt-cap0", "port:pt-cap2"]
    deleted = [argv[3] for argv in pc.ran if argv[:3] == ("ip", "netns", "del")]
    assert deleted[:2] == ["pt-cap2-port", NS]
    assert journal.open_entries() == [] and pc.namespaces == set()


@pytest.mark.parametrize("left", ["pids-four.txt", "pids-one.txt"])
def test_up_to_four_programs_in_the_namespace_are_each_named(left: str) -> None:
    pc = host()
    in_namespace(pc, f"inside/{left}")
    pids = captured(f"inside/{left}").split()
    names = [captured(f"inside/comm-{pid}.txt").strip() for pid in pids]
    running = ", ".join(f"{name} (pid {pid})" for name, pid in zip(names, pids, strict=True))
    assert check(pc).message.endswith(f"moved it (running there: {running})")


def test_every_nexthop_object_on_the_port_is_named() -> None:
    pc = host()
    pc.answer(["ip", "-j", "nexthop", "show", "dev", PORT], captured("nexthop-two.json"))
    assert f"port {PORT} is used by nexthop object(s) 7, 8 (`ip nexthop`)" in check(pc).message


def test_a_port_back_while_the_other_port_of_its_multipath_routes_is_still_moved_is_back() -> None:
    pc = host()
    state = read_port(pc, PORT)
    pc.show("back-alone")
    assert not port_is_back(pc, state)  # pt-cap2 here: its multipath routes are missing
    argv = ["ip", "link", "show", "dev", "pt-cap2"]
    pc.answers[tuple(argv)] = refusal("pt-cap2-away", argv)
    assert port_is_back(pc, state)


def test_a_sysctl_the_host_cannot_read_is_said_with_the_hosts_words() -> None:
    pc = host()
    state = read_port(pc, PORT)
    pc.show("after")
    path = "/proc/sys/net/ipv4/conf/pt-cap0/rp_filter"
    read_file = pc.read_file

    def lost(wanted: str) -> str:
        if wanted == path:
            raise HostError("lost the connection to root@pc: No existing session")
        return read_file(wanted)

    pc.read_file = lost  # type: ignore[assignment]
    with pytest.raises(HostError) as error:
        restore_port(pc, state)
    assert error.value.message == (
        f"{PORT}: could not write back {path} = 2 "
        "(lost the connection to root@pc: No existing session)"
    )


def test_a_port_that_fails_to_come_up_gives_back_only_itself(
    journal: Journal, monkeypatch: pytest.MonkeyPatch
) -> None:
    pc = host()
    pc.show("before-pt-cap2", "pt-cap2")
    inside(pc)
    inside(pc, "inside/no-link.json", port="pt-cap2", before="before-pt-cap2")
    move_port(pc, journal, SETUP)
    monkeypatch.setattr(ports, "time", Clock())
    second = PortSetup(host="wan", interface="pt-cap2", address="192.168.201.2/24")
    with pytest.raises(HostError, match="port pt-cap2 \\(host wan\\) has no link"):
        move_port(pc, journal, second)
    # The first port stays moved for the caller (ports_moved) to give back with the rest.
    [entry] = journal.open_entries()
    assert entry.target == f"port:{PORT}" and pc.namespaces == {NS}


def test_a_link_whose_state_is_unknown_is_taken_as_up(journal: Journal) -> None:
    # Drivers that tell no carrier state show UNKNOWN (as the loopback does): no wait.
    pc = host()
    inside(pc, "inside/unknown-link.json")
    move_port(pc, journal, SETUP)
    assert pc.ran.count(("ip", "-n", NS, "-j", "link", "show", "dev", PORT)) == 1
