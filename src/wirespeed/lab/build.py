"""The commands that build a lab from a TopologyPlan, as data (tested without root).

Every ip command names its namespace (`ip -n NS`), and each veth pair is created with
both ends already inside their namespaces (`ip -n A link add X type veth peer name Y
netns B`), so the lab never creates or changes an interface of the root namespace.
"""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed.lab.limits import budget_argvs, redirect_argvs
from wirespeed.lab.naming import namespace_name
from wirespeed.lab.shaping import (
    offloads_off_argv,
    rps_argv,
    rps_masks,
    tbf_argv,
    tbf_params,
)
from wirespeed.lab.topology import BRIDGE, Node, Port, TopologyPlan
from wirespeed.model import ForwardingLimit, LinkModel, Role

NAT_TABLE = "wirespeed"
# A home router's port forward: what reaches the WAN address on these ports (UDP and TCP)
# goes to the client, on the same port, so the outside can start traffic inwards.
PORT_FORWARD = (5800, 5899)


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    stdin: str | None = None


@dataclass(frozen=True)
class FileWrite:
    """A procfs write in one node's namespace (a per-namespace sysctl)."""

    node: Node
    path: str
    text: str


Step = Command | FileWrite


def _ns(lab: str, node: Node) -> str:
    return namespace_name(lab, node)


def _ip(lab: str, node: Node, *words: str) -> Command:
    return Command(("ip", "-n", _ns(lab, node), *words))


def nat_ruleset(port: Port, forward_to: str) -> str:
    """Masquerade what leaves the DUT's WAN port, and forward PORT_FORWARD arriving on it
    to forward_to (the client), as a home router does."""
    first, last = PORT_FORWARD
    return (
        f"table ip {NAT_TABLE} {{\n"
        "  chain prerouting {\n"
        "    type nat hook prerouting priority dstnat; policy accept;\n"
        f'    iifname "{port.interface}" meta l4proto {{ tcp, udp }} '
        f"th dport {first}-{last} dnat to {forward_to}\n"
        "  }\n"
        "  chain postrouting {\n"
        "    type nat hook postrouting priority srcnat; policy accept;\n"
        f'    oifname "{port.interface}" masquerade\n'
        "  }\n"
        "}\n"
    )


def _nft(lab: str, ruleset: str) -> Command:
    return Command(("ip", "netns", "exec", _ns(lab, Role.DUT), "nft", "-f", "-"), stdin=ruleset)


def dut_ports(plan: TopologyPlan) -> tuple[str, ...]:
    """The DUT's veth ports: what its CPU receives from."""
    return tuple(port.interface for port in plan.veth_ports if port.node is Role.DUT)


def limit_steps(
    plan: TopologyPlan, lab: str, link: LinkModel, limit: ForwardingLimit | None, mtu: int
) -> list[Step]:
    """The DUT's forwarding limit (lab/limits.py): its budget and ring, for links of this
    MTU; none without."""
    if limit is None:
        return []
    namespace = _ns(lab, Role.DUT)
    return [Command(tuple(argv)) for argv in budget_argvs(namespace, limit, link, mtu)]


def limit_build_steps(
    plan: TopologyPlan, lab: str, link: LinkModel, limit: ForwardingLimit | None
) -> list[Step]:
    """The limited DUT's backlog device fed by its ports, then its budget and ring."""
    if limit is None:
        return []
    namespace = _ns(lab, Role.DUT)
    redirect = [Command(tuple(argv)) for argv in redirect_argvs(namespace, dut_ports(plan))]
    return redirect + limit_steps(plan, lab, link, limit, link.mtu)


def mtu_ports(plan: TopologyPlan) -> tuple[Port, ...]:
    """Every lab interface whose MTU is the link's: the veth ends, then the bridges (a
    bridge takes no larger MTU than its ports have)."""
    return plan.veth_ports + tuple(bridge.device for bridge in plan.bridges)


