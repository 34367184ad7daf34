"""A port's state as `ip -j` shows it, kept in the journal to give the port back exactly.

A port moved into a namespace loses its addresses and routes (the kernel flushes them on
the move), so before the move wirespeed reads what restore must bring back:

    addresses   `ip -j addr show dev IF`: address, prefix, broadcast, scope, label
    routes      of `ip -j route show table all` (every table, IPv4 and IPv6), those
                through the port that someone added (not the kernel's own: subnet,
                local, broadcast and multicast routes come back with the addresses):
                a route by the port (`dev IF`), and a multipath route one of whose
                nexthops is the port (`ip route show dev IF` lists no multipath route,
                and the kernel deletes the whole IPv4 one when one of its ports moves)
    mtu, up     `ip -j link show dev IF`
    sysctls     every writable per-interface value under /proc/sys/net: ipv4/conf/IF,
                ipv6/conf/IF, ipv4/neigh/IF, ipv6/neigh/IF (SYSCTL_SCRIPT prints them):
                the kernel gives a port that arrives in a namespace the defaults of
                the kernel or of that namespace, whatever was set on it before. All
                are kept (not only those that differ from `conf/default`: a namespace
                other than the first has no `neigh/default`), and restore writes those
                that differ. Not `stable_secret`: a secret has no place in a store that
                may be shared; the port comes back without it.

The port's qdiscs are not kept: tc has no way to print a qdisc tree that could be given
back exactly, so tune/ports.py refuses a port with a qdisc of its own unless forced.

A multipath route goes back with `ip route replace` once every port of its nexthops is
back (the last of them to come back adds it): IPv6 keeps the nexthops whose port stayed
as a route of their own, which the whole route replaces. A route by a nexthop object
(`nhid`) is not kept: the kernel deletes the object with the port's move, and
tune/ports.py refuses such a port unless forced.

Pure functions from the tools' text to data and from data to argv lists, so that a
journal row (which is input too: it may have been edited) never reaches a shell.

The IPv6 link-local address is the kernel's: it comes back when the port comes up, so it
is neither added nor compared.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass
from typing import Any

from wirespeed.tune.refused import RefusedError, check_interface

# Route keys of `ip -j route` that restore passes back to `ip route add`, in its order.
_ROUTE_KEYS = ("type", "dst", "gateway", "protocol", "scope", "metric", "prefsrc", "table", "pref")
_KERNEL_TYPES = ("local", "broadcast", "multicast", "anycast")
# Address flags `ip addr add` takes and `ip -j addr` shows as `"nodad": true`.
_ADDRESS_FLAGS = ("home", "mngtmpaddr", "nodad", "noprefixroute", "autojoin")
_WORD = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-:")
# A per-interface sysctl as kept: "ipv4/conf/rp_filter" for /proc/sys/net/ipv4/conf/IF/rp_filter.
_SYSCTL_KEY = re.compile(r"(ipv4|ipv6)/(conf|neigh)/[a-z0-9_]{1,64}")
_SYSCTL_VALUE = re.compile(r"[ -~\t]{0,256}")
_SECRET_SYSCTLS = ("stable_secret",)

# Prints "ipv4/conf/IF/KEY<TAB>VALUE" for each writable per-interface sysctl of IF ($1).
# `[ -w ]` is false for a read-only one (mc_forwarding) even for root: procfs checks the
# mode; a value that cannot be read (an unset stable_secret) is left out.
SYSCTL_SCRIPT = """cd /proc/sys/net 2>/dev/null || exit 0
for f in ipv4/conf/"$1"/* ipv4/neigh/"$1"/* ipv6/conf/"$1"/* ipv6/neigh/"$1"/*; do
\t[ -f "$f" ] && [ -w "$f" ] || continue
\tv=$(cat "$f" 2>/dev/null) || continue
\tprintf '%s\\t%s\\n' "$f" "$v"
done
"""


@dataclass(frozen=True)
class Address:
    family: str  # inet | inet6
    local: str
    prefixlen: int
    broadcast: str | None = None
    scope: str | None = None
    label: str | None = None
    flags: tuple[str, ...] = ()  # of _ADDRESS_FLAGS, as set

    @property
    def cidr(self) -> str:
        return f"{self.local}/{self.prefixlen}"

    @property
    def kernel_made(self) -> bool:
        """The IPv6 link-local address the kernel gives a port that comes up."""
        return self.family == "inet6" and self.scope == "link"

    def add_argv(self, interface: str) -> list[str]:
        argv = ["ip", "addr", "add", self.cidr]
        if self.broadcast is not None:
            argv += ["broadcast", self.broadcast]
        if self.scope is not None and self.scope != "global":
            argv += ["scope", self.scope]
        if self.label is not None and self.label != interface:
            argv += ["label", self.label]
        return [*argv, *self.flags, "dev", interface]


@dataclass(frozen=True)
class Nexthop:
    """One nexthop of a multipath route: `nexthop via GATEWAY dev DEV weight N`."""

    dev: str
    gateway: str | None = None
    weight: int = 1
    onlink: bool = False

    def argv(self) -> list[str]:
        via = ["via", self.gateway] if self.gateway is not None else []
        onlink = ["onlink"] if self.onlink else []
        return ["nexthop", *via, "dev", self.dev, "weight", str(self.weight), *onlink]


@dataclass(frozen=True)
class Route:
    """A route through the port, as (key, value) pairs of `ip -j route`; a multipath
    route has its nexthops (each with its own port) instead of the port's gateway."""

    fields: tuple[tuple[str, str], ...]
    onlink: bool = False
    nexthops: tuple[Nexthop, ...] = ()

    def get(self, key: str) -> str | None:
        return dict(self.fields).get(key)

    def devices(self, interface: str) -> frozenset[str]:
        """The ports the route goes by: its nexthops', or the port's own."""
        if self.nexthops:
            return frozenset(hop.dev for hop in self.nexthops)
        return frozenset({interface})

    def add_argv(self, interface: str) -> list[str]:
        values = dict(self.fields)
        gateways = [values.get("gateway", "")] + [h.gateway or "" for h in self.nexthops]
        argv = ["ip"]
        if ":" in values.get("dst", "") or any(":" in gateway for gateway in gateways):
            argv.append("-6")
        # A multipath route replaces what is left of it: the nexthops IPv6 kept as a
        # route of their own when the other ports moved.
        argv += ["route", "replace" if self.nexthops else "add"]
        if "type" in values:
            argv.append(values["type"])
        argv.append(values.get("dst", "default"))
        if not self.nexthops:
            if "gateway" in values:
                argv += ["via", values["gateway"]]
            argv += ["dev", interface]
        for key, word in (
            ("protocol", "proto"),
            ("scope", "scope"),
            ("metric", "metric"),
            ("prefsrc", "src"),
            ("table", "table"),
            ("pref", "pref"),
        ):
            if key in values:
                argv += [word, values[key]]
        if self.onlink:
            argv.append("onlink")
        for hop in self.nexthops:
            argv += hop.argv()
        return argv


@dataclass(frozen=True)
class PortState:
    interface: str
    mtu: int
    up: bool
    addresses: tuple[Address, ...] = ()
    routes: tuple[Route, ...] = ()
    sysctls: tuple[tuple[str, str], ...] = ()  # ("ipv4/conf/rp_filter", "2"), sorted

    def to_json(self) -> str:
        return json.dumps(
            {
                "interface": self.interface,
                "mtu": self.mtu,
                "up": self.up,
                "addresses": [
                    {
                        k: list(v) if k == "flags" else v
                        for k, v in vars(a).items()
                        if v not in (None, ())
                    }
                    for a in self.addresses
                ],
                "routes": [
                    {
                        **dict(r.fields),
                        **({"onlink": True} if r.onlink else {}),
                        **(
                            {"nexthops": [_nexthop_json(h) for h in r.nexthops]}
                            if r.nexthops
                            else {}
                        ),
                    }
                    for r in self.routes
                ],
                "sysctls": dict(self.sysctls),
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str) -> PortState:
        """A journal row's state; RefusedError for anything restore must not write."""
        try:
            data = json.loads(text)
            interface = check_interface(str(data["interface"]))
            mtu, up = data["mtu"], data["up"]
            if not isinstance(mtu, int) or not 68 <= mtu <= 65535 or not isinstance(up, bool):
                raise ValueError("mtu or up")
            addresses = tuple(_address(item) for item in data["addresses"])
            routes = tuple(_route(item) for item in data["routes"])
            # A row of a version that kept no sysctls has none to give back.
            sysctls = _sysctls(data.get("sysctls", {}))
        except RefusedError:
            raise
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise RefusedError(f"refused port state {text[:120]!r}: {error}") from None
        return cls(interface, mtu, up, addresses, routes, tuple(sysctls.items()))

    def same_as(self, other: PortState, absent: frozenset[str] = frozenset()) -> bool:
        """The same addresses, routes, MTU and up/down state (the kernel's own aside).
        absent: ports not in this namespace (still moved): a multipath route through
        one of them cannot be there yet, and is left out of the comparison."""
        return (
            self.interface == other.interface
            and self.mtu == other.mtu
            and self.up == other.up
            and set(self.own_addresses) == set(other.own_addresses)
            and self.routes_without(absent) == other.routes_without(absent)
            and self.sysctls == other.sysctls
        )

    def sysctl_path(self, key: str) -> str:
        """/proc/sys/net/ipv4/conf/IF/rp_filter for "ipv4/conf/rp_filter"."""
        family, kind, name = key.split("/")
        return f"/proc/sys/net/{family}/{kind}/{self.interface}/{name}"

    def routes_without(self, absent: frozenset[str]) -> set[Route]:
        """The routes none of whose ports is in `absent`."""
        return {r for r in self.routes if not r.devices(self.interface) & absent}

    @property
    def own_addresses(self) -> tuple[Address, ...]:
        return tuple(a for a in self.addresses if not a.kernel_made)


def read_state(
    interface: str, link_json: str, addr_json: str, route_json: str, sysctl_text: str = ""
) -> PortState:
    """`ip -j link show dev IF`, `ip -j addr show dev IF`, `ip -j route show table all`,
    SYSCTL_SCRIPT's lines -> the state; ValueError when the text is not what they print."""
    links = _json_list(link_json, "ip -j link")
    if len(links) != 1 or links[0].get("ifname") != interface:
        raise ValueError(f"ip -j link shows no single {interface}")
    link = links[0]
    flags = link.get("flags", [])
    addresses: list[Address] = []
    for entry in _json_list(addr_json, "ip -j addr"):
        for info in entry.get("addr_info", []):
            addresses.append(_address(info))
    routes = [
        _route(route)
        for route in _json_list(route_json, "ip -j route")
        if route.get("protocol") != "kernel"
        and route.get("type") not in _KERNEL_TYPES
        and "nhid" not in route
        and interface in _route_devices(route)
    ]
    return PortState(
        interface=interface,
        mtu=int(link["mtu"]),
        up="UP" in flags,
        addresses=tuple(addresses),
        routes=tuple(routes),
        sysctls=read_sysctls(interface, sysctl_text),
    )


def read_sysctls(interface: str, text: str) -> tuple[tuple[str, str], ...]:
    """SYSCTL_SCRIPT's "ipv4/conf/IF/KEY<TAB>VALUE" lines -> sorted (key, value) pairs,
    keys without the interface ("ipv4/conf/KEY")."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        path, tab, value = line.partition("\t")
        parts = path.split("/")
        if not tab or len(parts) != 4 or parts[2] != interface or parts[3] in _SECRET_SYSCTLS:
            continue
        family, kind, _, key = parts
        found[f"{family}/{kind}/{key}"] = value
    return tuple(sorted(_sysctls(found).items()))


def _sysctls(data: object) -> dict[str, str]:
    if not isinstance(data, dict):
        raise ValueError(f"sysctls {data!r}")
    for key, value in data.items():
        if not isinstance(key, str) or not _SYSCTL_KEY.fullmatch(key):
            raise ValueError(f"sysctl {key!r}")
        if key.rpartition("/")[2] in _SECRET_SYSCTLS:
            raise ValueError(f"sysctl {key!r} is not kept")
        if not isinstance(value, str) or not _SYSCTL_VALUE.fullmatch(value):
            raise ValueError(f"sysctl {key} value {value!r}")
    return {key: data[key] for key in sorted(data)}


def added_qdiscs(qdisc_json: str) -> list[str]:
    """`tc -j qdisc show dev IF` -> the qdiscs someone added ("tbf 8001: root"): the
    kernel's own have handle 0: (noqueue, mq and its children, the default qdisc);
    ingress and clsact have ffff:."""
    found = []
    for qdisc in _json_list(qdisc_json, "tc -j qdisc"):
        handle = str(qdisc.get("handle", ""))
        if handle != "0:":
            where = "root" if qdisc.get("root") else f"parent {qdisc.get('parent', '?')}"
            found.append(f"{qdisc.get('kind', '?')} {handle} {where}")
    return found


def route_ports(route_json: str) -> set[str]:
    """The ports of the routes `ip -j route show` printed, every nexthop's of a
    multipath route; ValueError when the text is not what ip prints."""
    return {dev for route in _json_list(route_json, "ip -j route") for dev in _route_devices(route)}


def nexthop_ids(nexthop_json: str) -> list[str]:
    """The ids of the nexthop objects `ip -j nexthop show` printed."""
    return [str(found.get("id")) for found in _json_list(nexthop_json, "ip -j nexthop")]


def qdisc_deletes(qdiscs: list[str]) -> list[str]:
    """What `tc qdisc del dev IF` takes to remove added_qdiscs' "tbf 8001: root",
    "ingress ffff: parent ffff:fff1", "tbf 8002: parent :1" (under the kernel's mq):
    "root", "ingress", "parent :1"; a root takes the qdiscs under it along."""
    found: dict[str, None] = {}
    for qdisc in qdiscs:
        kind, _, where = qdisc.split(" ", 2)
        found[where if where == "root" else kind if kind in ("ingress", "clsact") else where] = None
    if "root" in found:
        found = {d: None for d in found if not d.startswith("parent ")}
    return list(found)


def _json_list(text: str, what: str) -> list[dict[str, Any]]:
    try:
        found = json.loads(text or "[]")
    except json.JSONDecodeError as error:
        raise ValueError(f"{what} printed no JSON: {error}") from None
    if not isinstance(found, list) or not all(isinstance(item, dict) for item in found):
        raise ValueError(f"{what} printed no list of objects")
    return found


def _address(info: dict[str, Any]) -> Address:
    family = info["family"]
    if family not in ("inet", "inet6"):
        raise ValueError(f"address family {family!r}")
    local = str(ipaddress.ip_address(info["local"]))
    prefix = info["prefixlen"]
    if not isinstance(prefix, int) or not 0 <= prefix <= (32 if family == "inet" else 128):
        raise ValueError(f"prefix length {prefix!r}")
    broadcast = info.get("broadcast")
    if broadcast is not None:
        broadcast = str(ipaddress.ip_address(broadcast))
    return Address(
        family=family,
        local=local,
        prefixlen=prefix,
        broadcast=broadcast,
        scope=_word(info.get("scope")),
        label=None if info.get("label") is None else check_interface(str(info["label"])),
        flags=_flags(info),
    )


def _flags(info: dict[str, Any]) -> tuple[str, ...]:
    """From `ip -j addr` ("nodad": true) or a journal row ("flags": ["nodad"])."""
    listed = info.get("flags", [])
    if not isinstance(listed, list):
        raise ValueError(f"address flags {listed!r}")
    for flag in listed:
        if flag not in _ADDRESS_FLAGS:
            raise ValueError(f"address flag {flag!r}")
    return tuple(f for f in _ADDRESS_FLAGS if f in listed or info.get(f) is True)


def _route_devices(route: dict[str, Any]) -> list[str]:
    """The ports `ip -j route` names for a route: its own, or its nexthops'."""
    hops = route.get("nexthops")
    if isinstance(hops, list):
        return [str(hop.get("dev")) for hop in hops if isinstance(hop, dict)]
    return [str(route["dev"])] if "dev" in route else []


def _nexthop_json(hop: Nexthop) -> dict[str, Any]:
    return {
        "dev": hop.dev,
        "weight": hop.weight,
        **({"gateway": hop.gateway} if hop.gateway is not None else {}),
        **({"onlink": True} if hop.onlink else {}),
    }


def _nexthop(hop: dict[str, Any]) -> Nexthop:
    """From `ip -j route` ("flags": ["onlink"]) or a journal row ("onlink": true)."""
    gateway = hop.get("gateway")
    if gateway is not None:
        gateway = str(ipaddress.ip_address(gateway))
    weight = hop.get("weight", 1)
    if not isinstance(weight, int) or isinstance(weight, bool) or not 1 <= weight <= 256:
        raise ValueError(f"nexthop weight {weight!r}")
    flags = hop.get("flags", [])
    onlink = hop.get("onlink") is True or (isinstance(flags, list) and "onlink" in flags)
    return Nexthop(
        dev=check_interface(str(hop["dev"])), gateway=gateway, weight=weight, onlink=onlink
    )


def _route(route: dict[str, Any]) -> Route:
    fields: list[tuple[str, str]] = []
    for key in _ROUTE_KEYS:
        value = route.get(key)
        if value is None:
            continue
        text = str(value)
        if key in ("dst", "gateway", "prefsrc"):
            if not (key == "dst" and text == "default"):
                network = ipaddress.ip_network(text, strict=False)
                if key != "dst" and network.num_addresses != 1:
                    raise ValueError(f"route {key} {text!r}")
        else:
            _word(text)
        fields.append((key, text))
    # `ip -j route` lists it in flags; a journal row says "onlink": true.
    flags = route.get("flags", [])
    onlink = route.get("onlink") is True or (isinstance(flags, list) and "onlink" in flags)
    hops = route.get("nexthops", [])
    if not isinstance(hops, list) or not all(isinstance(hop, dict) for hop in hops):
        raise ValueError(f"route nexthops {hops!r}")
    return Route(fields=tuple(fields), onlink=onlink, nexthops=tuple(_nexthop(h) for h in hops))


def _word(value: object) -> str | None:
    """A scope, protocol, table or type as ip names it: a plain word, never an option."""
    if value is None:
        return None
    text = str(value)
    if not text or text.startswith("-") or not set(text) <= _WORD:
        raise ValueError(f"{text!r} is not a word ip prints")
    return text
