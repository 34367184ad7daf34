"""This machine's own ports, each moved into a namespace of its own for a run, and back.

    with ports_moved(this_machine, journal, setups) as namespaces:   # {port: namespace}
        ...                                  # each end of a test runs in its namespace

A port keeps its addresses only in the namespace it is in: moved, it arrives bare. So
before the move its state (addresses, routes, MTU, up/down, per-interface sysctls:
port_state.py) is journaled
in the store as a row `port:IF` of the tune journal, and only then is the port moved and
given the plan's address, route and MTU. At the end of the run, on Ctrl-C or SIGTERM the
row is restored (tune/port_restore.py): the port comes back to this machine's namespace
and gets its state back, and the namespace is deleted. After a SIGKILL the row stays open
with a dead owner, and the next start of `wirespeed run` (or `wirespeed tune restore`)
restores it like any other journaled knob (tune/apply.py recover).

A port that carries this machine's default route, or the SSH session wirespeed runs in,
is refused unless forced: moved, it would cut the way in for the whole run. So is a port
with what the move loses and restore cannot give back exactly: a qdisc someone added,
nexthop objects.
"""

from __future__ import annotations

import contextlib
import ipaddress
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from wirespeed.errors import HostError, UsageError, WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.hosts.netns import namespace_exists
from wirespeed.signals import deferred_signals
from wirespeed.tune.apply import RestoreError, host_boot_id, restore_session
from wirespeed.tune.journal import Journal, State
from wirespeed.tune.port_restore import (
    port_is_back,
    port_namespace,
    port_present,
    port_target,
    read_port,
    restore_port,
    run_ip,
)
from wirespeed.tune.port_state import (
    PortState,
    added_qdiscs,
    nexthop_ids,
    qdisc_deletes,
    route_ports,
)

__all__ = [
    "PortSetup",
    "check_port",
    "move_port",
    "port_is_back",
    "port_namespace",
    "port_target",
    "ports_moved",
    "read_port",
    "restore_port",
    "restored_words",
    "ssh_session_port",
]

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
        if port_present(host, interface, setup.namespace):
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
    if not port_present(host, interface):
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
    run_ip(host, ["netns", "add", namespace])
    run_ip(host, ["link", "set", "dev", interface, "netns", namespace])
    inside = ["-n", namespace]
    run_ip(host, [*inside, "link", "set", "dev", "lo", "up"])
    if setup.mtu is not None:
        run_ip(host, [*inside, "link", "set", "dev", interface, "mtu", str(setup.mtu)])
    six = ipaddress.ip_interface(setup.address).version == 6
    # An IPv6 address would be tentative (unusable) for a second of duplicate detection.
    nodad = ["nodad"] if six else []
    run_ip(host, [*inside, "addr", "add", setup.address, *nodad, "dev", interface])
    run_ip(host, [*inside, "link", "set", "dev", interface, "up"])
    _wait_for_link(host, setup)
    if setup.gateway is not None:
        run_ip(host, [*inside, "route", "add", "default", "via", setup.gateway, "dev", interface])


def _wait_for_link(host: Host, setup: PortSetup) -> None:
    """A real port negotiates its link anew after the move (seconds); a veth is up at once."""
    deadline = time.monotonic() + _LINK_WAIT
    while True:
        done = run_ip(host, ["-n", setup.namespace, "-j", "link", "show", "dev", setup.interface])
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
