"""Two ends of a path through a DUT that are one machine: the kernel delivers traffic
between its own addresses over loopback, whatever ports they sit on, so nothing crosses
the DUT (25 Gbit/s "through" a gigabit router, UDP that never left the PC).

Both ends are this machine in one namespace when neither has `ssh:`, or when both log
in to the same SSH host and port. The remedy shown uses the plan's own addresses: one
end on another machine, or in a network namespace of its own with an SSH server in it
(reached through `ip netns exec` in an ssh_config), or the path in the lab.
"""

from __future__ import annotations

from wirespeed.plan.plan import HostPlan


def one_machine(client: HostPlan, server: HostPlan) -> bool:
    """Whether the two hosts are the same machine in the same network namespace."""
    if client.ssh is None and server.ssh is None:
        return True
    if client.ssh is None or server.ssh is None:
        return False
    return (client.ssh.host, client.ssh.port or 22) == (server.ssh.host, server.ssh.port or 22)


def one_machine_message(path: str, dut: str | None, client: HostPlan, server: HostPlan) -> str:
    where = "this machine" if client.ssh is None else f"the machine {client.ssh.host}"
    through = f"never crosses {dut}" if dut is not None else "never crosses the DUT"
    return (
        f"path {path!r}: client {client.name!r} and server {server.name!r} are both {where}, "
        f"in one network namespace: its kernel routes between its own addresses over "
        f"loopback, so the traffic {through}"
    )


def one_machine_hint(client: HostPlan, server: HostPlan) -> str:
    """How to put the server's end in a namespace or on a machine of its own, with the
    plan's own addresses."""
    address = server.address or "ADDRESS"
    ssh = f"root@{address}"
    return (
        f"run one end on another machine or in a network namespace of its own with an SSH "
        f"server, e.g. hosts: {{{server.name}: {{address: {address}, ssh: {ssh}}}}} "
        f"(a namespace on this PC: move the port of {address} into it with "
        f"`ip link set PORT netns NS`, start sshd there and reach it with "
        f"`ProxyCommand ip netns exec NS nc %h %p` in the file given to --ssh-config; "
        f"docs/ssh.md), or measure in the lab: drop client:, server: and dut: from the path"
    )
