"""A path's `tunnel:` and a variant's tunnel options: what a plan accepts, and every
combination that cannot work refused at its line with what to do instead."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.model import Proto, Topology, TunnelEnds, TunnelKind, TunnelSpec
from wirespeed.plan import PlanError, parse_plan
from wirespeed.plan.expand import expand
from wirespeed.store.codec import decode_path, encode_path


def plan_of(text: str):  # type: ignore[no-untyped-def]
    return parse_plan(textwrap.dedent(text), source="plan.yaml")


def problems_of(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        plan_of(text)
    return [f"{p.line}:{p.column}: {p.message} | {p.hint}" for p in caught.value.problems]


def lab_plan(tunnel: str, topology: str = "router", extra: str = "") -> str:
    return (
        "lab: {link: fe}\n"
        f"paths: [{{name: VPN, topology: {topology}, tunnel: {tunnel}}}]\n"
        "tests: [{id: 1}]\n" + extra
    )


def test_a_lab_path_through_openvpn_and_one_through_wireguard() -> None:
    plan = plan_of(
        """
        lab: {link: fe}
        paths:
          - {name: O, topology: endpoint, tunnel: {kind: OpenVPN, tun_mtu: 6000, mssfix: 0,
             cipher: aes-128-gcm}}
          - {name: W, topology: nat, tunnel: {kind: wireguard, ends: through}}
          - {name: T, topology: bridge, tunnel: {kind: openvpn, ends: through, proto: tcp}}
        tests: [{id: 1}]
        """
    )
    tunnels = {path.name: path.tunnel for path in plan.paths}
    assert tunnels == {
        "O": TunnelSpec(TunnelKind.OPENVPN, TunnelEnds.DUT, 6000, None, 0, "AES-128-GCM"),
        "W": TunnelSpec(TunnelKind.WIREGUARD, TunnelEnds.THROUGH),
        "T": TunnelSpec(TunnelKind.OPENVPN, TunnelEnds.THROUGH, proto=Proto.TCP),
    }


def test_the_placements_that_cannot_work_are_refused_at_ends() -> None:
    (bridge,) = problems_of(lab_plan("{kind: openvpn, ends: dut}", "bridge"))
    # At the value of ends: (column 69 of line 2)
    assert bridge.startswith("2:69: path 'VPN': a bridge DUT routes nothing")
    assert "ends: through" in bridge
    (endpoint,) = problems_of(lab_plan("{kind: wireguard, ends: through}", "endpoint"))
    assert endpoint.startswith("2:73: path 'VPN': an endpoint path has no server beyond")


@pytest.mark.parametrize(
    ("tunnel", "key", "says"),
    [
        ("{kind: wireguard, mssfix: 0}", "mssfix", "mssfix is an OpenVPN option"),
        ("{kind: wireguard, fragment: 1300}", "fragment", "fragment is an OpenVPN option"),
        ("{kind: wireguard, cipher: aes-256-gcm}", "cipher", "cipher is an OpenVPN option"),
        ("{kind: wireguard, proto: tcp}", "proto", "WireGuard runs over UDP only"),
        ("{kind: openvpn, fragment: 10}", "fragment", "refuses --fragment below 68"),
        ("{kind: openvpn, proto: tcp, fragment: 1300}", "fragment", "works over UDP only"),
    ],
)
def test_options_a_tunnel_cannot_take_are_refused_at_their_key(
    tunnel: str, key: str, says: str
) -> None:
    (problem,) = problems_of(lab_plan(tunnel))
    line_text = lab_plan(tunnel).splitlines()[1]
    column = line_text.index(f"{key}: ") + len(key) + 3  # the key's value
    assert problem.startswith(f"2:{column}: path 'VPN': ") and says in problem


def test_schema_errors_name_the_choices() -> None:
    (cipher,) = problems_of(lab_plan("{kind: openvpn, cipher: bf-cbc}"))
    assert "not an AEAD data channel cipher" in cipher and "CHACHA20-POLY1305" in cipher
    (kind,) = problems_of(lab_plan("{kind: ipsec}"))
    assert "openvpn" in kind and "wireguard" in kind
    (typo,) = problems_of(lab_plan("{kind: openvpn, tunmtu: 6000}"))
    assert "tunmtu" in typo


def test_real_hosts_take_a_tunnel_to_the_dut_of_an_endpoint_path_and_through_the_dut() -> None:
    plan = parse_plan(
        textwrap.dedent("""
        hosts:
          pc: {ssh: root@192.168.1.50}
          r4s: {ssh: root@192.168.1.1}
          srv: {ssh: root@10.0.0.2}
        paths:
          - {name: W, topology: nat, client: pc, server: srv, dut: r4s,
             tunnel: {kind: wireguard, ends: through}}
          - {name: O, topology: endpoint, client: pc, server: r4s, tunnel: {kind: openvpn}}
        tests: [{id: 1}]
        """)
    )
    through, to_dut = (path.tunnel for path in plan.paths)
    assert through is not None and through.kind is TunnelKind.WIREGUARD
    assert through.ends is TunnelEnds.THROUGH
    assert to_dut is not None and to_dut.ends is TunnelEnds.DUT


def test_a_real_server_behind_a_dut_that_ends_the_tunnel_is_refused_with_what_works() -> None:
    text = """
    hosts: {pc: {}, r4s: {ssh: root@192.168.1.1}, srv: {ssh: root@192.168.2.2}}
    paths:
      - {name: W, topology: router, client: pc, server: srv, dut: r4s, tunnel: {kind: wireguard}}
    tests: [{id: 1}]
    """
    (problem,) = problems_of(text)
    assert problem.startswith("4:76: path 'W': between real hosts a tunnel ends at the DUT")
    assert "topology: endpoint" in problem and "ends: through" in problem


def test_a_port_of_this_machine_cannot_hold_a_tunnel_end() -> None:
    text = """
    hosts:
      a: {port: veth-a, address: 192.168.1.50/24}
      srv: {ssh: root@10.0.0.2}
    paths:
      - {name: T, topology: nat, client: a, server: srv, tunnel: {kind: openvpn, ends: through}}
    tests: [{id: 1}]
    """
    (problem,) = problems_of(text)
    assert "the tunnel's client end is 'a', a port of this machine" in problem
    assert "ssh:" in problem


def test_a_device_path_has_no_traffic_to_tunnel() -> None:
    (problem,) = problems_of(
        "lab: {}\npaths: [{name: D, topology: device, tunnel: {kind: openvpn}}]\n"
        "tests: [{id: 1, tool: openssl}]\n"
    )
    assert "device path: no traffic goes through a tunnel" in problem


def test_a_forwarding_search_through_a_tunnel_is_refused() -> None:
    problems = problems_of(
        "lab: {}\npaths: [{name: V, topology: router, tunnel: {kind: openvpn}}]\n"
        "tests: [{id: f, tool: forwarding}]\n"
    )
    assert any("cannot run through the tunnel of path 'V'" in p for p in problems)


def test_a_variant_sets_tunnel_options_and_the_trials_carry_them() -> None:
    plan = plan_of(
        """
        lab: {link: fe}
        paths:
          - {name: O, topology: endpoint, tunnel: {kind: openvpn}}
          - {name: W, topology: endpoint, tunnel: {kind: wireguard}}
        tests: [{id: 1}]
        variants:
          - {name: default}
          - {name: big, tunnel: {tun_mtu: 6000, fragment: 0, mssfix: 0}}
        """
    )
    assert plan.variant("big").state() == {"tunnel": {"tun_mtu": 6000, "fragment": 0, "mssfix": 0}}
    tunnels = {(t.path.name, t.variant): t.path.tunnel for t in expand(plan)}
    assert tunnels[("O", "default")] == TunnelSpec(TunnelKind.OPENVPN)
    assert tunnels[("O", "big")] == TunnelSpec(TunnelKind.OPENVPN, tun_mtu=6000, fragment=0,
                                               mssfix=0)  # fmt: skip
    # OpenVPN's own options leave the WireGuard path as it is; tun_mtu applies to both.
    assert tunnels[("W", "big")] == TunnelSpec(TunnelKind.WIREGUARD, tun_mtu=6000)


def test_a_variant_cannot_make_a_tunnel_impossible() -> None:
    problems = problems_of(
        """
        lab: {}
        paths: [{name: O, topology: router, tunnel: {kind: openvpn}}]
        tests: [{id: 1}]
        variants: [{name: a}, {name: b, tunnel: {proto: tcp, fragment: 1300}}]
        """
    )
    assert problems == [
        "5:64: variant 'b' on path 'O': OpenVPN's --fragment works over UDP only | "
        "leave fragment out with proto: tcp (TCP carries packets of any size)"
    ]
    (none,) = problems_of(
        "lab: {}\npaths: [{name: P, topology: router}]\ntests: [{id: 1}]\n"
        "variants: [{name: a}, {name: b, tunnel: {tun_mtu: 6000}}]\n"
    )
    assert "sets tunnel options, and no path has a tunnel" in none


def test_iperf2_datagrams_that_the_tunnel_splits_are_a_warning() -> None:
    udp = "tests: [{id: 1, tool: iperf2, protocol: udp, rate: 90M}]"
    plan = plan_of(lab_plan("{kind: wireguard}", "router").replace("tests: [{id: 1}]", udp))
    (warning,) = [w for w in plan.warnings if "tunnel" in w.message]
    assert "1470 bytes do not fit the tunnel of path 'VPN' (MTU 1420, at most 1392)" in (
        warning.message
    )


def test_a_stored_path_keeps_its_tunnel() -> None:
    plan = plan_of(lab_plan("{kind: openvpn, ends: through, proto: tcp, tun_mtu: 9000}", "nat"))
    (path,) = plan.paths
    assert path.topology is Topology.NAT
    assert decode_path(encode_path(path)) == path
    plain = plan_of("lab: {}\npaths: [{name: P, topology: router}]\ntests: [{id: 1}]\n").paths[0]
    assert "tunnel" not in encode_path(plain)  # runs without tunnels store what they did
