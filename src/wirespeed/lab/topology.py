"""What each topology is made of: namespaces, veth pairs, addresses, routes, NAT.

Pure data; lab/build.py turns a plan into ip/tc/nft commands.

Addresses come from the benchmarking range of RFC 2544 (198.18.0.0/15), which no real
network routes: the LAN side is 198.18.1.0/24, the WAN side 198.19.1.0/24. Each lab lives
in its own namespaces, so two labs use the same addresses without meeting.

Interface names inside the namespaces: client and server have `eth0`; the DUT has `lan`
(towards the client) and `wan` (towards the server), and `br0` when it bridges; the
endpoint topology's switch has `client` and `dut` (named for what they face) in `br0`.

    endpoint  client eth0 198.19.1.2 ── client ─ br0 ─ dut ── wan 198.19.1.1 dut
                                          (switch)             (the DUT runs the server)
    bridge    client eth0 198.18.1.2 ── lan ─ br0 198.18.1.1 ─ wan ── eth0 198.18.1.3 server
    router    client eth0 198.18.1.2 ── lan 198.18.1.1 dut wan 198.19.1.1 ── eth0 198.19.1.2 server
    nat       as router; the DUT masquerades what leaves wan, and the server has no route
              back to 198.18.1.0/24, so a reply reaches the client only through NAT

In endpoint the client sits on the DUT's WAN side, as in the seeds' "WAN" test, behind
a switch (a namespace of its own, `switch`, bridging its ports `client` and `dut`; no
address), as a real workstation sits behind a gigabit switch. The switch is what makes
the link exact: TCP hands a sender's shaper GSO super-packets even with gso off (the
device segments them after the qdisc), and tbf adds its per-frame overhead once per
skb, so the sending end's own shaper admits about 1.5 % too much. Frames reach the
switch one by one (gro off on its ports), and its egress towards the receiver counts
every frame: that is the bottleneck, as the DUT's egress is in bridge, router and nat.
The switch is infrastructure, not a role: no test runs in it.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import TypeAlias

from wirespeed.model import Role, Topology

LAN_PREFIX = "198.18.1"
WAN_PREFIX = "198.19.1"
PREFIX_LENGTH = 24
LAN_SUBNET = f"{LAN_PREFIX}.0/{PREFIX_LENGTH}"
WAN_SUBNET = f"{WAN_PREFIX}.0/{PREFIX_LENGTH}"
BRIDGE = "br0"


class Infra(enum.StrEnum):
    """A node that carries the lab's traffic but plays no role in a test."""

    SWITCH = "switch"
    MGMT = "mgmt"  # wirespeed's side of the management link to an SSH DUT (ssh_dut.py)


Node: TypeAlias = Role | Infra  # one namespace each
ALL_NODES: tuple[Node, ...] = (*Role, *Infra)


@dataclass(frozen=True)
class Port:
    """One interface in one node's namespace."""

    node: Node
    interface: str


@dataclass(frozen=True)
class Bridge:
    """A Linux bridge `br0` in one node's namespace, and the ports enslaved to it."""

    node: Node
    ports: tuple[Port, ...]

    @property
    def device(self) -> Port:
        return Port(self.node, BRIDGE)


@dataclass(frozen=True)
class VethPair:
    a: Port
    b: Port


@dataclass(frozen=True)
class Address:
    port: Port
    cidr: str  # "198.18.1.2/24"

    @property
    def ip(self) -> str:
        return self.cidr.split("/")[0]


@dataclass(frozen=True)
class Route:
    node: Node
    destination: str  # "default" or a subnet
    via: str


