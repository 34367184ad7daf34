"""The plan's paths, each checked against the lab and the hosts it names: in the lab,
on a device, or between real hosts (plan/assemble.py puts them in the plan)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from pydantic import BaseModel

from wirespeed.lab.links import parse_link
from wirespeed.model import ForwardingLimit, PathSpec, Role, Topology
from wirespeed.plan.collect import Collector
from wirespeed.plan.plan import HostPlan, LabPlan
from wirespeed.plan.problems import did_you_mean
from wirespeed.plan.same_machine import one_machine, one_machine_hint, one_machine_message
from wirespeed.plan.schema import DutEntry, PathEntry
from wirespeed.plan.tunnel_checks import host_tunnel_for, tunnel_for
from wirespeed.plan.yamltree import Loc

M = TypeVar("M", bound=BaseModel)


@dataclass
class Names:
    """Names declared in a section, valid or not, and where each was first declared."""

    valid: dict[str, Loc] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)

    def unknown(self, name: str) -> bool:
        return name not in self.declared


def section(data: dict[Any, Any], key: str, kind: type, out: Collector) -> Any:
    """The section's value if it has the right shape; {} or [] when absent or empty."""
    value = data.get(key)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        what = "a mapping of keys" if kind is dict else "a list"
        out.error((key,), f"{key}: expected {what}")
        return kind()
    return value


def unique_entries(
    items: list[Any], where: str, model: type[M], out: Collector, *, key: str, what: str
) -> Iterator[tuple[Loc, M]]:
    """Each entry of the section `where` that validates as `model` and whose `key` (its id
    or name) no entry before it has: a second one is an error, at its key."""
    seen: dict[str, Loc] = {}
    for index, value in enumerate(items):
        loc: Loc = (where, index)
        entry = out.validate(model, value, loc)
        if entry is None:
            continue
        name = getattr(entry, key)
        if name in seen:
            line = out.line_of(seen[name])
            out.error((*loc, key), f"duplicate {what} {name!r} (first at line {line})")
            continue
        seen[name] = (*loc, key)
        yield loc, entry


def lab_limit(entry: DutEntry | None) -> ForwardingLimit | None:
    """The lab DUT's forwarding limit; None when nothing is set (`dut: {}`)."""
    if entry is None or (entry.forward_pps is None and entry.forward_rate is None):
        return None
    return ForwardingLimit(pps=entry.forward_pps, bps=entry.forward_rate, ring=entry.ring)


def plan_paths(
    data: dict[Any, Any],
    out: Collector,
    *,
    lab: LabPlan | None,
    hosts: Mapping[str, HostPlan],
    host_names: Names,
) -> tuple[dict[str, PathSpec], Names]:
    paths: dict[str, PathSpec] = {}
    names = Names()
    items = section(data, "paths", list, out)
    if "paths" in data and isinstance(data["paths"], list | None) and not items:
        out.error(("paths",), "paths: the plan needs at least one path")
    for index, value in enumerate(items):
        loc: Loc = ("paths", index)
        if isinstance(value, dict) and isinstance(value.get("name"), str | int):
            names.declared.add(str(value["name"]))
        entry = out.validate(PathEntry, value, loc)
        if entry is None:
            continue
        if entry.name in names.valid:
            line = out.line_of(names.valid[entry.name])
            out.error((*loc, "name"), f"duplicate path name {entry.name!r} (first at line {line})")
            continue
        names.valid[entry.name] = (*loc, "name")
        no_ends = entry.client is None and entry.server is None
        if isinstance(entry.dut, dict) and not (no_ends and entry.topology is not Topology.DEVICE):
            _misplaced_limits(entry, loc, out)
            path = None
        elif entry.topology is Topology.DEVICE:
            path = _device_path(entry, loc, lab, host_names, out, lab_declared="lab" in data)
        elif no_ends and isinstance(entry.dut, str) and "lab" in data:
            out.error(
                (*loc, "dut"),
                f"path {entry.name!r} names no client or server, so it runs in the lab, "
                "whose DUT is no host of the plan",
                hint=f"give client: and server: from hosts: for a path through {entry.dut!r}, "
                "or write dut: {forward_pps: N} to limit the lab's DUT on this path",
            )
            path = None
        elif no_ends:
            path = _lab_path(entry, loc, lab, out, lab_declared="lab" in data)
        else:
            path = _host_path(entry, loc, hosts, host_names, out)
        if path is not None:
            paths[path.name] = path
    return paths, names


