"""Which address each direction of a search between real hosts goes to: through a real
NAT router, `in` is sent to the router's WAN address (its port forward passes it on),
never to the client's own address, which the outside has no route to."""

from __future__ import annotations

from wirespeed.hosts.local import LocalHost
from wirespeed.run.search_legs import DOWN_PORT, NatDut, real_legs


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
