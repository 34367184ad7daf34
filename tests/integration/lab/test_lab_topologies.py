"""Each topology comes up, carries TCP from client to server, and is what it claims."""

from __future__ import annotations

import pytest
from lab_helpers import MakeLab, iperf3

from wirespeed.hosts.netns import NetnsHost
from wirespeed.lab.lab import attach, lab_status
from wirespeed.lab.topology import Infra
from wirespeed.model import Role, Topology

pytestmark = pytest.mark.root


@pytest.mark.parametrize("topology", list(Topology))
def test_the_client_reaches_the_server_with_iperf3(make_lab: MakeLab, topology: Topology) -> None:
    lab = make_lab(topology)
    run = iperf3(lab, 15401, 1)
    assert run.received_mbit > 10
    assert set(lab.hosts) == set(Role)
    assert all(isinstance(host, NetnsHost) for host in lab.hosts.values())


def test_in_the_endpoint_topology_the_dut_runs_the_server(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ENDPOINT)
    assert lab.hosts[Role.SERVER].namespace == lab.hosts[Role.DUT].namespace
    assert lab.server_address == "198.19.1.1"
    assert lab.addresses[Role.CLIENT] == {"eth0": "198.19.1.2"}


def test_in_the_endpoint_topology_a_switch_bridges_client_and_dut(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ENDPOINT, "fe")
    switch = NetnsHost(lab.namespaces[Infra.SWITCH])
    assert switch.namespace not in {host.namespace for host in lab.hosts.values()}
    links = switch.run(["ip", "-o", "link", "show", "master", "br0"]).stdout
    assert " client@" in links and " dut@" in links
    assert "tbf" in switch.run(["tc", "qdisc", "show", "dev", "dut"]).stdout
    assert "generic-receive-offload: off" in switch.run(["ethtool", "-k", "client"]).stdout
    info = next(info for info in lab_status() if info.name == lab.name)
    assert switch.namespace in info.namespaces
    assert info.complete
    assert info.addresses[switch.namespace] == {"client": (), "dut": (), "br0": ()}


def test_a_router_lets_the_server_see_the_client_address(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ROUTER)
    run = iperf3(lab, 15402, 1)
    assert run.source_seen_by_server == lab.client_address == "198.18.1.2"


def test_nat_masquerades_the_client_behind_the_dut_wan_address(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.NAT)
    run = iperf3(lab, 15403, 1, "-R")
    assert run.source_seen_by_server == lab.addresses[Role.DUT]["wan"] == "198.19.1.1"
    # Without NAT there would be no way back: the server knows no route to the LAN.
    routes = lab.hosts[Role.SERVER].run(["ip", "route", "show"]).stdout
    assert "198.18." not in routes
    assert "default" not in routes


def test_a_bridge_puts_both_ports_into_br0(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.BRIDGE)
    links = lab.hosts[Role.DUT].run(["ip", "-o", "link", "show", "master", "br0"]).stdout
    assert " lan@" in links and " wan@" in links
    assert lab.addresses[Role.DUT] == {"br0": "198.18.1.1"}


def test_another_process_can_attach_to_a_lab_and_list_it(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.NAT, "fe")
    attached = attach(lab.name)
    assert attached is not None
    assert attached.spec == lab.spec
    assert attached.server_address == lab.server_address
    info = next(info for info in lab_status() if info.name == lab.name)
    assert info.complete
    assert info.topology is Topology.NAT
    assert info.link == lab.spec.link
    server_namespace = lab.namespaces[Role.SERVER]
    assert info.addresses[server_namespace] == {"eth0": ("198.19.1.2/24",)}
