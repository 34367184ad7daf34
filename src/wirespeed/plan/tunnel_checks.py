"""A path's `tunnel:` and the variants' tunnel options: what cannot work, at its line.

    tunnel_for(entry, loc, topology, out) -> TunnelSpec | None   # a lab path's tunnel
    host_tunnel_for(entry, loc, hosts, out) -> TunnelSpec | None  # between real hosts
    variant_tunnel(options, loc, paths, out) -> tuple(...)      # a variant's overrides
    with_tunnel_options(path, options) -> PathSpec              # the path in that variant
    check_tunnel_datagrams(test, path, out)                     # UDP that the tunnel splits

The lab builds its tunnels (lab/tunnel.py); between real hosts wirespeed starts them
over SSH (run/host_tunnel.py), to the DUT of an endpoint path or through the DUT.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from wirespeed.model import (
    ModelError,
    PathSpec,
    Proto,
    Tool,
    Topology,
    TunnelEnds,
    TunnelKind,
    TunnelSpec,
)
from wirespeed.plan.collect import Collector
from wirespeed.plan.plan import HostPlan
from wirespeed.plan.resolve import ResolvedTest
from wirespeed.plan.schema import PathEntry, TunnelOptions
from wirespeed.plan.yamltree import Loc
from wirespeed.tools.tunnels import inner_mtu

IP_UDP_HEADERS = 28
IPERF2_UDP_LENGTH = 1470
# OpenVPN 2.6 refuses smaller (Options error: --fragment needs to be at least 68).
MIN_FRAGMENT = 68
_OPENVPN_ONLY = ("fragment", "mssfix", "cipher")


# The tunnel ends a topology cannot have: why, and what to do instead.
_ENDS_REFUSED = {
    (Topology.BRIDGE, TunnelEnds.DUT): (
        "a bridge DUT routes nothing, so it cannot end a VPN tunnel",
        "use topology: router or nat for the DUT as VPN gateway, or ends: through "
        "(client to server, the bridge forwards the encrypted packets)",
    ),
    (Topology.ENDPOINT, TunnelEnds.THROUGH): (
        "an endpoint path has no server beyond the DUT to tunnel to",
        "use ends: dut (the tunnel ends at the DUT, which runs the server), or a "
        "bridge, router or nat path for ends: through",
    ),
}


def tunnel_for(
    entry: PathEntry, loc: Loc, topology: Topology, out: Collector
) -> tuple[bool, TunnelSpec | None]:
    """(ok, the tunnel of a lab path or None when it has none); errors recorded."""
    tunnel = entry.tunnel
    if tunnel is None:
        return True, None
    where: Loc = (*loc, "tunnel")
    refused = _ENDS_REFUSED.get((topology, tunnel.ends))
    if refused is not None:
        why, hint = refused
        out.error((*where, "ends"), f"path {entry.name!r}: {why}", hint=hint)
        return False, None
    spec = _spec(tunnel.kind, tunnel.ends, tunnel, where, out, what=f"path {entry.name!r}")
    return spec is not None, spec


def _spec(
    kind: TunnelKind,
    ends: TunnelEnds,
    options: TunnelOptions,
    where: Loc,
    out: Collector,
    *,
    what: str,
) -> TunnelSpec | None:
    ok = True
    if kind is TunnelKind.WIREGUARD:
        for key in _OPENVPN_ONLY:
            if getattr(options, key) is not None:
                out.error(
                    (*where, key),
                    f"{what}: {key} is an OpenVPN option; WireGuard has no such setting",
                    hint="leave it out of a WireGuard tunnel (tun_mtu sets its MTU)",
                )
                ok = False
        if options.proto is Proto.TCP:
            out.error(
                (*where, "proto"),
                f"{what}: WireGuard runs over UDP only",
                hint="leave proto out, or use kind: openvpn for a tunnel over TCP",
            )
            ok = False
    if options.fragment and options.fragment < MIN_FRAGMENT:
        out.error(
            (*where, "fragment"),
            f"{what}: OpenVPN 2.6 refuses --fragment below {MIN_FRAGMENT}",
            hint="fragment: 0 turns it off (as --fragment 0 did in older versions)",
        )
        ok = False
    if options.fragment and options.proto is Proto.TCP:
        out.error(
            (*where, "fragment"),
            f"{what}: OpenVPN's --fragment works over UDP only",
            hint="leave fragment out with proto: tcp (TCP carries packets of any size)",
        )
        ok = False
    if not ok:
        return None
    try:
        return TunnelSpec(
            kind=kind,
            ends=ends,
            tun_mtu=options.tun_mtu,
            fragment=options.fragment,
            mssfix=options.mssfix,
            cipher=options.cipher,
            proto=options.proto or Proto.UDP,
        )
    except ModelError as error:
        out.error(where, f"{what}: {error}")
        return None


def host_tunnel_for(
    entry: PathEntry, loc: Loc, hosts: Mapping[str, HostPlan], out: Collector
) -> tuple[bool, TunnelSpec | None]:
    """(ok, the tunnel of a path between real hosts or None); errors recorded.

    wirespeed starts the tunnel on the hosts (run/host_tunnel.py): to the DUT on an
    endpoint path (it runs the iperf server at its tunnel address), or from the client
    to the server through the DUT. A server behind a DUT that ends the tunnel would need
    a route back into the tunnel and a firewall rule on the DUT, which wirespeed does not
    set on a real device."""
    tunnel = entry.tunnel
    if tunnel is None:
        return True, None
    where: Loc = (*loc, "tunnel")
    if tunnel.ends is TunnelEnds.DUT and entry.topology in (Topology.ROUTER, Topology.NAT):
        out.error(
            (*where, "ends"),
            f"path {entry.name!r}: between real hosts a tunnel ends at the DUT on an "
            "endpoint path only: a server behind the DUT would need a route back into the "
            "tunnel and a firewall rule on the DUT, which wirespeed does not set",
            hint="use topology: endpoint with the DUT as server (the tunnel ends at it, and "
            "it runs iperf), or ends: through (client to server, the DUT forwards the "
            "encrypted packets)",
        )
        return False, None
    ok, spec = tunnel_for(entry, loc, entry.topology, out)
    if not ok:
        return False, None
    far = entry.server if tunnel.ends is TunnelEnds.THROUGH else entry.dut_host or entry.server
    for role, name in (("client", entry.client), ("server" if far == entry.server else "dut", far)):
        host = hosts.get(name or "")
        if host is not None and host.port is not None:
            out.error(
                (*where, "ends"),
                f"path {entry.name!r}: the tunnel's {role} end is {name!r}, a port of this "
                "machine, and wirespeed starts tunnel ends on SSH hosts and on this "
                "machine itself only",
                hint=f"give {name!r} ssh: (a machine of its own), or run the tunnel in the lab",
            )
            return False, None
    return True, spec


def variant_tunnel(
    options: TunnelOptions | None,
    loc: Loc,
    paths: Mapping[str, PathSpec],
    out: Collector,
    *,
    variant: str,
) -> tuple[tuple[str, object], ...]:
    """The options a variant sets, each checked against every tunnel path it changes."""
    if options is None:
        return ()
    where: Loc = (*loc, "tunnel")
    tunnelled = [path for path in paths.values() if path.tunnel is not None]
    if paths and not tunnelled:
        out.error(
            where,
            f"variant {variant!r} sets tunnel options, and no path has a tunnel",
            hint="add tunnel: {kind: openvpn} to a lab path, or leave tunnel: out",
        )
        return ()
    chosen = tuple(
        (key, value)
        for key, value in options.model_dump(mode="json", exclude_unset=True).items()
        if value is not None
    )
    for path in tunnelled:
        assert path.tunnel is not None
        mine = dict(applying_to(path.tunnel.kind, chosen))
        merged = TunnelOptions.model_validate({**_options_of(path.tunnel), **mine})
        _spec(path.tunnel.kind, path.tunnel.ends, merged, where, out,
              what=f"variant {variant!r} on path {path.name!r}")  # fmt: skip
    return chosen


def applying_to(
    kind: TunnelKind, options: Sequence[tuple[str, object]]
) -> tuple[tuple[str, object], ...]:
    """A variant's options that a tunnel of this kind takes: OpenVPN's own (fragment,
    mssfix, cipher, proto) leave a WireGuard path as it is, so that one variant can set
    `{tun_mtu: 6000, mssfix: 0}` across an OpenVPN and a WireGuard path."""
    if kind is TunnelKind.OPENVPN:
        return tuple(options)
    return tuple((key, value) for key, value in options if key not in (*_OPENVPN_ONLY, "proto"))


def _options_of(spec: TunnelSpec) -> dict[str, object]:
    return {
        "tun_mtu": spec.tun_mtu,
        "fragment": spec.fragment,
        "mssfix": spec.mssfix,
        "cipher": spec.cipher,
        "proto": spec.proto.value,
    }


def with_tunnel_options(path: PathSpec, options: Sequence[tuple[str, object]]) -> PathSpec:
    """The path as it runs in a variant that sets these tunnel options."""
    tunnel = path.tunnel
    if tunnel is None or not options:
        return path
    changes = dict(applying_to(tunnel.kind, options))

    def number(key: str, current: int | None) -> int | None:
        value = changes.get(key, current)
        return value if isinstance(value, int) else current

    cipher = changes.get("cipher", tunnel.cipher)
    changed = dataclasses.replace(
        tunnel,
        tun_mtu=number("tun_mtu", tunnel.tun_mtu),
        fragment=number("fragment", tunnel.fragment),
        mssfix=number("mssfix", tunnel.mssfix),
        cipher=cipher if isinstance(cipher, str) else tunnel.cipher,
        proto=Proto(str(changes.get("proto", tunnel.proto.value))),
    )
    return dataclasses.replace(path, tunnel=changed)


def check_tunnel_datagrams(test: ResolvedTest, path: PathSpec, out: Collector) -> None:
    """UDP datagrams larger than the tunnel's MTU are split before they are encrypted."""
    spec = test.case.spec
    if path.tunnel is None or spec.protocol is not Proto.UDP:
        return
    fits = inner_mtu(path.tunnel) - IP_UDP_HEADERS
    length = spec.length or (IPERF2_UDP_LENGTH if test.case.tool is Tool.IPERF2 else None)
    if length is not None and length > fits:
        out.warn(
            test.where("length"),
            f"test {test.case.id!r}: UDP datagrams of {length} bytes do not fit the tunnel "
            f"of path {path.name!r} (MTU {inner_mtu(path.tunnel)}, at most {fits}): each is "
            "fragmented before it is encrypted",
            hint=f"set length: {fits} or less to send one tunnelled packet per datagram",
        )


def refuse_search_through_tunnel(
    test: ResolvedTest, paths: Sequence[PathSpec], out: Collector
) -> None:
    """A forwarding-rate search sends raw frames of given sizes past the DUT: a tunnel
    would change every frame's size and count (its generators do not tunnel)."""
    for path in paths:
        if path.tunnel is not None:
            out.error(
                test.loc,
                f"test {test.case.id!r}: a forwarding-rate search cannot run through the "
                f"tunnel of path {path.name!r}: its frame sizes would not be the wire's",
                hint="limit the search to paths without a tunnel (paths: [...]), and measure "
                "the tunnel with iperf tests",
            )
