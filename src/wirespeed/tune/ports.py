"""This machine's own ports, each moved into a namespace of its own for a run, and back.

    with ports_moved(this_machine, journal, setups) as namespaces:   # {port: namespace}
        ...                                  # each end of a test runs in its namespace

A port keeps its addresses only in the namespace it is in: moved, it arrives bare. So
before the move its state (addresses, routes, MTU, up/down, per-interface sysctls:
port_state.py) is journaled
in the store as a row `port:IF` of the tune journal, and only then is the port moved and
given the plan's address, route and MTU. At the end of the run, on Ctrl-C or SIGTERM the
row is restored: the port comes back to this machine's namespace and gets its state back,
and the namespace is deleted. After a SIGKILL the row stays open with a dead owner, and
the next start of `wirespeed run` (or `wirespeed tune restore`) restores it like any
other journaled knob (tune/apply.py recover).

A port that carries this machine's default route, or the SSH session wirespeed runs in,
is refused unless forced: moved, it would cut the way in for the whole run. So is a port
with what the move loses and restore cannot give back exactly: a qdisc someone added,
nexthop objects.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import os
import signal
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from wirespeed.errors import HostError, UsageError, WirespeedError
from wirespeed.hosts.base import Completed, Host
from wirespeed.hosts.netns import namespace_exists
from wirespeed.signals import deferred_signals
from wirespeed.tune.journal import Journal, State
from wirespeed.tune.port_state import (
    SYSCTL_SCRIPT,
    PortState,
    added_qdiscs,
    nexthop_ids,
    qdisc_deletes,
    read_state,
    route_ports,
)
from wirespeed.tune.targets import check_interface

_LINK_WAIT = 15.0  # seconds for a real port's autonegotiation after it comes up
_POLL = 0.05


@dataclass(frozen=True)
class PortSetup:
    """What a port is given for the run: the plan's host `host` on port `interface`."""

    host: str
    interface: str
    address: str  # with its prefix: 192.168.1.50/24
    gateway: str | None = None
    mtu: int | None = None
    force: bool = False

    @property
    def namespace(self) -> str:
        return port_namespace(self.interface)


def port_namespace(interface: str) -> str:
    """The namespace a port is moved into: named after it, so recovery finds it again."""
    return f"{check_interface(interface)}-port"


def port_target(interface: str) -> str:
    return f"port:{check_interface(interface)}"


def _ip(host: Host, argv: Sequence[str], *, ok_if: str | None = None) -> Completed:
    done = host.run(["ip", *argv], timeout=15.0)
    if done.returncode != 0 and not (ok_if and ok_if in done.stderr):
        raise HostError(f"ip {' '.join(argv)} failed on {host.name}: {done.stderr.strip()}")
    return done


def _present(host: Host, interface: str, namespace: str | None = None) -> bool:
    where = ["-n", namespace] if namespace is not None else []
    return host.run(["ip", *where, "link", "show", "dev", interface], timeout=15.0).returncode == 0


def read_port(host: Host, interface: str) -> PortState:
    """The port's state in this machine's namespace; HostError when it is not there."""
    link = _ip(host, ["-j", "link", "show", "dev", interface]).stdout
    addresses = _ip(host, ["-j", "addr", "show", "dev", interface]).stdout
    # Not `dev IF`: that leaves out the multipath routes one of whose nexthops is IF.
    routes = _ip(host, ["-j", "route", "show", "table", "all"]).stdout
    done = host.run(["sh", "-c", SYSCTL_SCRIPT, "sh", interface], timeout=15.0)
    if done.returncode != 0:
        raise HostError(f"cannot read the sysctls of {interface} on {host.name}: {done.stderr}")
    try:
        return read_state(interface, link, addresses, routes, done.stdout)
    except ValueError as error:
        raise HostError(f"cannot read the state of {interface} on {host.name}: {error}") from None


