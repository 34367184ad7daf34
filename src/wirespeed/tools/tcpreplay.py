"""tcpreplay as a packet generator: one UDP frame of an exact size, replayed from an
AF_PACKET socket at a packet rate (`--pps`), for the forwarding-rate search. Argv
builders, the frame and its one-packet pcap file, and pure parsers.

    sender: tcpreplay -i DEV -K --pps=RATE --loop=COUNT FILE.pcap

Why tcpreplay and not trafgen (both AF_PACKET, both in Debian): trafgen 0.6.8's `-b
Npps` sends its N packets of each second as fast as it can and then sleeps out the
second (measured: 10,000 packets in 0.1 s, then nothing for 0.9 s), so a device sees
bursts at the generator's top speed whatever rate is asked, and its `-t` gap is the gap
plus 5-9 us of its own per packet. tcpreplay keeps each packet's time, spinning on the
clock (sender_argv), so what it offers is what was asked, to within 0.1 % up to
200,000-300,000 frames/s per core here (docs/benchmarks.md).

What is counted (tcpreplay 4.4.3, checked against its output in
tests/fixtures/tcpreplay): `Successful packets` is what the device's socket took; how
long it took to send them is its count over its `Rated: ... pps` (`Actual: ... sent in S
seconds` keeps only hundredths from 1 s on: 0.5 % of a 2 s trial). A frame the kernel
refused (a full queue: `Failed packets`, `Retried packets`) was not offered.

A sending host needs the next hop's MAC address: `ip -o route get TARGET` gives the
device, the gateway (`via`) and the source address; `ip neigh show` the gateway's (or,
on the same subnet, the target's) MAC, once a ping has filled it in.
"""

from __future__ import annotations

import re
import struct
from dataclasses import dataclass

PROGRAM = "tcpreplay"
PACKAGE = "tcpreplay"
ETHERTYPE_IPV4 = 0x0800
TTL = 64  # a router drops a packet whose TTL runs out; a raw generator must set one
SOURCE_PORT = 40000
FCS = 4  # counted in a frame's size (RFC 2544) but added by the NIC, not written here

_ACTUAL = re.compile(
    r"^Actual:\s+(?P<packets>\d+)\s+packets\s+\((?P<bytes>\d+)\s+bytes\)\s+sent in\s+"
    r"(?P<seconds>[\d.]+)\s+seconds"
)
# "Rated: 1200024.0 Bps, 9.60 Mbps, 20000.40 pps": its rate to the hundredth of a packet.
_RATED = re.compile(r"^Rated:\s.*?(?P<pps>[\d.]+)\s+pps\s*$")
_SUCCESSFUL = re.compile(r"^Successful packets:\s+(?P<count>\d+)")
_FAILED = re.compile(r"^Failed packets:\s+(?P<count>\d+)")
_MAC = re.compile(r"^[0-9a-f]{2}(?::[0-9a-f]{2}){5}$")
_ERROR_WORDS = re.compile(r"fatal|error|failed to|unable|invalid|can't|cannot", re.IGNORECASE)


@dataclass(frozen=True)
class SenderReport:
    sent: int  # frames the kernel took from it
    seconds: float  # how long it took to send them
    failed: int  # frames the kernel refused (never offered)


@dataclass(frozen=True)
class Route:
    """Where the sending host sends a packet for the target: out of `device`, to
    `gateway` (None: the target is on the device's own subnet), from `source`."""

    device: str
    gateway: str | None
    source: str

    def next_hop(self, target: str) -> str:
        """Whose MAC address the frame is sent to: the gateway, else the target itself."""
        return self.gateway or target


def _checksum(data: bytes) -> int:
    """The Internet checksum (RFC 1071) of data."""
    if len(data) % 2:
        data += b"\0"
    total: int = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while total >> 16:
        total = (total & 0xFFFF) + (total >> 16)
    return ~total & 0xFFFF


def _mac_bytes(mac: str) -> bytes:
    if not _MAC.match(mac.lower()):
        raise ValueError(f"not a MAC address: {mac!r}")
    return bytes(int(part, 16) for part in mac.split(":"))


def _ipv4_bytes(address: str) -> bytes:
    parts = address.split(".")
    if len(parts) != 4 or not all(p.isdigit() and int(p) < 256 for p in parts):
        raise ValueError(f"not an IPv4 address: {address!r}")
    return bytes(int(p) for p in parts)


