"""Is a server listening yet? Read the kernel's socket tables instead of sleeping.

/proc/<pid>/net/{tcp,tcp6,udp,udp6} list every socket of the network namespace that
process <pid> lives in (not only that process's sockets), so the answer is right for a
server in a lab namespace as well as on a device. Addresses are hex words in the
kernel's byte order (little-endian on every board wirespeed meets), ports are hex.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass

from wirespeed.hosts.base import Host
from wirespeed.model import Proto

TCP_LISTEN = 0x0A  # include/net/tcp_states.h
TCP_CLOSE = 0x07  # what an unconnected, bound UDP socket shows


@dataclass(frozen=True)
class SocketEntry:
    local_address: str
    local_port: int
    remote_address: str
    remote_port: int
    state: int
    inode: int


def _address(hex_address: str) -> str:
    raw = bytes.fromhex(hex_address)
    # Each 32-bit word is printed as the host-order integer: reverse within words.
    ordered = b"".join(raw[i : i + 4][::-1] for i in range(0, len(raw), 4))
    return str(ipaddress.ip_address(ordered))


def _endpoint(text: str) -> tuple[str, int]:
    address, _, port = text.partition(":")
    return _address(address), int(port, 16)


def parse_proc_net(text: str) -> list[SocketEntry]:
    """The rows of /proc/net/tcp, tcp6, udp or udp6 (the header line is skipped)."""
    entries: list[SocketEntry] = []
    for line in text.splitlines()[1:]:
        fields = line.split()
        if len(fields) < 10:
            continue
        local_address, local_port = _endpoint(fields[1])
        remote_address, remote_port = _endpoint(fields[2])
        entries.append(
            SocketEntry(
                local_address=local_address,
                local_port=local_port,
                remote_address=remote_address,
                remote_port=remote_port,
                state=int(fields[3], 16),
                inode=int(fields[9]),
            )
        )
    return entries


def is_listening(entries: list[SocketEntry], port: int, proto: Proto) -> bool:
    """TCP: a socket in LISTEN on port. UDP: any socket bound to port (iperf2 connects
    its UDP socket to the client once a test starts, so its state is not always CLOSE)."""
    for entry in entries:
        if entry.local_port != port:
            continue
        if proto is Proto.UDP or entry.state == TCP_LISTEN:
            return True
    return False


def listening(host: Host, pid: int | None, port: int, proto: Proto) -> bool:
    """Whether a socket of `proto` listens on `port` in the namespace of process pid, or
    with pid None in the host's own namespace (is the port taken before we start?).

    False once pid has exited (its /proc directory is gone)."""
    kind = "tcp" if proto is Proto.TCP else "udp"
    directory = "/proc/net" if pid is None else f"/proc/{pid}/net"
    for table in (kind, kind + "6"):
        try:
            text = host.read_file(f"{directory}/{table}")
        except FileNotFoundError:
            continue  # pid gone, or IPv6 disabled
        if is_listening(parse_proc_net(text), port, proto):
            return True
    return False
