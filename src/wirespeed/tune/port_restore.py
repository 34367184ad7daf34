"""A moved port brought back to this machine with the state it had: the `port:IF` knob
of the tune journal, which tune/apply.py reads, restores and checks like any other, and
which the mover (tune/ports.py) journals before it moves a port.

Restoring is idempotent, so a restore cut short (a crash, a second Ctrl-C) is simply done
again by the next `wirespeed run` or `wirespeed tune restore`.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Sequence

from wirespeed.errors import HostError, WirespeedError
from wirespeed.hosts.base import Completed, Host
from wirespeed.hosts.netns import namespace_exists
from wirespeed.tune.port_state import SYSCTL_SCRIPT, PortState, read_state
from wirespeed.tune.refused import check_interface

__all__ = [
    "port_is_back",
    "port_namespace",
    "port_present",
    "port_target",
    "read_port",
    "restore_port",
    "run_ip",
]


def port_namespace(interface: str) -> str:
    """The namespace a port is moved into: named after it, so recovery finds it again."""
    return f"{check_interface(interface)}-port"


def port_target(interface: str) -> str:
    return f"port:{check_interface(interface)}"


def run_ip(host: Host, argv: Sequence[str], *, ok_if: str | None = None) -> Completed:
    done = host.run(["ip", *argv], timeout=15.0)
    if done.returncode != 0 and not (ok_if and ok_if in done.stderr):
        raise HostError(f"ip {' '.join(argv)} failed on {host.name}: {done.stderr.strip()}")
    return done


def port_present(host: Host, interface: str, namespace: str | None = None) -> bool:
    where = ["-n", namespace] if namespace is not None else []
    return host.run(["ip", *where, "link", "show", "dev", interface], timeout=15.0).returncode == 0


def read_port(host: Host, interface: str) -> PortState:
    """The port's state in this machine's namespace; HostError when it is not there."""
    link = run_ip(host, ["-j", "link", "show", "dev", interface]).stdout
    addresses = run_ip(host, ["-j", "addr", "show", "dev", interface]).stdout
    # Not `dev IF`: that leaves out the multipath routes one of whose nexthops is IF.
    routes = run_ip(host, ["-j", "route", "show", "table", "all"]).stdout
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
    if not port_present(host, interface):
        if not namespace_exists(namespace) or not port_present(host, interface, namespace):
            raise HostError(f"port {interface} is neither on {host.name} nor in {namespace}")
        # Back to the namespace wirespeed runs in (normally the machine's own).
        run_ip(host, ["-n", namespace, "link", "set", "dev", interface, "netns", str(os.getpid())])
    now = read_port(host, interface)
    if now.mtu != state.mtu:
        run_ip(host, ["link", "set", "dev", interface, "mtu", str(state.mtu)])
    # Before the addresses and the link going up: disable_ipv6, accept_dad and
    # addr_gen_mode say what happens to them.
    refused = _write_sysctls(host, state)
    for address in set(now.own_addresses) - set(state.own_addresses):
        run_ip(host, ["addr", "del", address.cidr, "dev", interface])
    for address in state.own_addresses:
        if address not in now.own_addresses:
            run_ip(host, address.add_argv(interface)[1:], ok_if="File exists")
    if now.up != state.up:
        run_ip(host, ["link", "set", "dev", interface, "up" if state.up else "down"])
    absent = _absent_ports(host, state)
    # A multipath route through a port still moved is added when that port comes back.
    for route in state.routes_without(absent):
        if route not in now.routes:
            run_ip(host, route.add_argv(interface)[1:], ok_if="File exists")
    if namespace_exists(namespace):
        run_ip(host, ["netns", "del", namespace])
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
    return frozenset(d for d in others if not port_present(host, d))


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
