"""The ip/tc/nft commands a lab is built from."""

from __future__ import annotations

from wirespeed.lab.build import (
    PORT_FORWARD,
    Command,
    FileWrite,
    build_steps,
    mtu_steps,
    nat_ruleset,
)
from wirespeed.lab.limits import BACKLOG, budget_argvs, redirect_argvs
from wirespeed.lab.links import parse_link
from wirespeed.lab.topology import Port, plan_for
from wirespeed.model import ForwardingLimit, Role, Topology


def _argvs(steps: list[Command | FileWrite]) -> list[tuple[str, ...]]:
    return [step.argv for step in steps if isinstance(step, Command)]


def test_veth_pairs_are_born_inside_their_namespaces() -> None:
    steps = build_steps(plan_for(Topology.ROUTER), "r", parse_link("gbe"), 2)
    assert (
        "ip", "-n", "wirespeed-r-client", "link", "add", "eth0", "type", "veth",
        "peer", "name", "lan", "netns", "wirespeed-r-dut",
    ) in _argvs(steps)  # fmt: skip
    # Every ip command names a lab namespace: nothing touches the root namespace.
    for argv in _argvs(steps):
        assert argv[:3] in {("ip", "netns", "add"), ("ip", "netns", "exec")} or (
            argv[1] == "-n" and argv[2].startswith("wirespeed-r-")
        )


def test_a_shaped_link_gets_tbf_on_every_veth_end_and_offloads_off() -> None:
    steps = build_steps(plan_for(Topology.BRIDGE), "b", parse_link("gbe"), 2)
    argvs = _argvs(steps)
    shaped = {(argv[2], argv[6]) for argv in argvs if "tbf" in argv}
    assert shaped == {
        ("wirespeed-b-client", "eth0"),
        ("wirespeed-b-dut", "lan"),
        ("wirespeed-b-dut", "wan"),
        ("wirespeed-b-server", "eth0"),
    }
    assert sum("ethtool" in argv for argv in argvs) == 4


def test_the_endpoint_switch_is_shaped_like_every_port_and_bridges_client_and_dut() -> None:
    argvs = _argvs(build_steps(plan_for(Topology.ENDPOINT), "e", parse_link("gbe"), 2))
    assert ("ip", "netns", "add", "wirespeed-e-switch") in argvs
    shaped = {(argv[2], argv[6]) for argv in argvs if "tbf" in argv}
    assert shaped == {
        ("wirespeed-e-client", "eth0"),
        ("wirespeed-e-switch", "client"),
        ("wirespeed-e-switch", "dut"),
        ("wirespeed-e-dut", "wan"),
    }
    # GRO off where the switch receives: it forwards, and its egress shapes, frame by frame.
    offloads = {(argv[3], argv[6]) for argv in argvs if "ethtool" in argv}
    assert {("wirespeed-e-switch", "client"), ("wirespeed-e-switch", "dut")} <= offloads
    assert all(argv[argv.index("gro") + 1] == "off" for argv in argvs if "ethtool" in argv)
    for port in ("client", "dut"):
        up = argvs.index(("ip", "-n", "wirespeed-e-switch", "link", "set", "dev", port, "up"))
        enslave = argvs.index(
            ("ip", "-n", "wirespeed-e-switch", "link", "set", "dev", port, "master", "br0")
        )
        assert up < enslave
    assert ("ip", "-n", "wirespeed-e-switch", "link", "add", "br0", "type", "bridge") in argvs
    assert not any(argv[2] == "wirespeed-e-switch" and "addr" in argv for argv in argvs)


def test_forwarding_ports_get_their_own_rps_cpus() -> None:
    def masks(topology: Topology) -> dict[tuple[str, str], str]:
        argvs = _argvs(build_steps(plan_for(topology), "x", parse_link("gbe"), 2))
        return {(argv[3], argv[-2]): argv[-1] for argv in argvs if "wirespeed-rps" in argv}

    assert masks(Topology.ENDPOINT) == {
        ("wirespeed-x-client", "eth0"): "1",
        ("wirespeed-x-switch", "client"): "2",
        ("wirespeed-x-switch", "dut"): "2",
        ("wirespeed-x-dut", "wan"): "1",
    }
    assert masks(Topology.ROUTER) == {
        ("wirespeed-x-client", "eth0"): "1",
        ("wirespeed-x-dut", "lan"): "2",
        ("wirespeed-x-dut", "wan"): "2",
        ("wirespeed-x-server", "eth0"): "1",
    }


def test_an_unshaped_link_gets_no_qdisc_and_keeps_its_offloads() -> None:
    argvs = _argvs(build_steps(plan_for(Topology.BRIDGE), "b", parse_link("unshaped"), 2))
    assert not any("tc" in argv or "ethtool" in argv for argv in argvs)


def test_bridge_ports_are_enslaved_after_they_are_up() -> None:
    argvs = _argvs(build_steps(plan_for(Topology.BRIDGE), "b", parse_link("fe"), 2))
    up = argvs.index(("ip", "-n", "wirespeed-b-dut", "link", "set", "dev", "lan", "up"))
    enslave = argvs.index(
        ("ip", "-n", "wirespeed-b-dut", "link", "set", "dev", "lan", "master", "br0")
    )
    assert up < enslave


