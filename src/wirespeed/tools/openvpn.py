"""OpenVPN 2.6 as a path's tunnel: argv for both ends, its per-packet overhead, its log.

    identity_argv(directory, "client")   # a per-run self-signed certificate and key
    parse_fingerprint(openssl_output)    # "AB:CD:..." of that certificate
    end_argv(spec, end)                  # openvpn's argv for one end of the tunnel
    overhead(spec)                       # bytes each tunnelled packet gains
    parse_log(text) -> OpenVpnLog        # ready? cipher, tun MTU, DCO, the fatal error

Authentication: TLS with a self-signed certificate per end, made with openssl for each
run, each end pinning the other's SHA-256 fingerprint (`--peer-fingerprint`, OpenVPN
2.6). A static key (`--secret`) would be one file less, but 2.6 deprecates it (it needs
`--allow-deprecated-insecure-static-crypto` and 2.7 removes it), it has no perfect
forward secrecy, and it cannot negotiate the AEAD data channel people run: what it
measured would not be the VPN people deploy. The key files live in a private directory of
the run (lab/tunnel.py) and only their paths appear on a command line.

Data channel offload (DCO, the ovpn-dco kernel module) is used when the kernel has it;
without it OpenVPN 2.6 says so in one line of its log and moves every packet through
userspace instead, which is much slower: parse_log reads that line, so a report can
say which of the two was measured.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from wirespeed.model import Proto, TunnelKind, TunnelSpec

__all__ = [
    "AEAD_CIPHERS",
    "DEFAULT_MSSFIX",
    "DEFAULT_TUN_MTU",
    "OpenVpnEnd",
    "OpenVpnLog",
    "end_argv",
    "fingerprint_argv",
    "identity_argv",
    "overhead",
    "parse_fingerprint",
    "parse_log",
]

DEFAULT_TUN_MTU = 1500
# 2.6's default is `--mssfix 1492 mtu`: TCP over the tunnel is clamped so that the
# encrypted packet, outer IP and UDP headers included, is at most 1492 bytes.
DEFAULT_MSSFIX = 1492
PORT = 1194
# The data channel ciphers 2.6 negotiates by default, all AEAD: their per-packet overhead
# is fixed. A CBC cipher's overhead varies with padding and its HMAC: not offered here.
AEAD_CIPHERS = ("AES-256-GCM", "AES-128-GCM", "CHACHA20-POLY1305")

# Per packet, DATA_V2 with an AEAD cipher: opcode + peer id 4, packet id 4, tag 16.
DATA_V2_AEAD = 24
FRAGMENT_HEADER = 4  # --fragment's own header on every packet
TCP_LENGTH_PREFIX = 2  # over TCP each packet is preceded by its length
OUTER_IPV4 = 20
OUTER_UDP = 8


@dataclass(frozen=True)
class OpenVpnEnd:
    """One end of the tunnel. The listening end (server=True) waits on PORT; the other
    connects to `remote` (the listening end's outer address)."""

    dev: str  # the tun interface's name
    local: str  # this end's tunnel address
    peer: str  # the other end's tunnel address
    cert: Path
    key: Path
    peer_fingerprint: str  # the other end's certificate, SHA-256, "AB:CD:..."
    server: bool
    remote: str | None = None  # the listening end's outer address (connecting end only)
    port: int = PORT
    # A listening end with several addresses, reached at one that is not on the
    # connecting end's link (a router's WAN address from its LAN): answer from the
    # address each packet came to, or the other end drops the reply as from a stranger.
    multihome: bool = False


def identity_argv(directory: Path, name: str) -> tuple[list[str], Path, Path]:
    """openssl's argv for a self-signed P-256 certificate and key valid for a day, and the
    paths of the certificate and the key it writes."""
    cert, key = directory / f"{name}.crt", directory / f"{name}.key"
    argv = [
        "openssl", "req", "-x509", "-newkey", "ec",
        "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
        "-keyout", str(key), "-out", str(cert), "-days", "1",
        "-subj", f"/CN=wirespeed-{name}",
    ]  # fmt: skip
    return argv, cert, key


def fingerprint_argv(cert: Path) -> list[str]:
    return ["openssl", "x509", "-in", str(cert), "-noout", "-fingerprint", "-sha256"]


_FINGERPRINT = re.compile(r"(?:[0-9A-F]{2}:){31}[0-9A-F]{2}")


def parse_fingerprint(text: str) -> str:
    """`sha256 Fingerprint=AB:CD:...` (OpenSSL 3) -> "AB:CD:..."; ValueError otherwise."""
    found = _FINGERPRINT.search(text.upper())
    if found is None:
        raise ValueError(f"no SHA-256 fingerprint in openssl's output: {text.strip()[:200]!r}")
    return found.group(0)


def end_argv(spec: TunnelSpec, end: OpenVpnEnd) -> list[str]:
    """openvpn's argv for one end: point to point, TLS with pinned certificates."""
    if spec.kind is not TunnelKind.OPENVPN:
        raise ValueError(f"not an OpenVPN tunnel: {spec.kind}")
    tcp = spec.proto is Proto.TCP
    argv = ["openvpn", "--dev", end.dev, "--dev-type", "tun", "--topology", "p2p"]
    argv += ["--ifconfig", end.local, end.peer]
    argv += ["--cert", str(end.cert), "--key", str(end.key)]
    argv += ["--peer-fingerprint", end.peer_fingerprint]
    if end.server:
        # --dh none: the key exchange is ECDHE, no Diffie-Hellman parameters to make.
        argv += ["--tls-server", "--dh", "none", "--proto", "tcp-server" if tcp else "udp"]
        argv += ["--lport", str(end.port)]
        if end.multihome and not tcp:
            argv.append("--multihome")
    else:
        if end.remote is None:
            raise ValueError("the connecting end needs the listening end's address")
        argv += ["--tls-client", "--proto", "tcp-client" if tcp else "udp"]
        argv += ["--remote", end.remote, str(end.port), "--nobind"]
        # Retry quickly while the listening end is still starting (the default waits 5 s).
        argv += ["--connect-retry", "1", "1"]
    if spec.cipher is not None:
        argv += ["--data-ciphers", spec.cipher]
    if spec.tun_mtu is not None:
        argv += ["--tun-mtu", str(spec.tun_mtu)]
    if spec.mssfix is not None:
        argv += ["--mssfix", str(spec.mssfix)]
    # `--fragment 0` was how older versions (seed 004) said "off", the default; 2.6
    # refuses it (at least 68), so 0 leaves the option out.
    if spec.fragment:
        argv += ["--fragment", str(spec.fragment)]
    # Verbosity 3 logs the DCO decision, the negotiated cipher and the interface's MTU.
    argv += ["--verb", "3", "--ping", "10", "--ping-exit", "60"]
    return argv


def overhead(spec: TunnelSpec) -> int:
    """Bytes each packet gains inside the outer transport's payload (not counting the
    outer IP and UDP/TCP headers)."""
    extra = DATA_V2_AEAD
    if spec.fragment:
        extra += FRAGMENT_HEADER
    if spec.proto is Proto.TCP:
        extra += TCP_LENGTH_PREFIX
    return extra


def tun_mtu(spec: TunnelSpec) -> int:
    return DEFAULT_TUN_MTU if spec.tun_mtu is None else spec.tun_mtu


def mssfix(spec: TunnelSpec) -> int:
    """The largest outer packet (IP and UDP included) TCP over the tunnel is clamped to;
    0: not clamped. Over TCP transport OpenVPN ignores it."""
    if spec.proto is Proto.TCP:
        return 0
    return DEFAULT_MSSFIX if spec.mssfix is None else spec.mssfix


@dataclass(frozen=True)
class OpenVpnLog:
    ready: bool  # "Initialization Sequence Completed"
    listening: bool  # the listening end has bound its port (UDP) or listens (TCP)
    dco: bool | None  # data channel offload in use; None: the log does not say
    dco_note: str | None  # OpenVPN's own words when it is not
    cipher: str | None  # the data channel's cipher
    tun_mtu: int | None
    error: str | None  # the fatal error it exited with


_STAMP = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ")
_CIPHER = re.compile(r"Data Channel: cipher '([^']+)'")
_MTU = re.compile(r"net_iface_mtu_set: mtu (\d+) for ")
_ERRORS = ("Options error:", "ERROR:", "Exiting due to fatal error", "Cannot ")


def parse_log(text: str) -> OpenVpnLog:
    """What openvpn --verb 3 said about itself (stdout, timestamped or not)."""
    ready = listening = False
    dco: bool | None = None
    dco_note = cipher = error = None
    mtu = None
    for raw in text.splitlines():
        line = _STAMP.sub("", raw).strip()
        if "Initialization Sequence Completed" in line:
            ready = True
        if "link local (bound)" in line or line.startswith("Listening for incoming TCP"):
            listening = True
        if "disabl" in line and "data channel offload" in line:
            dco, dco_note = False, line
        elif line.startswith("DCO device") and "opened" in line:
            dco = True
        if (found := _CIPHER.search(line)) is not None:
            cipher = found.group(1)
        if (found := _MTU.search(line)) is not None:
            mtu = int(found.group(1))
        if error is None and any(line.startswith(word) for word in _ERRORS):
            error = line
    return OpenVpnLog(ready, listening, dco, dco_note, cipher, mtu, error)
