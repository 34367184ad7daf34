"""The ceiling of traffic through a VPN tunnel: the link's, less what each packet gains.

Each packet inside the tunnel (at most the tunnel's MTU) is encrypted and sent as the
payload of one outer UDP datagram (OpenVPN also over TCP): it gains the encapsulation
(WireGuard 32: header 16, tag 16; OpenVPN with an AEAD cipher 24, +4 with --fragment)
and the outer IPv4 + UDP headers (28), then Ethernet's 38. WireGuard at MTU 1420 over
a 1500 link: TCP carries 1368 of every 1420 + 60 + 38 bytes on the wire, 901.2 Mbit/s
at 1 Gbit/s (LIMITS.md). An outer datagram larger than the link's MTU leaves as IP
fragments, each with its own headers (OpenVPN's default tun-mtu 1500 does that for full
packets that TCP's mssfix clamp does not cover); a UDP datagram larger than the tunnel's
MTU is fragmented before it is encrypted, each fragment tunnelled on its own. Over TCP
transport the tunnelled packets are a byte stream in full outer segments.
"""

from __future__ import annotations

import math

from wirespeed.analysis.link_ceiling import (
    ETHERNET_OVERHEAD,
    IP_HEADER,
    IPERF2_UDP_LENGTH,
    TCP_HEADER,
    TCP_TIMESTAMPS_OPTION,
    TIMES,
    UDP_HEADER,
    Ceiling,
    _udp_wire_cost,
    link_rate_text,
    require_link_rate,
    udp_payload,
)
from wirespeed.model import Proto, Tool, TunnelKind, TunnelSpec
from wirespeed.tools import openvpn
from wirespeed.tools.tunnels import encapsulation, inner_mtu

__all__ = ["encapsulation", "inner_mtu", "inner_tcp_packet", "tunnel_ceiling"]

TCP_HEADERS = IP_HEADER + TCP_HEADER + TCP_TIMESTAMPS_OPTION  # 52 with timestamps


def inner_tcp_packet(tunnel: TunnelSpec) -> int:
    """The largest TCP packet inside the tunnel: its MTU, or less where OpenVPN's mssfix
    clamps TCP's MSS so that the outer packet (IP and UDP included) fits mssfix."""
    mtu = inner_mtu(tunnel)
    if tunnel.kind is TunnelKind.OPENVPN and (clamp := openvpn.mssfix(tunnel)):
        mtu = min(mtu, clamp - IP_HEADER - UDP_HEADER - encapsulation(tunnel))
    return mtu


def _outer_wire(inner_packet: int, tunnel: TunnelSpec, link_mtu: int) -> tuple[float, int]:
    """Wire bytes and Ethernet frames one inner packet costs on the link."""
    carried = inner_packet + encapsulation(tunnel)
    if tunnel.proto is Proto.TCP:
        segment = link_mtu - TCP_HEADERS
        return carried * (link_mtu + ETHERNET_OVERHEAD) / segment, 1
    wire, frames = _udp_wire_cost(carried, link_mtu)
    return float(wire), frames


def tunnel_ceiling(
    link_rate_bps: int,
    protocol: Proto,
    tunnel: TunnelSpec,
    *,
    link_mtu: int = 1500,
    length: int | None = None,
    tool: Tool = Tool.IPERF3,
) -> Ceiling:
    """The goodput ceiling of one flow through the tunnel over a link of link_mtu."""
    require_link_rate(link_rate_bps)
    mtu = inner_mtu(tunnel)
    tcp_packet = inner_tcp_packet(tunnel)
    if protocol is Proto.TCP:
        payload = tcp_packet - TCP_HEADERS
        wire, frames = _outer_wire(tcp_packet, tunnel, link_mtu)
    else:
        # iperf3 sizes datagrams to its control connection's MSS, which the clamp sets.
        default = IPERF2_UDP_LENGTH if tool is Tool.IPERF2 else tcp_packet - TCP_HEADERS
        payload = udp_payload(length, default)
        ip_payload = payload + UDP_HEADER
        per_fragment = (mtu - IP_HEADER) // 8 * 8
        pieces = 1 if ip_payload <= mtu - IP_HEADER else math.ceil(ip_payload / per_fragment)
        wire, frames = 0.0, 0
        for index in range(pieces):
            size = min(per_fragment, ip_payload - index * per_fragment)
            if pieces == 1:
                size = ip_payload
            piece_wire, piece_frames = _outer_wire(size + IP_HEADER, tunnel, link_mtu)
            wire += piece_wire
            frames += piece_frames
    gained = encapsulation(tunnel) + IP_HEADER + (UDP_HEADER if tunnel.proto is Proto.UDP else 0)
    formula = (
        f"{link_rate_text(link_rate_bps)} {TIMES} {payload}/{wire:.0f} through "
        f"{tunnel.kind.value} (inner MTU {mtu}, +{gained} bytes per packet"
        + (f", {frames} frames per {'segment' if protocol is Proto.TCP else 'datagram'}"
           if frames > 1 else "")
        + ")"
    )  # fmt: skip
    return Ceiling.of_share(
        link_rate_bps,
        protocol,
        mtu=mtu,
        payload=payload,
        wire=wire,
        fragments=frames,
        formula=formula,
    )
