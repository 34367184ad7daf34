"""The plan's hosts that are ports of this machine, moved for the run and given back.

    with ports_for_run(plan, trials, journal) as hosts:   # host name -> Host
        ...                                              # that host's end runs in there

Each port the trials use goes into a namespace of its own (tune/ports.py: checked,
journaled, restored at the end, on Ctrl-C or SIGTERM, and after a SIGKILL by the next
run's recovery); the plan's host runs its programs there under its own name. A device
on a port's subnet (the router's LAN address) is logged in to from that port's
namespace (through_ports), since this machine's namespace no longer reaches it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from wirespeed.errors import NotRootError
from wirespeed.hosts.base import Host
from wirespeed.model import Trial

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.plan import Plan
    from wirespeed.tune.journal import Journal
    from wirespeed.tune.ports import PortSetup


def port_setups(plan: Plan, trials: Sequence[Trial]) -> list[PortSetup]:
    """The ports the trials use, in the order of the plan's hosts."""
    from wirespeed.tune.ports import PortSetup

    used = {
        name
        for trial in trials
        for name in (trial.path.client, trial.path.server, trial.path.dut, *_senders(trial))
        if name is not None
    }
    setups: list[PortSetup] = []
    for name, host in plan.hosts.items():
        port = host.port
        if port is None or name not in used:
            continue
        # The plan's port as it is set up for its host: the same fields, and the host's name.
        setups.append(PortSetup(host=name, **dataclasses.asdict(port)))
    return setups


def _senders(trial: Trial) -> list[str]:
    """A forwarding search's `senders:` beside its client: each sends from its own port."""
    if trial.test.search is None:
        return []
    more = trial.test.search.as_dict().get("senders")
    return [str(name) for name in more] if isinstance(more, list) else []


@contextlib.contextmanager
def ports_for_run(
    plan: Plan, trials: Sequence[Trial], journal: Journal
) -> Iterator[dict[str, Host]]:
    setups = port_setups(plan, trials)
    if not setups:
        yield {}
        return
    if os.geteuid() != 0:
        raise NotRootError("moving this machine's ports into namespaces")
    from wirespeed.hosts.local import LocalHost
    from wirespeed.hosts.netns import NetnsHost
    from wirespeed.hosts.renamed import RenamedHost
    from wirespeed.tune.hosts import LOCAL
    from wirespeed.tune.ports import ports_moved

    # Journaled as `local`: the name recovery reaches this machine by.
    this_machine = LocalHost(name=LOCAL)
    with ports_moved(this_machine, journal, setups, os.environ.get("SSH_CONNECTION")):
        yield {s.host: RenamedHost(NetnsHost(s.namespace), s.host) for s in setups}


def through_ports(settings: SshSettings | None, setups: Sequence[PortSetup]) -> SshSettings:
    """SSH settings that reach a device on a moved port's subnet from that port's
    namespace: on a PC whose two ports are cabled to the router, the router's LAN
    address is reached through the LAN port, which the run moved out of this machine's
    namespace. Any other address is reached as before."""
    import dataclasses
    import ipaddress
    import socket

    from wirespeed.hosts.netns import call_in_namespace
    from wirespeed.hosts.ssh_connection import SshSettings

    base = settings or SshSettings()
    before = base.socket_factory
    subnets = [(ipaddress.ip_interface(s.address).network, s.namespace) for s in setups]

    def connect(host: str, port: int, timeout: float) -> socket.socket:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            address = ipaddress.ip_address(socket.getaddrinfo(host, port)[0][4][0])
        for subnet, namespace in subnets:
            if address in subnet:
                return call_in_namespace(
                    namespace, lambda: socket.create_connection((str(address), port), timeout)
                )
        if before is not None:
            return before(host, port, timeout)
        return socket.create_connection((host, port), timeout)

    return dataclasses.replace(base, socket_factory=connect)
