"""What every layer asks of a tunnel whatever its kind: the MTU inside it and the bytes
each packet gains (tools/openvpn.py and tools/wireguard.py know their own)."""

from __future__ import annotations

from wirespeed.model import Proto, TunnelKind, TunnelSpec
from wirespeed.tools import openvpn, wireguard

__all__ = ["OUTER_IPV4", "encapsulation", "inner_mtu", "outer_headers"]

OUTER_IPV4 = 20


def inner_mtu(tunnel: TunnelSpec) -> int:
    """The tunnel device's MTU: the plan's tun_mtu, else the tool's default."""
    if tunnel.tun_mtu is not None:
        return tunnel.tun_mtu
    if tunnel.kind is TunnelKind.OPENVPN:
        return openvpn.DEFAULT_TUN_MTU
    return wireguard.DEFAULT_MTU


def encapsulation(tunnel: TunnelSpec) -> int:
    """Bytes a packet gains inside the outer transport's payload."""
    if tunnel.kind is TunnelKind.WIREGUARD:
        return wireguard.ENCAPSULATION
    return openvpn.overhead(tunnel)


def outer_headers(tunnel: TunnelSpec) -> int:
    """The outer IPv4 header and UDP's (TCP's, timestamps included, over TCP)."""
    return OUTER_IPV4 + (8 if tunnel.proto is Proto.UDP else 32)