def _misplaced_limits(entry: PathEntry, loc: Loc, out: Collector) -> None:
    """A mapping of DUT limits on a path whose DUT is no lab DUT that forwards."""
    if entry.topology is Topology.DEVICE:
        message = f"path {entry.name!r} is a device path: its dut: is the host benchmarks run on"
        hint = "forward_pps and forward_rate limit a lab DUT that forwards: give them to a "
        hint += "bridge, router or nat path in the lab"
    else:
        message = (
            f"path {entry.name!r} runs between real hosts: its dut: names a host, "
            "and a real device's limits are its own"
        )
        hint = "forward_pps and forward_rate limit the lab's DUT: leave out client: and "
        hint += "server: to run the path in the lab, or give dut: a host from hosts:"
    out.error((*loc, "dut"), message, hint=hint)


def _lab_path(
    entry: PathEntry, loc: Loc, lab: LabPlan | None, out: Collector, *, lab_declared: bool
) -> PathSpec | None:
    if lab is None and lab_declared:
        return None  # the lab's own errors are reported
    if lab is None:
        out.error(
            loc,
            f"path {entry.name!r} names no hosts and the plan has no lab",
            hint="add `lab: {link: gbe}` to emulate it on this machine, "
            "or give the path client: and server: from hosts:",
        )
        return None
    if entry.link is not None:
        out.error(
            (*loc, "link"),
            f"path {entry.name!r} runs in the lab, whose link is set under lab:",
            hint="move link: to lab:, or name real hosts in this path",
        )
        return None
    # A path's own dut: replaces the lab's whole (`dut: {}`: no limit on this path).
    limit = lab.limit
    if isinstance(entry.dut, dict):
        dut_entry = out.validate(DutEntry, entry.dut, (*loc, "dut"))
        if dut_entry is None:
            return None
        limit = lab_limit(dut_entry)
    if limit is not None and entry.topology is Topology.ENDPOINT:
        # Only a path's own limit is an error: the lab's default is for paths that forward.
        if isinstance(entry.dut, dict):
            out.error(
                (*loc, "dut"),
                f"path {entry.name!r} is an endpoint path: its DUT is the server and "
                "forwards nothing to limit",
                hint="limit a bridge, router or nat path, or measure the endpoint without",
            )
            return None
        limit = None
    tunnel_ok, tunnel = tunnel_for(entry, loc, entry.topology, out)
    if not tunnel_ok:
        return None
    # In the lab the DUT runs the server of an endpoint path (the seeds' "WAN" test).
    server = Role.DUT if entry.topology is Topology.ENDPOINT else Role.SERVER
    return PathSpec(
        name=entry.name,
        topology=entry.topology,
        client=Role.CLIENT.value,
        server=server.value,
        dut=Role.DUT.value,
        link=lab.link,
        limit=limit,
        tunnel=tunnel,
    )


# What a device path cannot have, as no traffic crosses it: the key, why, what to do.
_NO_TRAFFIC = (
    ("link", "no traffic crosses a link there", "remove link:"),
    (
        "tunnel",
        "no traffic goes through a tunnel there",
        "put the tunnel on an endpoint, bridge, router or nat path",
    ),
)