def udp_frame(
    *,
    destination_mac: str,
    source_mac: str,
    source: str,
    destination: str,
    port: int,
    frame_bytes: int,
) -> bytes:
    """An IPv4 UDP frame that is `frame_bytes` on the wire with its FCS (64 .. 1518 at MTU
    1500): Ethernet 14 + IPv4 20 + UDP 8 + zero payload, the FCS left to the NIC; below
    60 bytes written the NIC pads, so the payload is never shorter than nothing."""
    payload = max(frame_bytes - FCS - 14 - 20 - 8, 0)
    udp_length = 8 + payload
    source_ip, destination_ip = _ipv4_bytes(source), _ipv4_bytes(destination)
    udp_header = struct.pack("!HHHH", SOURCE_PORT, port, udp_length, 0)
    pseudo = source_ip + destination_ip + struct.pack("!BBH", 0, 17, udp_length)
    udp_sum = _checksum(pseudo + udp_header + bytes(payload)) or 0xFFFF
    udp_header = struct.pack("!HHHH", SOURCE_PORT, port, udp_length, udp_sum)
    ip_header = struct.pack(
        "!BBHHHBBH4s4s",
        0x45,
        0,
        20 + udp_length,
        0,
        0x4000,  # don't fragment
        TTL,
        17,
        0,
        source_ip,
        destination_ip,
    )
    ip_header = ip_header[:10] + struct.pack("!H", _checksum(ip_header)) + ip_header[12:]
    ethernet = (
        _mac_bytes(destination_mac) + _mac_bytes(source_mac) + struct.pack("!H", ETHERTYPE_IPV4)
    )
    return ethernet + ip_header + udp_header + bytes(payload)


def pcap_of(frame: bytes) -> bytes:
    """A pcap file (microsecond timestamps, Ethernet) holding the one frame."""
    header = struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1)
    record = struct.pack("<IIII", 0, 0, len(frame), len(frame))
    return header + record + frame


def write_script(data: bytes, path: str) -> list[str]:
    """argv that writes data to path on a host with nothing but a POSIX shell (busybox
    included): printf's octal escapes, the file readable by its owner only."""
    escaped = "".join(f"\\{byte:03o}" for byte in data)
    return ["sh", "-c", f"umask 077 && printf '{escaped}' > \"$1\"", "sh", path]


def sender_argv(device: str, pcap: str, pps: int, count: int) -> list[str]:
    # -K: the file read once into memory, not once per loop. Its default timer (gtod)
    # spins on the clock, a whole core at any rate: sleeping instead (-T nano) took a
    # quarter of the CPU at 50,000 pps, but through the lab on a busy machine it sent
    # 68,000 of 400,000 packets/s asked (118,000 with 10 packets per wake-up) where
    # spinning sent 186,000.
    return [PROGRAM, "-i", device, "-K", f"--pps={pps}", f"--loop={count}", pcap]


def parse_sender(text: str) -> SenderReport:
    """The generator's own account; ValueError when it printed none."""
    seconds: float | None = None
    rated: float | None = None
    actual = successful = None
    failed = 0
    for line in text.splitlines():
        stripped = line.strip()
        if found := _ACTUAL.match(stripped):
            actual, seconds = int(found["packets"]), float(found["seconds"])
        elif (found := _RATED.match(stripped)) and float(found["pps"]) > 0:
            rated = float(found["pps"])
        elif found := _SUCCESSFUL.match(stripped):
            successful = int(found["count"])
        elif found := _FAILED.match(stripped):
            failed = int(found["count"])
    if seconds is None or actual is None:
        said = [line.strip() for line in text.splitlines() if line.strip()]
        fatal = [i for i, line in enumerate(said) if line.startswith("Fatal Error")]
        if fatal and fatal[-1] + 1 < len(said):
            # "Fatal Error in tcpreplay.c:main() line 79:" then where, then why: the why.
            raise ValueError(said[-1])
        errors = [line for line in said if _ERROR_WORDS.search(line)]
        raise ValueError((errors or said or ["tcpreplay printed nothing"])[0])
    if rated is not None and actual:
        # From 1 s on, "sent in 1.99 seconds" has hundredths only (0.5 % of a 2 s trial);
        # its rate has hundredths of a packet per second.
        seconds = actual / rated
    return SenderReport(
        sent=successful if successful is not None else actual, seconds=seconds, failed=failed
    )


def parse_route(text: str) -> Route:
    """`ip -o route get 192.0.2.1`: '192.0.2.1 via 10.0.0.1 dev eth0 src 10.0.0.2 uid 0'."""
    words = text.split()
    fields = {words[i]: words[i + 1] for i in range(len(words) - 1)}
    if "dev" not in fields or "src" not in fields:
        raise ValueError(f"no route: {text.strip() or 'ip printed nothing'}")
    return Route(device=fields["dev"], gateway=fields.get("via"), source=fields["src"])


def parse_neighbour(text: str) -> str | None:
    """`ip neigh show 10.0.0.1 dev eth0`: the MAC address, unless the entry failed."""
    for line in text.splitlines():
        words = line.split()
        if "lladdr" in words and "FAILED" not in words:
            mac = words[words.index("lladdr") + 1].lower()
            if _MAC.match(mac):
                return mac
    return None


def parse_link_mac(text: str) -> str | None:
    """`ip -o link show dev eth0`: the device's own MAC address (link/ether ...)."""
    words = text.split()
    if "link/ether" in words:
        mac = words[words.index("link/ether") + 1].lower()
        return mac if _MAC.match(mac) else None
    return None
