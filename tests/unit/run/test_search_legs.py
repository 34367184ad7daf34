"""Which address each direction of a search between real hosts goes to: through a real
NAT router, `in` is sent to the router's WAN address (its port forward passes it on),
never to the client's own address, which the outside has no route to."""

from __future__ import annotations

import pytest

from wirespeed.errors import UsageError
from wirespeed.hosts.local import LocalHost
from wirespeed.lab.build import PORT_FORWARD, nat_ruleset
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.lab.topology import Port
from wirespeed.model import Role, Topology
from wirespeed.run.search_legs import (
    DOWN_PORT,
    UP_PORT,
    NatDut,
    lab_legs,
    real_legs,
    shared_up,
)


def test_in_through_a_real_nat_goes_to_the_routers_wan_address() -> None:
    laptop, workstation = LocalHost("laptop"), LocalHost("workstation")
    legs = real_legs(
        laptop,
        workstation,
        client_address="192.168.2.128",
        server_address="192.168.0.2",
        nat=NatDut("r4s", "192.168.0.62"),
    )
    [inward] = legs["in"]
    assert (inward.sender, inward.receiver) == (workstation, laptop)
    assert (inward.target, inward.port) == ("192.168.0.62", DOWN_PORT)
    assert legs["down"] == legs["in"]
    # What the router needs, with the plan's own names and addresses.
    assert inward.needs is not None
    assert "on r4s, forward UDP port 5801 arriving at its WAN address 192.168.0.62" in (
        inward.needs
    )
    assert "to 192.168.2.128 port 5801" in inward.needs
    [outward] = legs["out"]
    assert (outward.target, outward.needs) == ("192.168.0.2", None)
    assert [leg.target for leg in legs["both"]] == ["192.168.0.2", "192.168.0.62"]


def test_without_nat_down_goes_to_the_clients_address() -> None:
    legs = real_legs(
        LocalHost("a"), LocalHost("b"), client_address="10.0.0.2", server_address="10.0.0.3"
    )
    [down] = legs["down"]
    assert (down.target, down.needs) == ("10.0.0.2", None)


def _lab(topology: Topology) -> Lab:
    return Lab(LabSpec(topology, parse_link("gbe"), name="legs"), 1500)


def test_in_through_the_lab_nat_goes_to_its_wan_address_on_a_forwarded_port() -> None:
    lab = _lab(Topology.NAT)
    client, server = lab.hosts[Role.CLIENT], lab.hosts[Role.SERVER]
    legs = lab_legs(lab)
    [inward] = legs["in"]
    assert (inward.sender, inward.receiver) == (server, client)
    # The DUT's WAN address, never the client's own (198.18.1.2: no route from outside).
    assert (inward.target, inward.port) == ("198.19.1.1", 5801)
    assert inward.target == lab.wan_address != lab.client_address
    first, last = lab.port_forward or (0, 0)
    assert (first, last) == PORT_FORWARD == (5800, 5899)
    assert first <= inward.port <= last
    assert (inward.counted, inward.needs, inward.share) == (True, None, 1.0)
    assert legs["down"] == legs["in"]
    [outward] = legs["out"]
    assert (outward.sender, outward.receiver) == (client, server)
    assert (outward.target, outward.port, outward.counted) == ("198.19.1.2", UP_PORT, True)
    assert first <= outward.port <= last
    assert legs["up"] == legs["out"]
    assert legs["both"] == (outward, inward)
    # The lab's own NAT forwards exactly that range to the client.
    ruleset = nat_ruleset(Port(Role.DUT, "wan"), lab.client_address)
    assert f"th dport {first}-{last} dnat to 198.18.1.2" in ruleset


@pytest.mark.parametrize(
    ("topology", "target"),
    [(Topology.ROUTER, "198.18.1.2"), (Topology.BRIDGE, "198.18.1.2")],
)
def test_in_without_nat_goes_to_the_lab_clients_own_address(
    topology: Topology, target: str
) -> None:
    lab = _lab(topology)
    assert lab.port_forward is None
    [inward] = lab_legs(lab)["in"]
    assert (inward.target, inward.port) == (target, DOWN_PORT)
    assert inward.target == lab.client_address


def test_each_leg_between_real_hosts_says_who_sends_to_whom_where() -> None:
    laptop, workstation = LocalHost("laptop"), LocalHost("workstation")
    legs = real_legs(laptop, workstation, client_address="10.0.0.2", server_address="10.0.0.3")
    [up] = legs["up"]
    assert (up.sender, up.receiver, up.target, up.port) == (laptop, workstation, "10.0.0.3", 5800)
    [down] = legs["down"]
    assert (down.sender, down.receiver, down.target, down.port) == (
        workstation, laptop, "10.0.0.2", 5801,
    )  # fmt: skip
    assert not up.counted and up.share == 1.0  # a real host's counters count more
    # Without the client's address nothing can be sent to it: up and out only.
    assert set(real_legs(laptop, workstation, client_address=None, server_address="x")) == {
        "up",
        "out",
    }
    # Through NAT without it: the port forward named by the client's host name.
    [inward] = real_legs(
        laptop, workstation, client_address=None, server_address="x", nat=NatDut("r4s", "y")
    )["in"]
    assert inward.needs is not None
    assert "at its WAN address y to laptop's address port 5801" in inward.needs


def test_a_server_without_an_address_is_refused_by_its_name() -> None:
    with pytest.raises(UsageError) as refused:
        real_legs(
            LocalHost("laptop"), LocalHost("pc"), client_address="10.0.0.2", server_address=None
        )
    assert str(refused.value) == "host 'pc' has no address for the client to reach"


def test_several_senders_share_the_up_load_each_on_a_port_of_its_own() -> None:
    client, second, third, server = (LocalHost(n) for n in ("a", "b", "c", "server"))
    legs = real_legs(
        client,
        server,
        client_address="10.0.0.2",
        server_address="10.0.0.3",
        senders=(second, third),
    )
    assert set(legs) == {"up", "out"} and legs["up"] == legs["out"]
    assert [(leg.sender, leg.receiver, leg.target, leg.port) for leg in legs["up"]] == [
        (client, server, "10.0.0.3", 5800),
        (second, server, "10.0.0.3", 5802),
        (third, server, "10.0.0.3", 5804),
    ]
    assert [leg.share for leg in legs["up"]] == [1 / 3] * 3
    halves = shared_up((client, second), server, "10.0.0.3")
    assert [leg.share for leg in halves["out"]] == [0.5, 0.5]