def _device_path(
    entry: PathEntry,
    loc: Loc,
    lab: LabPlan | None,
    host_names: Names,
    out: Collector,
    *,
    lab_declared: bool,
) -> PathSpec | None:
    """A path with no traffic: benchmarks run on its DUT, a host of the plan or, without
    one, the lab's DUT. Client, server and DUT are that host, so that every role names it."""
    for role in ("client", "server"):
        if getattr(entry, role) is not None:
            out.error(
                (*loc, role),
                f"path {entry.name!r} is a device path: benchmarks run on its dut alone, "
                f"it has no {role}",
                hint="give dut: only (or nothing, for the lab's DUT)",
            )
            return None
    for key, why, hint in _NO_TRAFFIC:
        if getattr(entry, key) is not None:
            out.error((*loc, key), f"path {entry.name!r} is a device path: {why}", hint=hint)
            return None
    if entry.dut is None:
        if lab is None and lab_declared:
            return None
        if lab is None:
            out.error(
                loc,
                f"device path {entry.name!r} names no dut and the plan has no lab",
                hint="give dut: a host from hosts: (localhost, or one with ssh:), "
                "or add `lab: {link: gbe}` to run on the lab's DUT",
            )
            return None
        name = Role.DUT.value
    else:
        host = entry.dut_host
        assert host is not None  # a mapping was refused before (_misplaced_limits)
        name = host
        if host_names.unknown(name):
            known = sorted(host_names.declared)
            out.error(
                (*loc, "dut"),
                f"unknown host {name!r}{did_you_mean(name, known)}",
                hint=f"hosts are {', '.join(known)}" if known else "declare it under hosts:",
            )
            return None
    return PathSpec(entry.name, Topology.DEVICE, name, name, name, None)


def _host_path(
    entry: PathEntry,
    loc: Loc,
    hosts: Mapping[str, HostPlan],
    host_names: Names,
    out: Collector,
) -> PathSpec | None:
    ok = True
    for role in ("client", "server"):
        if getattr(entry, role) is None:
            out.error(loc, f"path {entry.name!r} between real hosts needs {role}:")
            ok = False
    for role, name in (("client", entry.client), ("server", entry.server), ("dut", entry.dut_host)):
        if name is not None and host_names.unknown(name):
            known = sorted(host_names.declared)
            hint = f"hosts are {', '.join(known)}" if known else "declare it under hosts:"
            out.error(
                (*loc, role),
                f"unknown host {name!r}{did_you_mean(name, known)}",
                hint=hint,
            )
            ok = False
    if not ok or entry.client is None or entry.server is None:
        return None
    client, server, dut = entry.client, entry.server, entry.dut_host
    if client == server:
        # Legitimate as a baseline (what the host itself can push through loopback), but
        # rarely what a plan about a device means.
        out.warn(
            (*loc, "server"),
            f"path {entry.name!r}: client and server are the same host: "
            "the traffic never leaves it (a loopback baseline)",
        )
    elif (
        entry.topology is not Topology.ENDPOINT
        and client in hosts
        and server in hosts
        and one_machine(hosts[client], hosts[server])
    ):
        out.error(
            (*loc, "server"),
            one_machine_message(entry.name, dut, hosts[client], hosts[server]),
            hint=one_machine_hint(hosts[client], hosts[server]),
        )
        return None
    if entry.topology is Topology.ENDPOINT:
        if dut is not None and dut != server:
            out.error(
                (*loc, "dut"),
                f"path {entry.name!r} is an endpoint path: the DUT runs the server, "
                f"so dut must be {server!r} (or left out)",
            )
            return None
        dut = server
    elif dut in (client, server):
        out.error(
            (*loc, "dut"),
            f"path {entry.name!r}: in a {entry.topology.value} path the DUT sits between "
            "client and server, it cannot be one of them",
            hint="use topology: endpoint to measure the DUT as the server",
        )
        return None
    server_host = hosts.get(server)
    if server_host is not None and server_host.traffic_address is None:
        out.error(
            (*loc, "server"),
            f"path {entry.name!r}: server {server!r} has no address for the client to connect to",
            hint=f"give hosts.{server} an address: or ssh:",
        )
        return None
    tunnel_ok, tunnel = host_tunnel_for(entry, loc, hosts, out)
    if not tunnel_ok:
        return None
    link = parse_link(entry.link) if entry.link is not None else None
    if link is not None:
        # A port end whose MTU is set carries packets of that size at most: its path's
        # ceiling is the smaller MTU's.
        mtus = [
            port.mtu
            for name in (client, server)
            if (host := hosts.get(name)) is not None
            and (port := host.port) is not None
            and port.mtu is not None
        ]
        if mtus and min(mtus) < link.mtu:
            link = dataclasses.replace(link, mtu=min(mtus))
    return PathSpec(entry.name, entry.topology, client, server, dut, link, tunnel=tunnel)
