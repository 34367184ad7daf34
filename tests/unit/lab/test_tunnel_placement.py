"""Where a lab tunnel ends and what the client sends into it, by topology; the device
names every cleanup can find again without a record."""

from __future__ import annotations

import pytest

from wirespeed.errors import UsageError
from wirespeed.lab.naming import namespace_name
from wirespeed.lab.topology import plan_for
from wirespeed.lab.tunnel import device_name, placement_for
from wirespeed.model import Role, Topology, TunnelEnds, TunnelKind, TunnelSpec

TO_DUT = TunnelSpec(TunnelKind.OPENVPN, TunnelEnds.DUT)
THROUGH = TunnelSpec(TunnelKind.WIREGUARD, TunnelEnds.THROUGH)


def test_to_an_endpoint_dut_the_server_is_the_dut_at_its_tunnel_address() -> None:
    placed = placement_for(plan_for(Topology.ENDPOINT), TO_DUT)
    assert (placed.near, placed.far, placed.far_outer) == (Role.CLIENT, Role.DUT, "198.19.1.1")
    assert placed.target == "198.18.9.1" and placed.routed == () and placed.return_routes == ()


def test_a_router_as_vpn_gateway_forwards_to_the_server_and_gets_its_replies_back() -> None:
    placed = placement_for(plan_for(Topology.ROUTER), TO_DUT)
    assert placed.far_outer == "198.18.1.1"  # the DUT's LAN address, where the client is
    assert placed.target == "198.19.1.2" and placed.routed == ("198.19.1.2/32",)
    assert placed.return_routes == ((Role.SERVER, "198.18.9.0/24", "198.19.1.1"),)


def test_behind_nat_the_dut_masquerades_the_tunnel_so_the_server_needs_no_route() -> None:
    placed = placement_for(plan_for(Topology.NAT), TO_DUT)
    assert placed.target == "198.19.1.2" and placed.return_routes == ()


@pytest.mark.parametrize("topology", [Topology.BRIDGE, Topology.ROUTER, Topology.NAT], ids=str)
def test_through_the_dut_the_tunnel_runs_from_client_to_server(topology: Topology) -> None:
    plan = plan_for(topology)
    placed = placement_for(plan, THROUGH)
    assert (placed.far, placed.far_outer) == (Role.SERVER, plan.server_address)
    assert placed.target == "198.18.9.1"


def test_what_cannot_work_is_a_usage_error_with_what_to_use() -> None:
    with pytest.raises(UsageError, match="bridge DUT routes nothing") as bridge:
        placement_for(plan_for(Topology.BRIDGE), TO_DUT)
    assert bridge.value.hint is not None and "ends: through" in bridge.value.hint
    with pytest.raises(UsageError, match="no server beyond its DUT"):
        placement_for(plan_for(Topology.ENDPOINT), THROUGH)


def test_device_names_fit_the_kernel_and_differ_per_namespace_and_kind() -> None:
    names = {
        device_name(kind, namespace_name(lab, role))
        for kind in TunnelKind
        for lab in ("router", "a-much-longer-lab-name-2")
        for role in Role
    }
    assert len(names) == 2 * 2 * 3
    assert all(len(name) <= 15 for name in names)  # IFNAMSIZ - 1
    assert device_name(TunnelKind.WIREGUARD, "ns") == device_name(TunnelKind.WIREGUARD, "ns")
