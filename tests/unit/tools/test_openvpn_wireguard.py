"""OpenVPN's and WireGuard's command lines, overheads and logs (captured: tests/fixtures/
tunnels/capture.py runs the real daemons across a lab)."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.model import Proto, TunnelEnds, TunnelKind, TunnelSpec
from wirespeed.tools import openvpn, wireguard

FIXTURES = Path(__file__).parents[2] / "fixtures" / "tunnels"


def log(name: str) -> openvpn.OpenVpnLog:
    return openvpn.parse_log((FIXTURES / name).read_text())


def end(server: bool) -> openvpn.OpenVpnEnd:
    return openvpn.OpenVpnEnd(
        dev="wso12345678",
        local="198.18.9.1" if server else "198.18.9.2",
        peer="198.18.9.2" if server else "198.18.9.1",
        cert=Path("/run/wirespeed/tunnels/x/dut.crt"),
        key=Path("/run/wirespeed/tunnels/x/dut.key"),
        peer_fingerprint="AB:" * 31 + "CD",
        server=server,
        remote=None if server else "198.19.1.1",
    )


def test_without_ovpn_dco_openvpn_says_it_moves_packets_in_userspace() -> None:
    for name in ("openvpn-udp-far.log", "openvpn-udp-near.log", "openvpn-tcp-near.log"):
        found = log(name)
        assert found.ready and found.dco is False and found.error is None
        assert found.dco_note is not None and "ovpn-dco missing" in found.dco_note
        assert found.cipher == "AES-256-GCM" and found.tun_mtu == 1500


def test_fragment_turns_the_offload_off_for_its_own_reason() -> None:
    found = log("openvpn-fragment-far.log")
    assert found.dco is False and found.dco_note == (
        "Note: --fragment disables data channel offload."
    )


def test_the_listening_end_says_when_it_listens_over_udp_and_tcp() -> None:
    assert log("openvpn-udp-far.log").listening and log("openvpn-tcp-far.log").listening
    assert not log("openvpn-udp-near.log").listening  # "link local: (not bound)"


def test_the_big_mtu_variant_shows_in_the_log() -> None:
    assert log("openvpn-mtu-6000-near.log").tun_mtu == 6000


def test_openvpn_2_6_refuses_fragment_0_which_the_argv_never_passes() -> None:
    found = log("openvpn-fragment-0.log")
    assert found.error == "Options error: --fragment needs to be at least 68" and not found.ready
    spec = TunnelSpec(TunnelKind.OPENVPN, fragment=0, tun_mtu=6000, mssfix=0)
    argv = openvpn.end_argv(spec, end(server=True))
    assert "--fragment" not in argv
    assert argv[argv.index("--tun-mtu") + 1] == "6000" and argv[argv.index("--mssfix") + 1] == "0"


def test_openssl_prints_the_fingerprint_openvpn_pins() -> None:
    text = (FIXTURES / "openssl-fingerprint.txt").read_text()
    fingerprint = openvpn.parse_fingerprint(text)
    assert len(fingerprint) == 95 and fingerprint.count(":") == 31
    with pytest.raises(ValueError, match="no SHA-256 fingerprint"):
        openvpn.parse_fingerprint("Could not read certificate")


def test_the_command_line_names_key_files_never_keys() -> None:
    listening = openvpn.end_argv(TunnelSpec(TunnelKind.OPENVPN), end(server=True))
    connecting = openvpn.end_argv(
        TunnelSpec(TunnelKind.OPENVPN, proto=Proto.TCP, cipher="CHACHA20-POLY1305"),
        end(server=False),
    )
    assert listening[listening.index("--key") + 1] == "/run/wirespeed/tunnels/x/dut.key"
    assert "--secret" not in listening and "--tls-server" in listening
    assert listening[listening.index("--proto") + 1] == "udp"
    assert connecting[connecting.index("--proto") + 1] == "tcp-client"
    assert connecting[connecting.index("--remote") + 1 :][:2] == ["198.19.1.1", "1194"]
    assert connecting[connecting.index("--data-ciphers") + 1] == "CHACHA20-POLY1305"
    with pytest.raises(ValueError, match="listening end's address"):
        openvpn.end_argv(TunnelSpec(TunnelKind.OPENVPN), openvpn.OpenVpnEnd(
            **{**end(server=False).__dict__, "remote": None}))  # fmt: skip


def test_each_packet_gains_the_encapsulation_of_its_options() -> None:
    assert openvpn.overhead(TunnelSpec(TunnelKind.OPENVPN)) == 24  # DATA_V2 + AEAD tag
    assert openvpn.overhead(TunnelSpec(TunnelKind.OPENVPN, fragment=1300)) == 28
    assert openvpn.overhead(TunnelSpec(TunnelKind.OPENVPN, proto=Proto.TCP)) == 26
    assert openvpn.mssfix(TunnelSpec(TunnelKind.OPENVPN)) == 1492
    assert openvpn.mssfix(TunnelSpec(TunnelKind.OPENVPN, mssfix=0)) == 0
    assert wireguard.OVERHEAD_IPV4 == 20 + 8 + wireguard.ENCAPSULATION == 60


def test_wireguard_reads_its_private_key_from_a_file() -> None:
    listening = wireguard.WireGuardEnd(
        dev="wsw1", private_key=Path("/run/k/dut.key"), peer_public_key="PUB=",
        allowed_ips=("198.18.9.2/32",), listen=True,
    )  # fmt: skip
    connecting = wireguard.WireGuardEnd(
        dev="wsw2", private_key=Path("/run/k/client.key"), peer_public_key="PUB=",
        allowed_ips=("198.18.9.0/24", "198.19.1.2/32"), listen=False, endpoint="198.18.1.1",
    )  # fmt: skip
    assert wireguard.set_argv(listening) == [
        "wg", "set", "wsw1", "private-key", "/run/k/dut.key", "listen-port", "51820",
        "peer", "PUB=", "allowed-ips", "198.18.9.2/32",
    ]  # fmt: skip
    argv = wireguard.set_argv(connecting)
    assert argv[argv.index("endpoint") + 1] == "198.18.1.1:51820"
    assert argv[argv.index("allowed-ips") + 1] == "198.18.9.0/24,198.19.1.2/32"
    assert wireguard.kernel_argv("wg0") == ["ip", "link", "add", "dev", "wg0", "type", "wireguard"]
    assert wireguard.socket_path("wsw1") == Path("/var/run/wireguard/wsw1.sock")


def test_a_tunnel_spec_refuses_options_of_the_other_kind() -> None:
    with pytest.raises(ValueError, match="OpenVPN's options"):
        TunnelSpec(TunnelKind.WIREGUARD, mssfix=0)
    with pytest.raises(ValueError, match="UDP only"):
        TunnelSpec(TunnelKind.WIREGUARD, TunnelEnds.THROUGH, proto=Proto.TCP)