def shaping_steps(plan: TopologyPlan, lab: str, link: LinkModel, mtu: int) -> list[Step]:
    """tbf on every veth end for a shaped link; nothing for an unshaped one. A link with
    a queue shapes its bottleneck alone, the ports of the nodes that forward, each with
    that queue; the ends are the fast side (lab/shaping.py says why)."""
    if link.rate_bps is None:
        return []
    if link.queue is None:
        params, ports = tbf_params(link.rate_bps, mtu), plan.veth_ports
    else:
        params = tbf_params(link.rate_bps, mtu, link.queue)
        ports = tuple(port for port in plan.veth_ports if port.node in plan.forwarding_nodes)
    return [Command(tuple(tbf_argv(_ns(lab, port.node), port.interface, params))) for port in ports]


def mtu_steps(
    plan: TopologyPlan,
    lab: str,
    link: LinkModel,
    mtu: int,
    limit: ForwardingLimit | None = None,
) -> list[Step]:
    """Set the MTU everywhere, then retune the shapers (the burst must hold a frame) and
    the forwarding limit (its byte rate is converted at the MTU)."""
    steps: list[Step] = [
        _ip(lab, port.node, "link", "set", "dev", port.interface, "mtu", str(mtu))
        for port in mtu_ports(plan)
    ]
    return steps + shaping_steps(plan, lab, link, mtu) + limit_steps(plan, lab, link, limit, mtu)


def build_steps(
    plan: TopologyPlan,
    lab: str,
    link: LinkModel,
    cpu_count: int,
    limit: ForwardingLimit | None = None,
) -> list[Step]:
    steps: list[Step] = []
    for node in plan.nodes:
        steps.append(Command(("ip", "netns", "add", _ns(lab, node))))
        steps.append(_ip(lab, node, "link", "set", "dev", "lo", "up"))
    for pair in plan.veths:
        peer_namespace = _ns(lab, pair.b.node)
        words = ("link", "add", pair.a.interface, "type", "veth")
        peer = ("peer", "name", pair.b.interface, "netns", peer_namespace)
        steps.append(_ip(lab, pair.a.node, *words, *peer))
    endpoint_cpus, forwarding_cpus = rps_masks(cpu_count)
    forwarding_nodes = plan.forwarding_nodes
    for port in plan.veth_ports:
        namespace = _ns(lab, port.node)
        cpus = forwarding_cpus if port.node in forwarding_nodes else endpoint_cpus
        steps.append(
            _ip(lab, port.node, "link", "set", "dev", port.interface, "mtu", str(link.mtu))
        )
        steps.append(Command(tuple(rps_argv(namespace, port.interface, cpus))))
        # A limited DUT counts packets: GRO must not merge them before its ring.
        if link.rate_bps is not None or (limit is not None and port.node is Role.DUT):
            steps.append(Command(tuple(offloads_off_argv(namespace, port.interface))))
    steps.extend(shaping_steps(plan, lab, link, link.mtu))
    for port in plan.veth_ports:
        steps.append(_ip(lab, port.node, "link", "set", "dev", port.interface, "up"))
    for bridge in plan.bridges:
        # Ports join the bridge once they are up: a port enslaved while down forwards
        # only after the kernel's deferred carrier event, most of a second later.
        node = bridge.node
        steps.append(_ip(lab, node, "link", "add", BRIDGE, "type", "bridge"))
        for port in bridge.ports:
            steps.append(_ip(lab, node, "link", "set", "dev", port.interface, "master", BRIDGE))
        steps.append(_ip(lab, node, "link", "set", "dev", BRIDGE, "mtu", str(link.mtu), "up"))
    for address in plan.addresses:
        port = address.port
        steps.append(_ip(lab, port.node, "addr", "add", address.cidr, "dev", port.interface))
    for route in plan.routes:
        steps.append(_ip(lab, route.node, "route", "add", route.destination, "via", route.via))
    if plan.forwarding:
        steps.append(FileWrite(Role.DUT, "/proc/sys/net/ipv4/ip_forward", "1"))
    if plan.masquerade is not None:
        client = plan.address_of(Role.CLIENT, "eth0")
        assert client is not None
        steps.append(_nft(lab, nat_ruleset(plan.masquerade, client)))
    # Last: the probe that follows the build crosses the limit like any traffic.
    steps.extend(limit_build_steps(plan, lab, link, limit))
    return steps
