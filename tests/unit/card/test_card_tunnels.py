"""The card's VPN part on a real bench: WireGuard and OpenVPN from the routed path's
client to its server across the DUT, each only where both ends have its tools, else
left out with the package to install there."""

from __future__ import annotations

from pathlib import Path

from wirespeed.card.availability import TunnelEnd, bench_skips, tunnel_skips
from wirespeed.card.plan_text import CardOptions, card_marker, card_plan
from wirespeed.card.target import CardBench, Ends, LabOptions, card_bench
from wirespeed.model import TunnelEnds, TunnelKind

EVERYTHING = {"openvpn", "wg", "ip", "wireguard-go"}


def plan_bench(tmp_path: Path) -> CardBench:
    plan_file = tmp_path / "bench.yaml"
    plan_file.write_text(
        "hosts:\n"
        "  laptop: {ssh: root@pc}\n"
        "  far: {ssh: root@10.0.0.2}\n"
        "  r4s: {ssh: root@192.168.2.1}\n"
        "paths:\n"
        "  - {name: routed, topology: nat, client: laptop, server: far, dut: r4s, link: gbe}\n"
        "tests: [{id: t}]\n"
    )
    return card_bench(str(plan_file), LabOptions(), Ends())


def end(where: str, programs: set[str], *, module: bool = False) -> TunnelEnd:
    return TunnelEnd(where, programs.__contains__, module)


def test_a_bench_with_the_tools_runs_both_tunnels_across_the_device(tmp_path: Path) -> None:
    bench = plan_bench(tmp_path)
    assert bench.builds_tunnels and bench.tunnel_ends == ("laptop", "far")
    skips = bench_skips(bench) | tunnel_skips(
        [end("laptop (root@pc)", EVERYTHING), end("far (root@10.0.0.2)", EVERYTHING)],
        openssl_here=True,
    )
    assert skips == {}
    plan = card_plan(bench, CardOptions(skipped=skips))
    assert [p.name for p in plan.paths] == ["routed", "WireGuard", "OpenVPN", "DUT"]
    for path, kind in zip(plan.paths[1:3], (TunnelKind.WIREGUARD, TunnelKind.OPENVPN), strict=True):
        assert path.tunnel is not None and path.tunnel.kind is kind
        assert path.tunnel.ends is TunnelEnds.THROUGH
        assert (path.client, path.server, path.dut) == ("laptop", "far", "r4s")
        assert path.link is not None and path.link.rate_bps == 1_000_000_000
    vpn = next(t for t in plan.tests if t.id == "vpn")
    assert [p.name for p in plan.paths_for(vpn)] == ["WireGuard", "OpenVPN"]


def test_a_tunnel_an_end_cannot_build_is_skipped_naming_the_package(tmp_path: Path) -> None:
    bench = plan_bench(tmp_path)
    # The far end has OpenVPN only; WireGuard's kernel module stands in for wireguard-go.
    skips = tunnel_skips(
        [
            end("laptop (root@pc)", {"openvpn", "wg", "ip"}, module=True),
            end("far (root@10.0.0.2)", {"openvpn", "ip"}),
        ],
        openssl_here=True,
    )
    assert set(skips) == {"WireGuard"}
    assert "wg is not installed on far (root@10.0.0.2)" in skips["WireGuard"]
    assert "opkg install wireguard-tools" in skips["WireGuard"]
    plan = card_plan(bench, CardOptions(skipped=skips))
    assert [p.name for p in plan.paths] == ["routed", "OpenVPN", "DUT"]
    assert (card_marker(plan.text) or {})["skipped"] == skips


def test_without_any_tunnel_tool_the_vpn_part_has_no_test(tmp_path: Path) -> None:
    bench = plan_bench(tmp_path)
    skips = tunnel_skips(
        [end("laptop (this machine)", {"ip", "wg"}), end("far (root@10.0.0.2)", EVERYTHING)],
        openssl_here=True,
    )
    assert set(skips) == {"WireGuard", "OpenVPN"}
    assert "nor WireGuard's kernel module" in skips["WireGuard"]
    assert "kmod-wireguard" in skips["WireGuard"] and "wireguard-go" in skips["WireGuard"]
    assert "apt-get install openvpn" in skips["OpenVPN"] and "openvpn-openssl" in skips["OpenVPN"]
    plan = card_plan(bench, CardOptions(skipped=skips))
    assert "vpn" not in [t.id for t in plan.tests]
    assert [p.name for p in plan.paths] == ["routed", "DUT"]
    no_keys = tunnel_skips([end("laptop (root@pc)", EVERYTHING)], openssl_here=False)
    assert set(no_keys) == {"OpenVPN"} and "openssl" in no_keys["OpenVPN"]


def test_the_lab_keeps_its_own_tunnels_to_the_dut() -> None:
    bench = card_bench("lab", LabOptions(), Ends())
    assert bench.builds_tunnels and bench.tunnel_ends is None
    plan = card_plan(bench, CardOptions())
    tunnels = [p for p in plan.paths if p.tunnel is not None]
    assert [p.tunnel.ends for p in tunnels if p.tunnel] == [TunnelEnds.DUT, TunnelEnds.DUT]


def test_a_device_between_two_ends_runs_tunnels_across_it() -> None:
    ends = Ends(client="here", server="root@10.0.0.2", link="gbe")
    bench = card_bench("root@192.168.1.1", LabOptions(), ends)
    assert bench.tunnel_ends == ("client", "server") and "vpn" not in bench_skips(bench)
    alone = card_bench("root@192.168.1.1", LabOptions(), Ends())
    assert alone.tunnel_ends is None and "--client and --server" in bench_skips(alone)["vpn"]


def test_a_bench_of_this_machine_s_ports_builds_no_tunnel(tmp_path: Path) -> None:
    plan_file = tmp_path / "ports.yaml"
    plan_file.write_text(
        "hosts:\n"
        "  lan-side: {port: enp3s0, address: 192.168.1.50/24, gateway: 192.168.1.1}\n"
        "  wan-side: {port: enp4s0, address: 10.0.0.2/24, gateway: 10.0.0.1}\n"
        "  router: {ssh: root@192.168.1.1}\n"
        "paths:\n"
        "  - {name: routed, topology: nat, client: lan-side, server: wan-side, dut: router,\n"
        "     link: gbe}\n"
        "tests: [{id: t}]\n"
    )
    bench = card_bench(str(plan_file), LabOptions(), Ends())
    assert not bench.builds_tunnels and bench.tunnel_ends is None
    skips = bench_skips(bench)
    assert "lan-side is a port of this machine" in skips["vpn"]
    plan = card_plan(bench, CardOptions(skipped=skips))
    assert "vpn" not in [t.id for t in plan.tests]
