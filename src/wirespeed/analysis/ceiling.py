"""The physical ceiling of a trial's measured figure: what Ethernet can carry at best.

The link's ceiling (analysis/link_ceiling.py) or, through a VPN tunnel, the tunnel's
(analysis/tunnel_ceiling.py), at the trial's MTU and datagram length. See LIMITS.md.
"""

from __future__ import annotations

from wirespeed.analysis.link_ceiling import (
    Ceiling,
    ceiling,
    default_udp_length,
    frames_per_second,
    link_rate_text,
)
from wirespeed.analysis.tunnel_ceiling import inner_mtu, inner_tcp_packet, tunnel_ceiling
from wirespeed.model import Direction, Proto, Topology, Trial, TunnelEnds

__all__ = ["Ceiling", "ceiling", "ceiling_for", "frames_per_second", "link_rate_text"]


def ceiling_for(trial: Trial) -> Ceiling | None:
    """The ceiling of each flow of a trial, or None when its link rate is unknown.

    The MTU is the test's own, else the link's; the UDP length is the test's, else the
    tool's default at that MTU (iperf2 1470, iperf3 its control connection's MSS).
    """
    link = trial.path.link
    if link is None or link.rate_bps is None:
        return None
    spec = trial.test.spec
    mtu = spec.mtu if spec.mtu is not None else link.mtu
    length = spec.length
    if trial.path.tunnel is not None:
        if _inner_packets_at_the_bottleneck(trial):
            tunnel = trial.path.tunnel
            if spec.protocol is Proto.TCP:
                return ceiling(link.rate_bps, spec.protocol, mtu=inner_tcp_packet(tunnel))
            # A datagram is cut (or not) at the tunnel's MTU before it is encrypted; the
            # WAN port carries those inner packets as they are.
            inner = inner_mtu(tunnel)
            if length is None:
                length = default_udp_length(trial.test.tool, inner)
            return ceiling(link.rate_bps, spec.protocol, mtu=inner, length=length)

        return tunnel_ceiling(
            link.rate_bps,
            spec.protocol,
            trial.path.tunnel,
            link_mtu=mtu,
            length=length,
            tool=trial.test.tool,
        )
    if spec.protocol is Proto.UDP and length is None:
        length = default_udp_length(trial.test.tool, mtu)
    return ceiling(link.rate_bps, spec.protocol, mtu=mtu, length=length)


def _inner_packets_at_the_bottleneck(trial: Trial) -> bool:
    """Up through a tunnel ending at a lab router's DUT whose link has a queue: the
    lab shapes only the DUT's ports then (the ends are the fast side, lab/shaping.py), so
    the encrypted packets reach the DUT unshaped and the bottleneck is its WAN port,
    carrying the decrypted packets: the plain ceiling at the tunnel's inner MTU (at
    100 Mbit/s, WireGuard: TCP 93.8 Mbit/s, not the 90.1 of its encrypted packets; UDP
    likewise)."""
    link, tunnel = trial.path.link, trial.path.tunnel
    return (
        link is not None
        and link.queue is not None
        and tunnel is not None
        and tunnel.ends is TunnelEnds.DUT
        and trial.path.topology in (Topology.ROUTER, Topology.NAT)
        and trial.test.spec.direction is Direction.UP
    )