def restore_port(host: Host, state: PortState) -> None:
    """Bring the port back from its namespace and give it its state; idempotent, so a
    restore that was cut short is simply done again."""
    interface, namespace = state.interface, port_namespace(state.interface)
    if namespace_exists(namespace):
        _end_left_processes(host, namespace)
    if not _present(host, interface):
        if not namespace_exists(namespace) or not _present(host, interface, namespace):
            raise HostError(f"port {interface} is neither on {host.name} nor in {namespace}")
        # Back to the namespace wirespeed runs in (normally the machine's own).
        _ip(host, ["-n", namespace, "link", "set", "dev", interface, "netns", str(os.getpid())])
    now = read_port(host, interface)
    if now.mtu != state.mtu:
        _ip(host, ["link", "set", "dev", interface, "mtu", str(state.mtu)])
    # Before the addresses and the link going up: disable_ipv6, accept_dad and
    # addr_gen_mode say what happens to them.
    refused = _write_sysctls(host, state)
    for address in set(now.own_addresses) - set(state.own_addresses):
        _ip(host, ["addr", "del", address.cidr, "dev", interface])
    for address in state.own_addresses:
        if address not in now.own_addresses:
            _ip(host, address.add_argv(interface)[1:], ok_if="File exists")
    if now.up != state.up:
        _ip(host, ["link", "set", "dev", interface, "up" if state.up else "down"])
    absent = _absent_ports(host, state)
    # A multipath route through a port still moved is added when that port comes back.
    for route in state.routes_without(absent):
        if route not in now.routes:
            _ip(host, route.add_argv(interface)[1:], ok_if="File exists")
    if namespace_exists(namespace):
        _ip(host, ["netns", "del", namespace])
    if refused:
        raise HostError(f"{interface}: could not write back {'; '.join(refused)}")


def _write_sysctls(host: Host, state: PortState) -> list[str]:
    """Write back each sysctl that differs now; what was refused. In key order, so
    that of the pairs that are one value (base_reachable_time, base_reachable_time_ms)
    the finer is written last, and each is read again just before."""
    refused = []
    for key, value in state.sysctls:
        path = state.sysctl_path(key)
        try:
            if host.read_file(path).rstrip("\n") != value:
                host.write_file(path, value + "\n")
        except (OSError, WirespeedError) as error:
            refused.append(f"{path} = {value} ({getattr(error, 'strerror', None) or error})")
    return refused


def _absent_ports(host: Host, state: PortState) -> frozenset[str]:
    """The other ports of the state's multipath routes that are not in this namespace."""
    others = {d for r in state.routes for d in r.devices(state.interface)} - {state.interface}
    return frozenset(d for d in others if not _present(host, d))


def port_is_back(host: Host, state: PortState) -> bool:
    """Whether the port is here with the state it had (its multipath routes through a
    port still moved aside: they come back with that port)."""
    now = read_port(host, state.interface)
    return now.same_as(state, absent=_absent_ports(host, state))


def _end_left_processes(host: Host, namespace: str) -> None:
    """Kill what a run left in the port's namespace (an iperf of a killed run): it is
    wirespeed's own namespace, and nothing else runs there."""
    done = host.run(["ip", "netns", "pids", namespace], timeout=15.0)
    for word in done.stdout.split() if done.returncode == 0 else []:
        if word.isdigit() and int(word) != os.getpid():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(word), signal.SIGKILL)


def _running_in(host: Host, namespace: str, most: int = 4) -> str:
    """'running there: iperf3 (pid 4242), sleep (pid 4250)': what uses a port's
    namespace, for the message that refuses to move the port again."""
    done = host.run(["ip", "netns", "pids", namespace], timeout=15.0)
    pids = [w for w in done.stdout.split() if w.isdigit()] if done.returncode == 0 else []
    if not pids:
        return "nothing runs there: the run that moved it may have been killed"
    programs = []
    for pid in pids[:most]:
        try:
            name = host.read_file(f"/proc/{pid}/comm").strip()
        except (OSError, WirespeedError):
            name = "?"
        programs.append(f"{name} (pid {pid})")
    more = f" and {len(pids) - most} more" if len(pids) > most else ""
    return "running there: " + ", ".join(programs) + more


def restored_words(entry_target: str, previous: str) -> str | None:
    """'port pt-a is back as it was: 172.31.77.5/24, MTU 1400, up' for a port's journal
    row; None for any other row."""
    if not entry_target.startswith("port:"):
        return None
    try:
        state = PortState.from_json(previous.strip())
    except WirespeedError:
        return None
    addresses = ", ".join(a.cidr for a in state.own_addresses) or "no address"
    routes = f", {len(state.routes)} route(s)" if state.routes else ""
    up = "up" if state.up else "down"
    return f"port {state.interface} is back as it was: {addresses}{routes}, MTU {state.mtu}, {up}"


