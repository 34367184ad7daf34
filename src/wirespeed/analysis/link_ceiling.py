"""The physical ceiling of one flow on a plain Ethernet link: what Ethernet can carry at best.

Per packet the wire carries the IP packet plus 38 bytes (preamble+SFD 8, MAC header 14,
FCS 4, inter-frame gap 12), and a frame is padded to 64 bytes with FCS. A goodput ceiling
is the line rate times the share of wire time that is payload. See LIMITS.md. Below both
the trial's ceiling (analysis/ceiling.py) and the tunnel's (analysis/tunnel_ceiling.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wirespeed.model import ModelError, Proto, Tool
from wirespeed.search.frames import MAC_HEADER_AND_FCS, frames_per_second, wire_bytes

__all__ = [
    "Ceiling",
    "ceiling",
    "default_udp_length",
    "frames_per_second",
    "link_rate_text",
    "require_link_rate",
    "udp_payload",
]

ETHERNET_OVERHEAD = 38  # preamble+SFD 8, MAC header 14, FCS 4, inter-frame gap 12
IP_HEADER = 20
UDP_HEADER = 8
TCP_HEADER = 20
TCP_TIMESTAMPS_OPTION = 12  # Linux sends timestamps by default (net.ipv4.tcp_timestamps)

# The formula text is for people: proper multiplication and minus signs.
TIMES = "\N{MULTIPLICATION SIGN}"
MINUS = "\N{MINUS SIGN}"

IPERF2_UDP_LENGTH = 1470  # iperf2 sends 1470-byte datagrams whatever the MTU


def iperf3_udp_length(mtu: int) -> int:
    """iperf3 (3.12) sizes UDP datagrams to the MSS of its TCP control connection.

    Checked with iperf3 3.12 on Linux: blksize 1448 at MTU 1500, 8948 at 9000, 460 at 512,
    i.e. MTU - 52 (IP 20, TCP 20, timestamps 12). Without timestamps it would be MTU - 40.
    """
    return mtu - IP_HEADER - TCP_HEADER - TCP_TIMESTAMPS_OPTION


def default_udp_length(tool: Tool, mtu: int) -> int:
    return IPERF2_UDP_LENGTH if tool is Tool.IPERF2 else iperf3_udp_length(mtu)


@dataclass(frozen=True)
class Ceiling:
    """The best goodput a link can carry for one flow, and how it was computed."""

    bits_per_second: float
    link_rate_bps: int
    protocol: Proto
    mtu: int
    payload_bytes: int  # TCP: payload per full segment; UDP: the datagram payload L
    wire_bytes: int  # wire time per segment or datagram (all its fragments), in bytes
    fragments: int  # IP packets per datagram or segment: more than 1 means fragmentation
    formula: str  # for reports: "1 Gbit/s x (1500-52)/(1500+38)", with the proper signs

    @classmethod
    def of_share(
        cls,
        link_rate_bps: int,
        protocol: Proto,
        *,
        mtu: int,
        payload: int,
        wire: float,
        fragments: int,
        formula: str,
    ) -> Ceiling:
        """The ceiling where every `payload` bytes carried cost `wire` bytes of wire time:
        the line rate times that share."""
        return cls(
            bits_per_second=link_rate_bps * payload / wire,
            link_rate_bps=link_rate_bps,
            protocol=protocol,
            mtu=mtu,
            payload_bytes=payload,
            wire_bytes=round(wire),
            fragments=fragments,
            formula=formula,
        )

    @property
    def packets_per_second(self) -> float:
        """Segments or datagrams per second at the ceiling (not fragments)."""
        return self.link_rate_bps / (self.wire_bytes * 8)


def _wire_bytes_of_packet(ip_packet_bytes: int) -> int:
    # 14 MAC + 4 FCS around the IP packet, padded to 64, plus 20 of preamble and gap.
    return wire_bytes(ip_packet_bytes + MAC_HEADER_AND_FCS)


def require_link_rate(link_rate_bps: int) -> None:
    if link_rate_bps <= 0:
        raise ModelError(f"link rate must be positive, got {link_rate_bps}")


def udp_payload(length: int | None, default: int) -> int:
    """A UDP test's datagram payload in bytes: its length, else the tool's default;
    ModelError unless it is positive."""
    payload = default if length is None else length
    if payload <= 0:
        raise ModelError(f"a UDP datagram length must be positive, got {payload}")
    return payload


def _udp_wire_cost(length: int, mtu: int) -> tuple[int, int]:
    """Wire bytes and IP packets for one UDP datagram of `length` payload bytes.

    A datagram larger than MTU - 28 is fragmented: every fragment carries its own 20-byte
    IP header and Ethernet framing, only the first carries the 8-byte UDP header, and
    every fragment but the last carries a multiple of 8 bytes (RFC 791 fragment offset).
    """
    ip_payload = length + UDP_HEADER
    per_fragment = (mtu - IP_HEADER) // 8 * 8
    if ip_payload <= mtu - IP_HEADER:
        return _wire_bytes_of_packet(ip_payload + IP_HEADER), 1
    fragments = math.ceil(ip_payload / per_fragment)
    last = ip_payload - per_fragment * (fragments - 1)
    wire = (fragments - 1) * _wire_bytes_of_packet(per_fragment + IP_HEADER)
    wire += _wire_bytes_of_packet(last + IP_HEADER)
    return wire, fragments


def link_rate_text(rate_bps: int) -> str:
    """1000000000 -> '1 Gbit/s', 2500000000 -> '2.5 Gbit/s': line rates as people say them."""
    for unit, scale in (("Gbit/s", 10**9), ("Mbit/s", 10**6), ("kbit/s", 10**3)):
        if rate_bps >= scale:
            return f"{rate_bps / scale:g} {unit}"
    return f"{rate_bps} bit/s"


def ceiling(
    link_rate_bps: int,
    protocol: Proto,
    mtu: int = 1500,
    length: int | None = None,
    timestamps: bool = True,
) -> Ceiling:
    """The goodput ceiling of one flow (one direction) on a full-duplex Ethernet link.

    TCP: rate x (MTU - 52)/(MTU + 38) with timestamps, (MTU - 40) without; `length` does
    not matter as the kernel cuts the stream into full segments. UDP: rate x L/(wire time
    of one datagram), which is L/(L + 66) when L + 28 ≤ MTU; L defaults to iperf2's 1470.
    The reverse flow's ACKs of a bidirectional TCP test are not counted (LIMITS.md: about
    915-935 Mbit/s per direction at 1 GbE instead of 941.5).
    """
    require_link_rate(link_rate_bps)
    if not 68 <= mtu <= 65535:
        raise ModelError(f"mtu must be 68..65535, got {mtu}")
    rate = link_rate_text(link_rate_bps)
    if protocol is Proto.TCP:
        headers = IP_HEADER + TCP_HEADER + (TCP_TIMESTAMPS_OPTION if timestamps else 0)
        payload = mtu - headers
        wire = mtu + ETHERNET_OVERHEAD
        formula = f"{rate} {TIMES} ({mtu}{MINUS}{headers})/({mtu}+{ETHERNET_OVERHEAD})"
        fragments = 1
    else:
        payload = udp_payload(length, IPERF2_UDP_LENGTH)
        wire, fragments = _udp_wire_cost(payload, mtu)
        if fragments == 1 and wire == payload + 66:
            formula = f"{rate} {TIMES} {payload}/({payload}+66)"
        elif fragments == 1:
            formula = f"{rate} {TIMES} {payload}/{wire} (padded to a 64-byte frame)"
        else:
            formula = f"{rate} {TIMES} {payload}/{wire} ({fragments} IP fragments at MTU {mtu})"
    return Ceiling.of_share(
        link_rate_bps,
        protocol,
        mtu=mtu,
        payload=payload,
        wire=wire,
        fragments=fragments,
        formula=formula,
    )