@dataclass(frozen=True)
class TopologyPlan:
    topology: Topology
    nodes: tuple[Node, ...]  # one namespace each
    veths: tuple[VethPair, ...]
    bridges: tuple[Bridge, ...]
    addresses: tuple[Address, ...]
    routes: tuple[Route, ...]
    forwarding: bool  # the DUT forwards IPv4 between its ports
    masquerade: Port | None  # the DUT's port whose outgoing traffic is masqueraded
    server_node: Role  # the node whose namespace plays the SERVER role
    server_address: str  # what the client connects to

    @property
    def veth_ports(self) -> tuple[Port, ...]:
        """Every veth end: each one gets a shaper on its egress."""
        return tuple(port for pair in self.veths for port in (pair.a, pair.b))

    @property
    def forwarding_nodes(self) -> frozenset[Node]:
        """The nodes that pass other nodes' traffic on: each one with a bridge, and the
        DUT when it routes."""
        nodes: set[Node] = {bridge.node for bridge in self.bridges}
        if self.forwarding:
            nodes.add(Role.DUT)
        return frozenset(nodes)

    def address_of(self, node: Node, interface: str) -> str | None:
        for address in self.addresses:
            if address.port == Port(node, interface):
                return address.ip
        return None

    def role_nodes(self) -> dict[Role, Node]:
        """Which node's namespace each role runs in."""
        return {Role.CLIENT: Role.CLIENT, Role.DUT: Role.DUT, Role.SERVER: self.server_node}


def _at(node: Node, interface: str) -> Port:
    return Port(node, interface)


def plan_for(topology: Topology) -> TopologyPlan:
    client_eth0 = _at(Role.CLIENT, "eth0")
    server_eth0 = _at(Role.SERVER, "eth0")
    dut_lan = _at(Role.DUT, "lan")
    dut_wan = _at(Role.DUT, "wan")
    lan = f"/{PREFIX_LENGTH}"
    # Bridge, router and nat: the DUT between the client (on its lan) and the server.
    through_dut = (Role.CLIENT, Role.DUT, Role.SERVER)
    cabled = (VethPair(client_eth0, dut_lan), VethPair(server_eth0, dut_wan))

    if topology is Topology.ENDPOINT:
        switch_client = _at(Infra.SWITCH, "client")
        switch_dut = _at(Infra.SWITCH, "dut")
        return TopologyPlan(
            topology=topology,
            nodes=(Role.CLIENT, Role.DUT, Infra.SWITCH),
            veths=(VethPair(client_eth0, switch_client), VethPair(dut_wan, switch_dut)),
            bridges=(Bridge(Infra.SWITCH, (switch_client, switch_dut)),),
            addresses=(
                Address(client_eth0, f"{WAN_PREFIX}.2{lan}"),
                Address(dut_wan, f"{WAN_PREFIX}.1{lan}"),
            ),
            routes=(),
            forwarding=False,
            masquerade=None,
            server_node=Role.DUT,
            server_address=f"{WAN_PREFIX}.1",
        )
    if topology is Topology.BRIDGE:
        return TopologyPlan(
            topology=topology,
            nodes=through_dut,
            veths=cabled,
            bridges=(Bridge(Role.DUT, (dut_lan, dut_wan)),),
            addresses=(
                Address(client_eth0, f"{LAN_PREFIX}.2{lan}"),
                Address(_at(Role.DUT, BRIDGE), f"{LAN_PREFIX}.1{lan}"),
                Address(server_eth0, f"{LAN_PREFIX}.3{lan}"),
            ),
            routes=(),
            forwarding=False,
            masquerade=None,
            server_node=Role.SERVER,
            server_address=f"{LAN_PREFIX}.3",
        )
    # router and nat
    nat = topology is Topology.NAT
    client_route = Route(Role.CLIENT, "default", f"{LAN_PREFIX}.1")
    server_route = Route(Role.SERVER, LAN_SUBNET, f"{WAN_PREFIX}.1")
    return TopologyPlan(
        topology=topology,
        nodes=through_dut,
        veths=cabled,
        bridges=(),
        addresses=(
            Address(client_eth0, f"{LAN_PREFIX}.2{lan}"),
            Address(dut_lan, f"{LAN_PREFIX}.1{lan}"),
            Address(dut_wan, f"{WAN_PREFIX}.1{lan}"),
            Address(server_eth0, f"{WAN_PREFIX}.2{lan}"),
        ),
        # Behind NAT the server must not know the way back: only masquerading makes
        # replies reach the client, which proves the NAT is real.
        routes=(client_route,) if nat else (client_route, server_route),
        forwarding=True,
        masquerade=dut_wan if nat else None,
        server_node=Role.SERVER,
        server_address=f"{WAN_PREFIX}.2",
    )