def _default_route_ports(host: Host) -> set[str]:
    """The ports of this machine's default routes: IPv4 and IPv6, of every table (a
    policy table's too), a multipath route's every nexthop."""
    found: set[str] = set()
    for family in ("-4", "-6"):
        argv = ["ip", family, "-j", "route", "show", "table", "all", "default"]
        done = host.run(argv, timeout=15.0)
        with contextlib.suppress(ValueError):
            found |= route_ports(done.stdout) if done.returncode == 0 else set()
    return found


def _added_qdiscs(host: Host, interface: str) -> list[str]:
    """The qdiscs someone added to the port (`tc qdisc`); none known without tc."""
    done = host.run(["tc", "-j", "qdisc", "show", "dev", interface], timeout=15.0)
    with contextlib.suppress(ValueError):
        return added_qdiscs(done.stdout) if done.returncode == 0 else []
    return []


def _nexthop_objects(host: Host, interface: str) -> list[str]:
    """The ids of the nexthop objects (`ip nexthop`) on the port: the kernel deletes
    them, and every route that uses them, when the port moves."""
    done = host.run(["ip", "-j", "nexthop", "show", "dev", interface], timeout=15.0)
    with contextlib.suppress(ValueError):
        return nexthop_ids(done.stdout) if done.returncode == 0 else []
    return []


def _port_with_address(host: Host, address: str) -> str | None:
    try:
        wanted = ipaddress.ip_address(address.partition("%")[0])
    except ValueError:
        return None
    done = host.run(["ip", "-j", "addr", "show"], timeout=15.0)
    with contextlib.suppress(json.JSONDecodeError):
        for link in json.loads(done.stdout or "[]") if done.returncode == 0 else []:
            for info in link.get("addr_info", []):
                with contextlib.suppress(ValueError, KeyError):
                    if ipaddress.ip_address(info["local"]) == wanted:
                        return str(link["ifname"])
    return None


def ssh_session_port(host: Host, ssh_connection: str | None) -> str | None:
    """The port of the SSH session wirespeed runs in: SSH_CONNECTION is "CLIENT_IP
    CLIENT_PORT SERVER_IP SERVER_PORT", and SERVER_IP is this machine's address on it."""
    words = (ssh_connection or "").split()
    return _port_with_address(host, words[2]) if len(words) == 4 else None


def check_port(host: Host, setup: PortSetup, ssh_connection: str | None) -> None:
    """UsageError (exit 2) for a port that cannot or must not be moved for the run."""
    interface, name = setup.interface, setup.host
    where = f"hosts: {name}: port {interface}"
    if interface == "lo":
        raise UsageError(f"{where} is the loopback device", hint="name a network port")
    # Before "no such port": a port another run moved is not in this namespace either.
    if namespace_exists(setup.namespace):
        in_use = "wait for it to end; if none runs, `wirespeed tune restore local` (with the "
        in_use += "--db of the run that moved it) gives the port back"
        users = _running_in(host, setup.namespace)
        if _present(host, interface, setup.namespace):
            raise UsageError(
                f"{where} is in use: it is in namespace {setup.namespace}, where another "
                f"wirespeed run moved it ({users})",
                hint=in_use,
            )
        raise UsageError(
            f"{where}: namespace {setup.namespace} exists already: another wirespeed run "
            f"uses the port ({users})",
            hint=in_use,
        )
    if not _present(host, interface):
        raise UsageError(
            f"{where}: this machine has no such port",
            hint="`ip -br link` lists this machine's ports",
        )
    if setup.force:
        return
    qdiscs = _added_qdiscs(host, interface)
    if qdiscs:
        deletes = " and ".join(f"`tc qdisc del dev {interface} {d}`" for d in qdisc_deletes(qdiscs))
        raise UsageError(
            f"{where} has qdisc(s) of its own ({', '.join(qdiscs)}): the kernel drops them "
            "when the port moves, and wirespeed cannot give them back exactly",
            hint=f"{deletes} for the run and add them again after it, or write force: true "
            f"under hosts: {name} to move it anyway: it comes back with the kernel's "
            "default qdisc",
        )
    objects = _nexthop_objects(host, interface)
    if objects:
        raise UsageError(
            f"{where} is used by nexthop object(s) {', '.join(objects)} (`ip nexthop`): "
            "the kernel deletes them, and the routes by them, when the port moves, and "
            "wirespeed cannot give them back",
            hint=f"wire the bench to other ports, or write force: true under hosts: {name} "
            "to move it anyway and add them again after the run",
        )
    force = f"write force: true under hosts: {name} if you have another way in"
    if interface in _default_route_ports(host):
        raise UsageError(
            f"{where} carries this machine's default route: moved into a namespace for the "
            "run, it would cut this machine off its network",
            hint=f"wire the bench to other ports, or {force}",
        )
    if ssh_session_port(host, ssh_connection) == interface:
        raise UsageError(
            f"{where} carries the SSH session wirespeed runs in: moved, it would cut it",
            hint=f"log in over another port, or {force}",
        )


