"""From the plain data of a plan file to a Plan, section by section.

Every section is checked even when another one failed, and every reference (a path's
hosts, a test's paths) even when some entries did not validate: one run of `wirespeed
check` lists everything there is to fix. Names that were declared but did not validate
are not reported again as unknown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from wirespeed.hosts.ssh_target import SshTarget
from wirespeed.lab.links import parse_link
from wirespeed.model import ForwardingLimit, ModelError, PathSpec, PowerSettings, Role, Topology
from wirespeed.plan.bench import bench_spec, describe_bench, options_model, with_options
from wirespeed.plan.checks import check_test_on_paths
from wirespeed.plan.collect import Collector, salvage
from wirespeed.plan.expect import ReadExpectations, read_expect
from wirespeed.plan.plan import (
    DEFAULT_VARIANTS,
    HostPlan,
    LabPlan,
    Plan,
    PortPlan,
    Variant,
    runs_on,
)
from wirespeed.plan.plan_kind import stray_keys, stray_message
from wirespeed.plan.problems import did_you_mean
from wirespeed.plan.resolve import ResolvedTest, resolve
from wirespeed.plan.same_machine import one_machine, one_machine_hint, one_machine_message
from wirespeed.plan.schema import (
    EXTENSION_PREFIX,
    TEST_ONLY_KEYS,
    TOP_LEVEL_KEYS,
    DutEntry,
    Header,
    HostEntry,
    LabEntry,
    PathEntry,
    PowerEntry,
    TestEntry,
    TestSettings,
    VariantEntry,
    check_name,
)
from wirespeed.plan.tunnel_checks import (
    check_tunnel_datagrams,
    host_tunnel_for,
    tunnel_for,
    variant_tunnel,
)
from wirespeed.plan.yamltree import Loc


@dataclass
class _Names:
    """Names declared in a section, valid or not, and where each was first declared."""

    valid: dict[str, Loc] = field(default_factory=dict)
    declared: set[str] = field(default_factory=set)

    def unknown(self, name: str) -> bool:
        return name not in self.declared


def assemble(data: dict[Any, Any], out: Collector, *, text: str) -> Plan | None:
    """The Plan, or None when out holds errors."""
    _check_top_level_keys(data, out)
    header = out.validate(Header, data, ())
    lab = _lab(data, out)
    power = _power(data, out)
    hosts, host_names = _hosts(data, out)
    paths, path_names = _paths(data, out, lab=lab, hosts=hosts, host_names=host_names)
    tests, expectations = _tests(data, out, path_names=path_names, power=power)
    variants = _variants(data, out, tests=tests, paths=paths)
    _check_expected_variants(data, expectations, variants, out)
    _cross_checks(
        out, hosts=hosts, paths=paths, path_names=path_names, tests=tests, variants=variants
    )
    if out.errors or header is None:
        return None
    try:
        return Plan(
            title=header.title,
            source=out.source,
            text=text,
            lab=lab,
            power=power,
            hosts=MappingProxyType(hosts),
            paths=tuple(paths.values()),
            tests=tuple(test.case for test in tests),
            repetitions=header.repetitions,
            test_paths=MappingProxyType(
                {test.case.id: test.paths for test in tests if test.paths is not None}
            ),
            warnings=tuple(out.warnings),
            variants=tuple(variant for variant, _ in variants) or DEFAULT_VARIANTS,
            expectations=MappingProxyType(
                {
                    test_id: read.expectations
                    for test_id, read in expectations.items()
                    if read.expectations.everywhere
                    or read.expectations.paths
                    or read.expectations.variants
                }
            ),
        )
    except (ModelError, ValueError) as error:  # a check above should have caught it
        out.error((), str(error))
        return None


def _check_top_level_keys(data: dict[Any, Any], out: Collector) -> None:
    for key in data:
        # x-… keys hold YAML anchors to reuse (`x-udp: &udp {protocol: udp}`).
        if isinstance(key, str) and key.startswith(EXTENSION_PREFIX):
            continue
        if key in stray_keys(data):  # a soak plan's `soak:` in a run plan
            message, hint = stray_message(str(key), soak=False)
            out.error((key,), message, hint=hint, key=True)
        elif key not in TOP_LEVEL_KEYS:
            out.error(
                (key,),
                f"unknown key {str(key)!r}{did_you_mean(str(key), TOP_LEVEL_KEYS)}",
                key=True,
            )
    for key in ("paths", "tests"):
        if key not in data:
            out.error((), f"missing key {key!r}: a plan needs paths and tests")


def _section(data: dict[Any, Any], key: str, kind: type, out: Collector) -> Any:
    """The section's value if it has the right shape; {} or [] when absent or empty."""
    value = data.get(key)
    if value is None:
        return kind()
    if not isinstance(value, kind):
        what = "a mapping of keys" if kind is dict else "a list"
        out.error((key,), f"{key}: expected {what}")
        return kind()
    return value