def test_nat_masquerades_the_wan_port_and_the_dut_forwards() -> None:
    steps = build_steps(plan_for(Topology.NAT), "n", parse_link("fe"), 2)
    (nft,) = [s for s in steps if isinstance(s, Command) and "nft" in s.argv]
    assert nft.argv == ("ip", "netns", "exec", "wirespeed-n-dut", "nft", "-f", "-")
    assert nft.stdin == nat_ruleset(Port(Role.DUT, "wan"), "198.18.1.2")
    assert 'oifname "wan" masquerade' in (nft.stdin or "")
    assert FileWrite(Role.DUT, "/proc/sys/net/ipv4/ip_forward", "1") in steps


def test_set_mtu_covers_veth_ends_and_bridge_then_retunes_tbf() -> None:
    steps = mtu_steps(plan_for(Topology.BRIDGE), "b", parse_link("gbe"), 9000)
    argvs = _argvs(steps)
    mtu_set = [(argv[2], argv[6]) for argv in argvs if "mtu" in argv]
    assert ("wirespeed-b-dut", "br0") in mtu_set
    assert len(mtu_set) == 5
    tbf = [argv for argv in argvs if "tbf" in argv]
    assert len(tbf) == 4
    burst = int(tbf[0][tbf[0].index("burst") + 1])
    assert burst >= 2 * (9000 + 38)


def test_set_mtu_covers_the_endpoint_switch() -> None:
    argvs = _argvs(mtu_steps(plan_for(Topology.ENDPOINT), "e", parse_link("gbe"), 512))
    mtu_set = {(argv[2], argv[6]) for argv in argvs if "mtu" in argv}
    assert mtu_set == {
        ("wirespeed-e-client", "eth0"),
        ("wirespeed-e-switch", "client"),
        ("wirespeed-e-switch", "dut"),
        ("wirespeed-e-switch", "br0"),
        ("wirespeed-e-dut", "wan"),
    }
    assert sum("tbf" in argv for argv in argvs) == 4


def test_nat_forwards_a_port_range_from_the_wan_to_the_client() -> None:
    ruleset = nat_ruleset(Port(Role.DUT, "wan"), "198.18.1.2")
    assert (
        'iifname "wan" meta l4proto { tcp, udp } th dport 5800-5899 dnat to 198.18.1.2' in ruleset
    )
    assert PORT_FORWARD == (5800, 5899)


def test_a_limited_dut_gets_its_backlog_last_after_nat() -> None:
    limit = ForwardingLimit(pps=15000)
    link = parse_link("fe")
    steps = build_steps(plan_for(Topology.NAT), "n", link, 2, limit)
    nft = [s for s in steps if isinstance(s, Command) and "nft" in s.argv]
    assert [s.stdin for s in nft] == [nat_ruleset(Port(Role.DUT, "wan"), "198.18.1.2")]
    expected = redirect_argvs("wirespeed-n-dut", ("lan", "wan"))
    expected += budget_argvs("wirespeed-n-dut", limit, link, 1500)
    assert _argvs(steps)[-len(expected) :] == [tuple(argv) for argv in expected]


def test_both_ports_of_every_forwarding_dut_feed_the_one_backlog() -> None:
    limit = ForwardingLimit(pps=5000)
    for topology in (Topology.BRIDGE, Topology.ROUTER, Topology.NAT):
        steps = build_steps(plan_for(topology), "x", parse_link("gbe"), 2, limit)
        redirects = [a for a in _argvs(steps) if "mirred" in a]
        assert [a[a.index("dev") + 1] for a in redirects] == ["lan", "wan"], topology
        assert all(a[-2:] == ("dev", BACKLOG) and a[2] == "wirespeed-x-dut" for a in redirects)
        assert ("ip", "-n", "wirespeed-x-dut", "link", "add", BACKLOG, "type", "ifb") in _argvs(
            steps
        )


def test_a_limited_dut_on_an_unshaped_link_counts_packets_unmerged() -> None:
    unshaped = parse_link("unshaped")
    steps = build_steps(plan_for(Topology.ROUTER), "r", unshaped, 2, ForwardingLimit(pps=5000))
    offloads = [a for a in _argvs(steps) if "ethtool" in a]
    assert {a[3] for a in offloads} == {"wirespeed-r-dut"}  # the DUT's ports alone
    assert len(offloads) == 2
    free = build_steps(plan_for(Topology.ROUTER), "r", unshaped, 2)
    assert not [a for a in _argvs(free) if "ethtool" in a]  # unlimited: the kernel's offloads


def test_no_limit_no_backlog() -> None:
    steps = build_steps(plan_for(Topology.ROUTER), "r", parse_link("gbe"), 2)
    assert not [s for s in steps if isinstance(s, Command) and "nft" in s.argv]
    assert not [a for a in _argvs(steps) if BACKLOG in a]


def test_set_mtu_retunes_the_budget_without_a_second_backlog() -> None:
    limit = ForwardingLimit(bps=100_000_000)
    link = parse_link("gbe")
    steps = mtu_steps(plan_for(Topology.ROUTER), "r", link, 9000, limit)
    budget = [tuple(a) for a in budget_argvs("wirespeed-r-dut", limit, link, 9000)]
    assert _argvs(steps)[-len(budget) :] == budget
    assert not [a for a in _argvs(steps) if "ifb" in a or "mirred" in a]
    assert not [
        a for a in _argvs(mtu_steps(plan_for(Topology.ROUTER), "r", link, 9000)) if BACKLOG in a
    ]
