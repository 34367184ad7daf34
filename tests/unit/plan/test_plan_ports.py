"""Hosts that are ports of this machine (`port:`): what a plan gives them, and every
mistake in one at its line and column."""

from __future__ import annotations

import pytest

from wirespeed.plan import PlanError, parse_plan
from wirespeed.plan.expand import expand
from wirespeed.plan.plan import PortPlan
from wirespeed.run.port_hosts import port_setups
from wirespeed.tune.ports import PortSetup

REST = """paths:
  - {name: routed, topology: router, client: lan-side, server: wan-side, link: gbe}
tests:
  - {id: tcp, protocol: tcp}
"""


def problems_of(hosts: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(f"hosts:\n{hosts}{REST}", source="plan.yaml")
    return [str(problem) for problem in caught.value.problems]


def test_a_port_host_has_its_port_address_gateway_and_mtu() -> None:
    plan = parse_plan(
        "hosts:\n"
        "  lan-side: {port: pt-a, address: 192.168.1.50/24, gateway: 192.168.1.1}\n"
        "  wan-side: {port: pt-b, address: 10.0.0.2/24, mtu: 9000, force: true}\n" + REST,
        source="plan.yaml",
    )
    lan, wan = plan.hosts["lan-side"], plan.hosts["wan-side"]
    assert lan.port == PortPlan("pt-a", "192.168.1.50/24", gateway="192.168.1.1")
    assert wan.port == PortPlan("pt-b", "10.0.0.2/24", mtu=9000, force=True)
    # The other end sends its traffic to the address without its prefix.
    assert (lan.traffic_address, wan.traffic_address) == ("192.168.1.50", "10.0.0.2")
    assert lan.is_local and lan.ssh is None


def test_each_port_a_run_uses_is_set_up_as_its_host_has_it() -> None:
    plan = parse_plan(
        "hosts:\n"
        "  lan-side: {port: pt-a, address: 192.168.1.50/24, gateway: 192.168.1.1}\n"
        "  wan-side: {port: pt-b, address: 10.0.0.2/24, mtu: 9000, force: true}\n" + REST,
        source="plan.yaml",
    )
    assert port_setups(plan, expand(plan)) == [
        PortSetup("lan-side", "pt-a", "192.168.1.50/24", gateway="192.168.1.1"),
        PortSetup("wan-side", "pt-b", "10.0.0.2/24", mtu=9000, force=True),
    ]


def test_an_ipv6_port_address_and_gateway() -> None:
    plan = parse_plan(
        "hosts:\n"
        "  lan-side: {port: pt-a, address: '2001:db8:1::50/64', gateway: '2001:db8:1::1'}\n"
        "  wan-side: {port: pt-b, address: '2001:db8:2::2/64'}\n" + REST,
        source="plan.yaml",
    )
    assert plan.hosts["lan-side"].traffic_address == "2001:db8:1::50"


@pytest.mark.parametrize(
    ("hosts", "expected"),
    [
        (
            "  lan-side: {port: pt-a, address: 192.168.1.50}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:35: host 'lan-side': the address of port pt-a needs its prefix",
        ),
        (
            "  lan-side: {port: pt-a}\n  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:14: host 'lan-side': port pt-a needs the address to give it",
        ),
        (
            "  lan-side: {port: pt-a, address: 192.168.1.50/24, gateway: 192.168.2.1}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:61: host 'lan-side': gateway 192.168.2.1 is not in the subnet "
            "192.168.1.0/24",
        ),
        (
            "  lan-side: {port: pt-a, address: 192.168.1.50/24, gateway: 192.168.1.50}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:61: host 'lan-side': gateway 192.168.1.50 is the port's own address",
        ),
        (
            "  lan-side: {port: pt-a, address: 192.168.1.50/24, gateway: '2001:db8::1'}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:61: host 'lan-side': gateway 2001:db8::1 is not in the subnet",
        ),
        (
            "  lan-side: {port: pt-a, address: 192.168.1.50/24, ssh: root@r4s}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:52: host 'lan-side' is port pt-a of this machine: it is not reached "
            "over SSH",
        ),
        (
            "  lan-side: {port: pt-a, address: 192.168.1.50/24}\n"
            "  wan-side: {port: pt-a, address: 10.0.0.2/24}\n",
            "plan.yaml:3:20: host 'wan-side': port pt-a is already host 'lan-side' (line 2)",
        ),
        (
            "  lan-side: {address: 192.168.1.50, gateway: 192.168.1.1}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:37: host 'lan-side': gateway: belongs to a port of this machine",
        ),
        (
            "  lan-side: {address: 192.168.1.50, force: true}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:37: host 'lan-side': force: belongs to a port of this machine",
        ),
        (
            "  lan-side: {address: 192.168.1.50/24}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:23: host 'lan-side': a prefix is given only to a port's address",
        ),
        (
            "  lan-side: {port: lo, address: 192.168.1.50/24}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:20: port: 'lo' is not a network port's name",
        ),
        (
            "  lan-side: {port: eth0/../x, address: 192.168.1.50/24}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:20: port: 'eth0/../x' is not a network port's name",
        ),
        (
            "  lan-side: {port: pt-a, address: 192.168.1.0/24}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:35: address: '192.168.1.0/24' is the network's own address",
        ),
        (
            "  lan-side: {port: pt-a, address: 192.168.1.50/33}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:35: address: '192.168.1.50/33' is not an address with its prefix",
        ),
        (
            "  lan-side: {port: pt-a, address: 192.168.1.50/24, force: yes}\n"
            "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n",
            "plan.yaml:2:59:",
        ),
    ],
)
def test_a_mistake_in_a_port_host_is_shown_where_it_is_written(hosts: str, expected: str) -> None:
    problems = problems_of(hosts)
    assert any(problem.startswith(expected) for problem in problems), problems


def test_a_port_end_with_a_smaller_mtu_sets_its_paths_ceiling() -> None:
    from wirespeed.analysis.ceiling import ceiling_for
    from wirespeed.plan import expand

    plan = parse_plan(
        "hosts:\n"
        "  lan-side: {port: pt-a, address: 192.168.1.50/24, mtu: 1400}\n"
        "  wan-side: {port: pt-b, address: 10.0.0.2/24, mtu: 9000}\n" + REST,
        source="plan.yaml",
    )
    (path,) = plan.paths
    assert path.link is not None and path.link.mtu == 1400  # the smaller end's
    (trial,) = expand(plan)
    found = ceiling_for(trial)
    assert found is not None
    assert found.bits_per_second == pytest.approx(1e9 * (1400 - 52) / (1400 + 38))
    # Larger ends leave the link's own MTU.
    wide = parse_plan(
        "hosts:\n  lan-side: {port: pt-a, address: 192.168.1.50/24, mtu: 9000}\n"
        "  wan-side: {port: pt-b, address: 10.0.0.2/24}\n" + REST,
        source="plan.yaml",
    )
    assert wide.paths[0].link is not None and wide.paths[0].link.mtu == 1500