def _power(data: dict[Any, Any], out: Collector) -> PowerSettings | None:
    if "power" not in data:
        return None
    # `power:` with nothing under it: an idle baseline, the device's own sensors.
    entry = out.validate(PowerEntry, data["power"] or {}, ("power",))
    if entry is None:
        return None
    return PowerSettings(meter=entry.meter, interval=entry.interval, idle=entry.idle)


def _lab(data: dict[Any, Any], out: Collector) -> LabPlan | None:
    if "lab" not in data:
        return None
    # `lab:` with nothing under it asks for a lab with the default link.
    entry = out.validate(LabEntry, data["lab"] or {}, ("lab",))
    if entry is None:
        return None
    if entry.queue is not None and parse_link(entry.link).rate_bps is None:
        out.error(
            ("lab", "queue"),
            "a queue needs a shaped link: an unshaped lab has no bottleneck to queue at",
            hint="give the link a rate (link: 100mbit) or leave queue: out",
        )
        return None
    link = parse_link(entry.link, mtu=entry.mtu, queue=entry.queue)
    return LabPlan(link=link, limit=_limit(entry.dut))


def _limit(entry: DutEntry | None) -> ForwardingLimit | None:
    """The lab DUT's forwarding limit; None when nothing is set (`dut: {}`)."""
    if entry is None or (entry.forward_pps is None and entry.forward_rate is None):
        return None
    return ForwardingLimit(pps=entry.forward_pps, bps=entry.forward_rate, ring=entry.ring)


def _hosts(data: dict[Any, Any], out: Collector) -> tuple[dict[str, HostPlan], _Names]:
    from wirespeed.plan.ports import check_ports_unique, port_plan

    hosts: dict[str, HostPlan] = {}
    names = _Names()
    ports: dict[str, tuple[PortPlan, Loc]] = {}
    for key, value in _section(data, "hosts", dict, out).items():
        names.declared.add(str(key))
        try:
            name = check_name(key)
        except ValueError as error:
            out.error(("hosts", key), f"host name: {error}", key=True)
            continue
        # `laptop:` with nothing under it: this machine, no address known.
        entry = out.validate(HostEntry, value or {}, ("hosts", key))
        if entry is None:
            continue
        ssh = SshTarget.parse(entry.ssh) if entry.ssh is not None else None
        port = port_plan(name, entry, ("hosts", key), out)
        if port is not None:
            ports[name] = (port, ("hosts", key))
        elif entry.port is not None or (entry.address and "/" in entry.address):
            continue  # its problems were recorded
        hosts[name] = HostPlan(name=name, address=entry.address, ssh=ssh, port=port)
        names.valid[name] = ("hosts", key)
    check_ports_unique(ports, out)
    return hosts, names


def _paths(
    data: dict[Any, Any],
    out: Collector,
    *,
    lab: LabPlan | None,
    hosts: Mapping[str, HostPlan],
    host_names: _Names,
) -> tuple[dict[str, PathSpec], _Names]:
    paths: dict[str, PathSpec] = {}
    names = _Names()
    items = _section(data, "paths", list, out)
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
        limit = _limit(dut_entry)
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


