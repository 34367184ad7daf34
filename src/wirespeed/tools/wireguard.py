"""WireGuard as a path's tunnel: the userspace daemon (wireguard-go) or the kernel's.

    keygen_argv() / pubkey_argv()          # `wg genkey`, `wg pubkey` (key on stdin)
    userspace_argv(dev)                    # wireguard-go in the foreground
    kernel_argv(dev)                       # `ip link add DEV type wireguard` (a device's)
    set_argv(end)                          # `wg set`: key file, port, the peer
    OVERHEAD_IPV4                          # 60 bytes per packet

The private key is written to a file of the run's private directory (lab/tunnel.py) and
`wg set` reads it from there: it never appears on a command line, in a log or a store.

wireguard-go serves its configuration on /var/run/wireguard/DEV.sock, one directory for
every network namespace: each end's device needs a name of its own on the machine (the
lab derives it from the namespace), and a daemon killed with SIGKILL leaves its socket
behind for whoever removes the lab.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "DEFAULT_MTU",
    "OVERHEAD_IPV4",
    "PORT",
    "SOCKET_DIRECTORY",
    "WireGuardEnd",
    "kernel_argv",
    "keygen_argv",
    "pubkey_argv",
    "set_argv",
    "socket_path",
    "userspace_argv",
]

# wg-quick's and wireguard-go's default: 1500 - 80, room for the IPv6 outer headers.
DEFAULT_MTU = 1420
# Outer IPv4 20 + UDP 8 + WireGuard's data header 16 (type, receiver, counter) + tag 16.
OVERHEAD_IPV4 = 60
# Inside the outer UDP payload: header 16 + Poly1305 tag 16.
ENCAPSULATION = 32
PORT = 51820
SOCKET_DIRECTORY = Path("/var/run/wireguard")


@dataclass(frozen=True)
class WireGuardEnd:
    dev: str
    private_key: Path  # a file holding the key
    peer_public_key: str  # base64, as `wg pubkey` prints it
    allowed_ips: tuple[str, ...]  # what this end sends through the tunnel
    listen: bool  # the end the other connects to listens on PORT
    endpoint: str | None = None  # the listening end's outer address (connecting end)
    port: int = PORT


def keygen_argv() -> list[str]:
    return ["wg", "genkey"]


def pubkey_argv() -> list[str]:
    return ["wg", "pubkey"]


def userspace_argv(dev: str) -> list[str]:
    """wireguard-go in the foreground: it ends with its process, and its device with it."""
    return ["wireguard-go", "--foreground", dev]


def kernel_argv(dev: str) -> list[str]:
    """The kernel module's device, on a machine that has it (`modprobe wireguard`)."""
    return ["ip", "link", "add", "dev", dev, "type", "wireguard"]


def socket_path(dev: str) -> Path:
    return SOCKET_DIRECTORY / f"{dev}.sock"


def set_argv(end: WireGuardEnd) -> list[str]:
    argv = ["wg", "set", end.dev, "private-key", str(end.private_key)]
    if end.listen:
        argv += ["listen-port", str(end.port)]
    argv += ["peer", end.peer_public_key, "allowed-ips", ",".join(end.allowed_ips)]
    if end.endpoint is not None:
        # The connecting end keeps the path through a NAT open while nothing is sent.
        argv += ["endpoint", f"{end.endpoint}:{end.port}", "persistent-keepalive", "25"]
    return argv
