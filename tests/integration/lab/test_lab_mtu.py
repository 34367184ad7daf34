"""set_mtu reaches every lab interface and the shapers follow."""

from __future__ import annotations

import pytest
from lab_helpers import MakeLab, iperf3

from wirespeed.hosts.netns import NetnsHost
from wirespeed.lab.record import load
from wirespeed.lab.shaping import tbf_params
from wirespeed.lab.topology import Infra
from wirespeed.model import Role, Topology

pytestmark = pytest.mark.root


def _mtu(lab_host_output: str) -> int:
    words = lab_host_output.split()
    return int(words[words.index("mtu") + 1])


def test_set_mtu_changes_every_link_and_tcp_still_flows(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.BRIDGE, "gbe")
    lab.set_mtu(512)
    for node, interfaces in (
        (Role.CLIENT, ["eth0"]),
        (Role.DUT, ["lan", "wan", "br0"]),
        (Role.SERVER, ["eth0"]),
    ):
        for interface in interfaces:
            shown = lab.hosts[node].run(["ip", "-o", "link", "show", "dev", interface]).stdout
            assert _mtu(shown) == 512, (node, interface, shown)
    qdisc = lab.hosts[Role.DUT].run(["tc", "qdisc", "show", "dev", "wan"]).stdout
    assert "tbf" in qdisc and "overhead 24" in qdisc
    assert lab.mtu == 512
    record = load(lab.name)
    assert record is not None and record.mtu == 512
    run = iperf3(lab, 15601, 1)
    assert run.received_mbit > 100
    assert run.client["start"]["tcp_mss_default"] <= 512 - 40


def test_set_mtu_reaches_the_endpoint_switch(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ENDPOINT, "gbe")
    lab.set_mtu(512)
    switch = NetnsHost(lab.namespaces[Infra.SWITCH])
    for host, interfaces in (
        (lab.hosts[Role.CLIENT], ["eth0"]),
        (switch, ["client", "dut", "br0"]),
        (lab.hosts[Role.DUT], ["wan"]),
    ):
        for interface in interfaces:
            shown = host.run(["ip", "-o", "link", "show", "dev", interface]).stdout
            assert _mtu(shown) == 512, (host.name, interface, shown)
    qdisc = switch.run(["tc", "qdisc", "show", "dev", "dut"]).stdout
    assert "tbf" in qdisc and f"burst {tbf_params(1_000_000_000, 512).burst_bytes}b" in qdisc
    run = iperf3(lab, 15603, 1)
    assert run.received_mbit > 100
    assert run.client["start"]["tcp_mss_default"] <= 512 - 40


def test_a_link_model_mtu_is_set_at_build(make_lab: MakeLab) -> None:
    lab = make_lab(Topology.ROUTER, "fe", mtu=9000)
    shown = lab.hosts[Role.DUT].run(["ip", "-o", "link", "show", "dev", "lan"]).stdout
    assert _mtu(shown) == 9000
    # The bucket holds two jumbo frames, or tbf would drop every one of them.
    assert tbf_params(100_000_000, 9000).burst_bytes >= 2 * (9000 + 38)
    assert iperf3(lab, 15602, 1).received_mbit > 50
