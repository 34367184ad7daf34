"""Where the card logs in to its device before the run (to ask what it is and has): from
where the run will log in to it.

On a bench of this machine's ports (docs/bench.md) the router's LAN address is reached
through the LAN port, and the run moves that port into a namespace of its own and logs
in from there (run/port_hosts.py through_ports): from this machine's namespace the
address is not reached at all. So for the card's questions the ports on the device's
subnet are moved as the run moves them (checked, journaled, given back when the
questions are done, also on Ctrl-C), and the device is logged in to through them.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

from wirespeed.errors import NotRootError

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.plan import Plan
    from wirespeed.tune.ports import PortSetup


@contextlib.contextmanager
def device_reached(
    plan: Plan,
    device_ssh: str,
    settings: SshSettings,
    db: str | None,
    say: Callable[[str], None],
) -> Iterator[SshSettings]:
    """SSH settings that reach `device_ssh` as the run of `plan` will; the ports it is
    reached through are in their namespaces while the block runs."""
    from wirespeed.plan import expand
    from wirespeed.run.port_hosts import port_setups, through_ports

    setups = [s for s in port_setups(plan, expand(plan)) if _on_subnet(device_ssh, settings, s)]
    if not setups:
        yield settings
        return
    if os.geteuid() != 0:
        raise NotRootError("moving this machine's ports into namespaces")
    from wirespeed.hosts.local import LocalHost
    from wirespeed.run.variants import journal_for, recover_left_changes
    from wirespeed.store import Store
    from wirespeed.tune.hosts import LOCAL
    from wirespeed.tune.ports import ports_moved

    names = ", ".join(s.interface for s in setups)
    say(f"{device_ssh} is reached through {names}: moved for the card's questions, then back")
    store = Store.open(db)
    try:
        journal = journal_for(store)
        # As the run does before it moves a port: a killed run's ports come back first.
        for line in recover_left_changes(journal, settings, strict=False):
            say(line)
        with ports_moved(LocalHost(name=LOCAL), journal, setups, os.environ.get("SSH_CONNECTION")):
            yield through_ports(settings, setups)
    finally:
        store.close()


def _on_subnet(device_ssh: str, settings: SshSettings, setup: PortSetup) -> bool:
    """Whether the device's address (after the SSH configuration's HostName) is on the
    port's subnet and connected to directly (a ProxyCommand or ProxyJump finds its own
    way)."""
    from wirespeed.hosts.ssh_connection import resolve
    from wirespeed.hosts.ssh_target import SshTarget

    destination = resolve(SshTarget.parse(device_ssh), settings)
    if destination.proxy_command is not None or destination.jump is not None:
        return False
    addresses = _addresses(destination.hostname, destination.port)
    subnet = ipaddress.ip_interface(setup.address).network
    return any(address in subnet for address in addresses)


def _addresses(host: str, port: int) -> Sequence[ipaddress.IPv4Address | ipaddress.IPv6Address]:
    try:
        return [ipaddress.ip_address(host)]
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError:
        return []  # a name this machine cannot resolve: the login says so
    return [ipaddress.ip_address(str(entry[4][0]).split("%")[0]) for entry in found]
