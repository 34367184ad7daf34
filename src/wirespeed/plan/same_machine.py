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
    """Whether the two hosts are the same machine in the same network namespace. A port
    of this machine (`port:`) is moved into a namespace of its own for the run."""
    if client.port is not None or server.port is not None:
        return False
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
    client_address = client.address or "ADDRESS"
    return (
        f"give each end a port of this PC, which wirespeed moves into a namespace of its "
        f"own for the run (docs/bench.md), e.g. hosts: {{{client.name}: {{port: PORT_A, "
        f"address: {client_address}/24, gateway: ROUTER_LAN}}, {server.name}: "
        f"{{port: PORT_B, address: {address}/24, gateway: ROUTER_WAN}}}}; or run one end on "
        f"another machine over SSH (hosts: {{{server.name}: {{address: {address}, "
        f"ssh: root@{address}}}}}), or measure in the lab: drop client:, server: and dut: "
        f"from the path"
    )
