"""Where a soak runs: a lab built for it, or the plan's real hosts."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

from wirespeed.errors import MissingToolError
from wirespeed.hosts.base import Host
from wirespeed.hosts.local import LocalHost
from wirespeed.model import ForwardingLimit
from wirespeed.plan.schema import DutEntry
from wirespeed.soak.plan import SoakFile
from wirespeed.soak.soak_runner import SoakHosts

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_connection import SshSettings

__all__ = ["dut_limit", "soak_hosts"]


def dut_limit(plan: SoakFile) -> ForwardingLimit | None:
    """The most the lab DUT forwards (both directions together), as a run's lab path
    has it: the path's `dut:` mapping, else the lab's `dut:`; None: unlimited."""
    entry = plan.path.dut if isinstance(plan.path.dut, dict) else None
    lab = plan.lab.dut if plan.lab is not None else None
    dut = DutEntry.model_validate(entry) if entry is not None else lab
    if dut is None or (dut.forward_pps is None and dut.forward_rate is None):
        return None
    return ForwardingLimit(pps=dut.forward_pps, bps=dut.forward_rate, ring=dut.ring)


@contextlib.contextmanager
def soak_hosts(
    plan: SoakFile,
    lab_name: str | None,
    *,
    ssh: SshSettings | None = None,
    rename: bool = False,
) -> Iterator[SoakHosts]:
    """The hosts of the soak, for as long as it runs; a lab is torn down afterwards.
    ssh: how to reach the plan's SSH hosts (run's --ssh-config, --accept-new-host-key);
    rename: a lab name a live process holds gives way to name-2, name-3 ... (as `run`)."""
    if plan.lab is not None and plan.path.client is None:
        from wirespeed.lab.lab import Lab, LabSpec
        from wirespeed.lab.limits import forward_family
        from wirespeed.lab.links import parse_link
        from wirespeed.model import Role, Topology

        topology = Topology(plan.path.topology)
        spec = LabSpec(
            topology=topology,
            link=parse_link(plan.lab.link, mtu=plan.lab.mtu, queue=plan.lab.queue),
            name=lab_name or f"soak-{topology.value}",
            dut_access=plan.soak.dut_access,
            limit=dut_limit(plan),
        )
        with Lab.up(spec, owned=True, rename=rename) as lab:
            yield SoakHosts(
                client=lab.hosts[Role.CLIENT],
                server=lab.hosts[Role.SERVER],
                target=lab.server_address,
                dut=lab.device_hosts[Role.DUT],
                fault_host=lab.hosts[Role.DUT],
                lab=lab.name,
                built_lab=lab,
                fault_family=forward_family(topology),
                passed_over=lab.passed_over,
            )
        return
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.hosts.ssh_target import SshTarget

    made: list[SshHost] = []

    def host(name: str | None) -> Host | None:
        if name is None:
            return None
        entry = plan.hosts[name]
        if entry.ssh is None:
            return LocalHost()
        device = SshHost(SshTarget.parse(entry.ssh), ssh or SshSettings(), name=name)
        made.append(device)
        device.connect()
        return device

    client, server = host(plan.path.client), host(plan.path.server)
    assert client is not None and server is not None
    for end in (client, server):
        if end.which("irtt") is None:
            raise MissingToolError("irtt", end.name, {"irtt": "irtt"})
    server_entry = plan.hosts[str(plan.path.server)]
    target = server_entry.address or SshTarget.parse(str(server_entry.ssh)).host
    try:
        yield SoakHosts(client, server, target.strip("[]"), host(plan.path.dut_host))
    finally:
        for device in made:
            with contextlib.suppress(Exception):
                device.close()
