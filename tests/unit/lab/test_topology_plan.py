"""The address plan and wiring of each topology."""

from __future__ import annotations

import ipaddress

import pytest

from wirespeed.lab.topology import Bridge, Infra, Port, plan_for
from wirespeed.model import Role, Topology

BENCHMARKING = ipaddress.ip_network("198.18.0.0/15")


@pytest.mark.parametrize("topology", list(Topology))
def test_every_address_is_in_the_rfc2544_benchmarking_range(topology: Topology) -> None:
    plan = plan_for(topology)
    for address in plan.addresses:
        assert ipaddress.ip_interface(address.cidr).ip in BENCHMARKING
    assert ipaddress.ip_address(plan.server_address) in BENCHMARKING


def test_endpoint_puts_the_client_on_the_dut_wan_side_and_the_server_in_the_dut() -> None:
    plan = plan_for(Topology.ENDPOINT)
    assert plan.nodes == (Role.CLIENT, Role.DUT, Infra.SWITCH)
    assert plan.role_nodes() == {
        Role.CLIENT: Role.CLIENT,
        Role.DUT: Role.DUT,
        Role.SERVER: Role.DUT,
    }
    assert plan.address_of(Role.DUT, "wan") == plan.server_address == "198.19.1.1"
    assert plan.address_of(Role.CLIENT, "eth0") == "198.19.1.2"


def test_in_endpoint_a_switch_without_an_address_sits_between_client_and_dut() -> None:
    plan = plan_for(Topology.ENDPOINT)
    switch_client, switch_dut = Port(Infra.SWITCH, "client"), Port(Infra.SWITCH, "dut")
    assert plan.bridges == (Bridge(Infra.SWITCH, (switch_client, switch_dut)),)
    wiring = {frozenset((pair.a, pair.b)) for pair in plan.veths}
    assert wiring == {
        frozenset((Port(Role.CLIENT, "eth0"), switch_client)),
        frozenset((Port(Role.DUT, "wan"), switch_dut)),
    }
    assert not any(address.port.node is Infra.SWITCH for address in plan.addresses)
    # The switch forwards, the DUT only terminates the connection.
    assert plan.forwarding_nodes == {Infra.SWITCH}


def test_bridge_is_one_subnet_with_both_dut_ports_in_br0() -> None:
    plan = plan_for(Topology.BRIDGE)
    assert plan.bridges == (Bridge(Role.DUT, (Port(Role.DUT, "lan"), Port(Role.DUT, "wan"))),)
    assert plan.forwarding_nodes == {Role.DUT}
    assert plan.address_of(Role.DUT, "lan") is None
    assert plan.address_of(Role.DUT, "br0") == "198.18.1.1"
    assert plan.server_address == "198.18.1.3"
    assert not plan.forwarding and not plan.routes


def test_router_routes_both_ways_and_forwards() -> None:
    plan = plan_for(Topology.ROUTER)
    assert plan.forwarding
    assert plan.forwarding_nodes == {Role.DUT}
    assert Infra.SWITCH not in plan.nodes
    assert plan.masquerade is None
    assert {(r.node, r.destination, r.via) for r in plan.routes} == {
        (Role.CLIENT, "default", "198.18.1.1"),
        (Role.SERVER, "198.18.1.0/24", "198.19.1.1"),
    }
    assert plan.server_address == "198.19.1.2"


def test_behind_nat_the_server_has_no_way_back_to_the_lan() -> None:
    plan = plan_for(Topology.NAT)
    assert plan.masquerade == Port(Role.DUT, "wan")
    assert [route.node for route in plan.routes] == [Role.CLIENT]


@pytest.mark.parametrize("topology", list(Topology))
def test_every_veth_end_is_a_port_of_a_node_of_the_plan(topology: Topology) -> None:
    plan = plan_for(topology)
    assert all(port.node in plan.nodes for port in plan.veth_ports)
    assert len(set(plan.veth_ports)) == len(plan.veth_ports)