def _device_path(
    entry: PathEntry,
    loc: Loc,
    lab: LabPlan | None,
    host_names: _Names,
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
    if entry.link is not None:
        out.error(
            (*loc, "link"),
            f"path {entry.name!r} is a device path: no traffic crosses a link there",
            hint="remove link:",
        )
        return None
    if entry.tunnel is not None:
        out.error(
            (*loc, "tunnel"),
            f"path {entry.name!r} is a device path: no traffic goes through a tunnel there",
            hint="put the tunnel on an endpoint, bridge, router or nat path",
        )
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
    host_names: _Names,
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


_IN_A_TEST = "belongs to each test, not to defaults"


def _tests(
    data: dict[Any, Any], out: Collector, *, path_names: _Names, power: PowerSettings | None
) -> tuple[list[ResolvedTest], dict[str, ReadExpectations]]:
    """The tests, and what each must reach (`expect:`) by test id."""
    misplaced = {key: f"{key}: {_IN_A_TEST}" for key in TEST_ONLY_KEYS}
    raw_defaults = data.get("defaults") or {}
    defaults = out.validate(TestSettings, raw_defaults, ("defaults",), misplaced=misplaced)
    if defaults is None:  # reported; the tests are still checked against its valid keys
        defaults = salvage(TestSettings, raw_defaults)
    items = _section(data, "tests", list, out)
    if "tests" in data and isinstance(data["tests"], list | None) and not items:
        out.error(("tests",), "tests: the plan needs at least one test")
    tests: list[ResolvedTest] = []
    expectations: dict[str, ReadExpectations] = {}
    seen: dict[str, Loc] = {}
    for index, value in enumerate(items):
        loc: Loc = ("tests", index)
        entry = out.validate(TestEntry, value, loc)
        if entry is None:
            continue
        if entry.id in seen:
            line = out.line_of(seen[entry.id])
            out.error((*loc, "id"), f"duplicate test id {entry.id!r} (first at line {line})")
            continue
        seen[entry.id] = (*loc, "id")
        for position, name in enumerate(entry.paths or ()):
            if path_names.unknown(name):
                known = sorted(path_names.declared)
                out.error(
                    (*loc, "paths", position),
                    f"unknown path {name!r}{did_you_mean(name, known)}",
                    hint=f"paths are {', '.join(known)}" if known else None,
                )
        try:
            test = resolve(entry, loc, defaults)
        except ModelError as error:
            out.error(loc, f"test {entry.id!r}: {error}")
            continue
        if options_model(test.case.tool) is not None:
            validated = bench_spec(entry, test.case.tool, loc, out)
            if validated is None:
                continue
            name = entry.name if entry.name is not None else describe_bench(test.case.tool)
            case = dataclasses.replace(test.case, name=name).with_options(*validated)
            test = dataclasses.replace(test, case=case)
        elif entry.options is not None:
            out.error(
                (*loc, "options"),
                f"test {entry.id!r}: options: are a benchmark's or a search's settings "
                f"(tool: {_one_of(tool.value for tool in with_options())}); "
                f"{test.case.tool.value} takes the test's own keys (protocol, direction, "
                "parallel ...)",
                key=True,
            )
            continue
        tests.append(test)
        runs_on = path_names.declared if test.paths is None else set(test.paths)
        expectations[entry.id] = read_expect(
            entry.expect,
            loc,
            test.case,
            out,
            paths=runs_on,
            declared_paths=path_names.declared,
            power=power,
        )
    return tests, expectations


def _one_of(words: Iterable[str]) -> str:
    """ "a, b or c"."""
    *first, last = words
    return f"{', '.join(first)} or {last}" if first else last


def _paths_kind_checks(
    tests: list[ResolvedTest], paths: Mapping[str, PathSpec], out: Collector
) -> None:
    """A benchmark runs on a device path, a traffic test on the others: a test limited
    to a path of the other kind is pointed at."""
    for test in tests:
        for position, name in enumerate(test.paths or ()):
            path = paths.get(name)
            if path is None or runs_on(test.case.tool, path):
                continue
            tool = test.case.tool.value
            if test.case.tool.moves_traffic:
                message = (
                    f"test {test.case.id!r}: {tool} needs a client and a server, and "
                    f"{name!r} is a device path (no traffic)"
                )
                hint = "run it on a path of topology endpoint, bridge, router or nat"
            else:
                message = (
                    f"test {test.case.id!r}: {tool} runs on one host, and {name!r} is a "
                    f"path of topology {path.topology.value}"
                )
                hint = "add a path `{name: DUT, topology: device}` (dut: a host, or the lab's)"
            out.error((*test.loc, "paths", position), message, hint=hint)


def _variants(
    data: dict[Any, Any],
    out: Collector,
    *,
    tests: list[ResolvedTest],
    paths: Mapping[str, PathSpec],
) -> list[tuple[Variant, Loc]]:
    """The declared variants with where each was written; [] when there is no section."""
    items = _section(data, "variants", list, out)
    if "variants" in data and isinstance(data["variants"], list | None) and not items:
        out.error(
            ("variants",),
            "variants: the list is empty",
            hint="leave the key out to run everything in the one, unchanged state",
        )
    variants: list[tuple[Variant, Loc]] = []
    seen: dict[str, Loc] = {}
    for index, value in enumerate(items):
        loc: Loc = ("variants", index)
        entry = out.validate(VariantEntry, value, loc)
        if entry is None:
            continue
        if entry.name in seen:
            line = out.line_of(seen[entry.name])
            out.error(
                (*loc, "name"), f"duplicate variant name {entry.name!r} (first at line {line})"
            )
            continue
        seen[entry.name] = (*loc, "name")
        variant = Variant(
            name=entry.name,
            mtu=entry.mtu,
            rps=entry.rps,
            xps=entry.xps,
            offloads=tuple((entry.offloads or {}).items()),
            cpus_online=None if entry.cpus_online is None else tuple(entry.cpus_online),
            governor=entry.governor,
            max_freq=tuple(sorted((entry.max_freq or {}).items())),
            tunnel=variant_tunnel(entry.tunnel, loc, paths, out, variant=entry.name),
            tune=entry.tune,
            tests=None if entry.tests is None else tuple(entry.tests),
        )
        known = [test.case.id for test in tests]
        for test_id in variant.tests or ():
            if test_id not in known:
                out.error(
                    (*loc, "tests"),
                    f"variant {variant.name!r} names test {test_id!r}, which the plan "
                    f"does not have{did_you_mean(test_id, known)}",
                    hint=f"test ids are {', '.join(known)}",
                )
        if variant.mtu is not None:
            # One MTU per trial: a test's own would silently beat the variant's.
            fixed = [test.case.id for test in tests if test.case.spec.mtu is not None]
            if fixed:
                out.error(
                    (*loc, "mtu"),
                    f"variant {variant.name!r} sets mtu, and so do tests "
                    f"{', '.join(repr(t) for t in fixed)}: each trial has one MTU",
                    hint="set mtu in the variants only (and leave it out of tests and "
                    "defaults), so every test runs at each variant's MTU",
                )
        variants.append((variant, loc))
    return variants


def _check_expected_variants(
    data: dict[Any, Any],
    expectations: Mapping[str, ReadExpectations],
    variants: list[tuple[Variant, Loc]],
    out: Collector,
) -> None:
    """`expect.variants` names only variants the plan has (`default` when it has none)."""
    if "variants" in data:
        raw = data["variants"] if isinstance(data["variants"], list) else []
        declared = {str(v["name"]) for v in raw if isinstance(v, dict) and "name" in v}
        declared |= {variant.name for variant, _ in variants}
    else:
        declared = {variant.name for variant in DEFAULT_VARIANTS}
    known = sorted(declared)
    for read in expectations.values():
        for name, loc in read.variant_refs:
            if name not in declared:
                out.error(
                    loc,
                    f"expect.variants: unknown variant {name!r}{did_you_mean(name, known)}",
                    hint=f"variants are {', '.join(known)}",
                    key=True,
                )


def _cross_checks(
    out: Collector,
    *,
    hosts: Mapping[str, HostPlan],
    paths: Mapping[str, PathSpec],
    path_names: _Names,
    tests: list[ResolvedTest],
    variants: list[tuple[Variant, Loc]],
) -> None:
    variant_mtus = [(v.name, v.mtu) for v, _ in variants if v.mtu is not None]
    _paths_kind_checks(tests, paths, out)
    for test in tests:
        chosen = test.paths
        on = [p for p in paths.values() if chosen is None or p.name in chosen]
        if test.case.bench is not None:
            continue  # its options were checked by its kind's own model
        check_test_on_paths(test, on, out, variant_mtus=variant_mtus, hosts=hosts)
        for path in on:
            check_tunnel_datagrams(test, path, out)
    used = {name for p in paths.values() for name in (p.client, p.server, p.dut)}
    for test in tests:
        # A search's `senders:` use their hosts too.
        search = test.case.search.as_dict() if test.case.search is not None else {}
        more = search.get("senders")
        if isinstance(more, list):
            used.update(str(name) for name in more)
    for name in hosts:
        if name not in used:
            out.warn(("hosts", name), f"host {name!r} is not used by any path", key=True)
    for path in paths.values():
        if tests and not any(
            path.name in t.paths if t.paths is not None else runs_on(t.case.tool, path)
            for t in tests
        ):
            kind = (
                "benchmark (openssl, 7zip, unixbench)"
                if path.topology is Topology.DEVICE
                else "test"
            )
            out.warn(path_names.valid[path.name], f"no {kind} runs on path {path.name!r}")
