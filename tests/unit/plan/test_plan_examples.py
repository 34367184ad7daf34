"""The example plans load, and mean what the seeds' posts meant."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.model import Direction, Proto, Tool, Topology
from wirespeed.plan import load_plan

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@pytest.mark.parametrize(
    "name",
    [
        "seed-matrix.yaml",
        "mtu-matrix.yaml",
        "real-devices.yaml",
        "vpn-tunnels.yaml",
        "two-ports.yaml",
    ],
)
def test_every_example_loads_without_warnings(name: str) -> None:
    plan = load_plan(EXAMPLES / name)
    assert plan.warnings == ()
    assert plan.source.endswith(name)
    assert plan.text == (EXAMPLES / name).read_text(encoding="utf-8")


def test_the_seed_matrix_is_the_six_tests_of_the_r4s_post_on_wan_and_br0() -> None:
    plan = load_plan(EXAMPLES / "seed-matrix.yaml")
    assert [test.id for test in plan.tests] == ["1", "2", "3", "4", "5", "6"]
    assert {test.tool for test in plan.tests} == {Tool.IPERF2}
    assert [(p.name, p.topology) for p in plan.paths] == [
        ("WAN", Topology.ENDPOINT),
        ("Br0", Topology.BRIDGE),
    ]
    assert plan.lab is not None
    assert plan.lab.link.rate_bps == 1_000_000_000
    windows = [test.spec.window for test in plan.tests]
    assert windows == [None, 65536, 131072, None, None, None]
    dual = plan.test("4").spec
    assert (dual.direction, dual.parallel) == (Direction.DUAL, 2)
    udp = plan.test("6").spec
    assert (udp.protocol, udp.rate, udp.direction) == (Proto.UDP, 10**9, Direction.DUAL)
    assert all(test.spec.duration == 10 for test in plan.tests)


def test_a_lab_path_uses_the_role_names_and_the_labs_link() -> None:
    plan = load_plan(EXAMPLES / "seed-matrix.yaml")
    wan, br0 = plan.paths
    # On an endpoint path the DUT itself runs the iperf server.
    assert (wan.client, wan.server, wan.dut) == ("client", "dut", "dut")
    assert (br0.client, br0.server, br0.dut) == ("client", "server", "dut")
    assert wan.link is not None and plan.lab is not None
    assert wan.link == br0.link == plan.lab.link


def test_the_mtu_matrix_runs_dual_tests_at_mtu_1500_and_512_default_and_tuned() -> None:
    plan = load_plan(EXAMPLES / "mtu-matrix.yaml")
    assert [p.topology for p in plan.paths] == [Topology.ROUTER]
    assert [(t.id, t.spec.protocol, t.spec.mtu) for t in plan.tests] == [
        ("tcp", Proto.TCP, None),
        ("udp", Proto.UDP, None),
    ]
    assert {t.spec.direction for t in plan.tests} == {Direction.DUAL}
    assert plan.test("udp").spec.length == 512 - 28  # fits one packet at both MTUs
    assert [(v.name, v.mtu, v.rps) for v in plan.variants] == [
        ("default", None, None),
        ("tuned", None, "spread"),
        ("mtu512", 512, None),
        ("mtu512-tuned", 512, "spread"),
    ]
    assert plan.warnings == ()


def test_real_devices_name_hosts_reached_over_ssh() -> None:
    plan = load_plan(EXAMPLES / "real-devices.yaml")
    r4s = plan.hosts["r4s"]
    assert r4s.ssh is not None
    assert (r4s.ssh.user, r4s.ssh.host, r4s.ssh.port) == ("root", "192.168.2.1", 22)
    assert r4s.traffic_address == "192.168.0.62"
    assert plan.hosts["laptop"].is_local
    wan = next(p for p in plan.paths if p.name == "WAN")
    assert (wan.client, wan.server, wan.dut) == ("workstation", "r4s", "r4s")
    assert wan.link is not None and wan.link.rate_bps == 10**9


def test_real_devices_keep_dual_tests_off_the_nat_path() -> None:
    plan = load_plan(EXAMPLES / "real-devices.yaml")
    br0 = next(p for p in plan.paths if p.name == "Br0")
    assert br0.topology is Topology.NAT
    on_br0 = {test.id: test.spec.direction for test in plan.tests_for(br0)}
    assert Direction.DUAL not in on_br0.values()
    assert on_br0["4f"] is Direction.BIDIR


def test_the_vpn_plan_is_seed_004s_openvpn_table_as_an_a_b_beside_wireguard() -> None:
    plan = load_plan(EXAMPLES / "vpn-tunnels.yaml")
    tunnels = {path.name: path.tunnel for path in plan.paths}
    assert {name: (t.kind.value, t.ends.value) for name, t in tunnels.items() if t} == {
        "OpenVPN": ("openvpn", "dut"),
        "WireGuard": ("wireguard", "dut"),
    }
    assert all(path.topology is Topology.ENDPOINT for path in plan.paths)
    assert [test.spec.protocol for test in plan.tests] == [Proto.UDP, Proto.TCP]
    assert [variant.name for variant in plan.variants] == ["default", "tun-mtu-6000"]
    assert plan.variant("tun-mtu-6000").state() == {
        "tunnel": {"tun_mtu": 6000, "fragment": 0, "mssfix": 0}
    }
    assert plan.repetitions >= 3  # an A/B needs repetitions for its interval