def move_port(
    host: Host, journal: Journal, setup: PortSetup, state: PortState | None = None
) -> str:
    """Journal the port's state (`state`: read before any port of the run moved, else
    now), then move it and set it up; the journal session."""
    from wirespeed.tune.apply import host_boot_id, restore_session

    state = state if state is not None else read_port(host, setup.interface)
    session = journal.new_session()
    with deferred_signals():
        entry = journal.record(
            session=session,
            position=0,
            host=host.name,
            host_boot=host_boot_id(host),
            target=port_target(setup.interface),
            previous=state.to_json(),
            new=setup.namespace,
            why=f"host {setup.host} of the plan",
        )
        try:
            _set_up(host, setup)
        except BaseException:
            restore_session(host, journal, session)
            raise
        journal.set_state(entry, State.APPLIED)
    return session


def _set_up(host: Host, setup: PortSetup) -> None:
    interface, namespace = setup.interface, setup.namespace
    _ip(host, ["netns", "add", namespace])
    _ip(host, ["link", "set", "dev", interface, "netns", namespace])
    inside = ["-n", namespace]
    _ip(host, [*inside, "link", "set", "dev", "lo", "up"])
    if setup.mtu is not None:
        _ip(host, [*inside, "link", "set", "dev", interface, "mtu", str(setup.mtu)])
    six = ipaddress.ip_interface(setup.address).version == 6
    # An IPv6 address would be tentative (unusable) for a second of duplicate detection.
    nodad = ["nodad"] if six else []
    _ip(host, [*inside, "addr", "add", setup.address, *nodad, "dev", interface])
    _ip(host, [*inside, "link", "set", "dev", interface, "up"])
    _wait_for_link(host, setup)
    if setup.gateway is not None:
        _ip(host, [*inside, "route", "add", "default", "via", setup.gateway, "dev", interface])


def _wait_for_link(host: Host, setup: PortSetup) -> None:
    """A real port negotiates its link anew after the move (seconds); a veth is up at once."""
    deadline = time.monotonic() + _LINK_WAIT
    while True:
        done = _ip(host, ["-n", setup.namespace, "-j", "link", "show", "dev", setup.interface])
        with contextlib.suppress(json.JSONDecodeError, IndexError, AttributeError):
            if json.loads(done.stdout)[0].get("operstate") in ("UP", "UNKNOWN"):
                return
        if time.monotonic() > deadline:
            raise HostError(
                f"port {setup.interface} (host {setup.host}) has no link after {_LINK_WAIT:g} s",
                hint="is its cable in, and the device at the other end on?",
            )
        time.sleep(_POLL)


@contextlib.contextmanager
def ports_moved(
    host: Host, journal: Journal, setups: Sequence[PortSetup], ssh_connection: str | None
) -> Iterator[dict[str, str]]:
    """Every port checked, then moved (journaled); restored when the block ends, however
    it ends. Yields port -> namespace."""
    from wirespeed.tune.apply import RestoreError, restore_session

    for setup in setups:
        check_port(host, setup, ssh_connection)
    # Every port's state before the first moves: a multipath route through two of them
    # is gone (IPv4) or cut down (IPv6) once one has moved, and each row must hold it.
    states = [read_port(host, setup.interface) for setup in setups]
    sessions: list[str] = []
    failed = True
    try:
        for setup, state in zip(setups, states, strict=True):
            sessions.append(move_port(host, journal, setup, state))
        yield {setup.interface: setup.namespace for setup in setups}
        failed = False
    finally:
        problems: list[str] = []
        with deferred_signals():
            for session in reversed(sessions):
                try:
                    restore_session(host, journal, session)
                except (WirespeedError, OSError) as error:
                    problems.append(getattr(error, "message", str(error)))
        if problems and not failed:
            raise RestoreError(
                "; ".join(problems), hint="`wirespeed tune restore local` tries again"
            )
