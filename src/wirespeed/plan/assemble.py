"""From the plain data of a plan file to a Plan, section by section.

Every section is checked even when another one failed, and every reference (a path's
hosts, a test's paths) even when some entries did not validate: one run of `wirespeed
check` lists everything there is to fix. Names that were declared but did not validate
are not reported again as unknown.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from wirespeed.hosts.ssh_target import SshTarget
from wirespeed.lab.links import parse_link
from wirespeed.model import ModelError, PathSpec, PowerSettings, Topology
from wirespeed.plan.assemble_paths import Names, lab_limit, plan_paths, section, unique_entries
from wirespeed.plan.bench import bench_spec, describe_bench, options_model, with_options
from wirespeed.plan.checks import RunsOn, check_test_on_paths
from wirespeed.plan.collect import Collector, M, salvage
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
from wirespeed.plan.schema import (
    EXTENSION_PREFIX,
    TEST_ONLY_KEYS,
    TOP_LEVEL_KEYS,
    Header,
    HostEntry,
    LabEntry,
    PowerEntry,
    TestEntry,
    TestSettings,
    VariantEntry,
    check_name,
)
from wirespeed.plan.tunnel_checks import (
    check_tunnel_datagrams,
    variant_tunnel,
)
from wirespeed.plan.yamltree import Loc

_IN_A_TEST = "belongs to each test, not to defaults"


def assemble(data: dict[Any, Any], out: Collector, *, text: str) -> Plan | None:
    """The Plan, or None when out holds errors."""
    _check_top_level_keys(data, out)
    header = out.validate(Header, data, ())
    lab = _lab(data, out)
    power = _power(data, out)
    hosts, host_names = _hosts(data, out)
    paths, path_names = plan_paths(data, out, lab=lab, hosts=hosts, host_names=host_names)
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


def _optional_section(data: dict[Any, Any], key: str, model: type[M], out: Collector) -> M | None:
    """The section's entry; None where the plan has no such section or it did not
    validate. A key with nothing under it reads as an empty mapping: all defaults."""
    if key not in data:
        return None
    return out.validate(model, data[key] or {}, (key,))


def _power(data: dict[Any, Any], out: Collector) -> PowerSettings | None:
    # `power:` with nothing under it: an idle baseline, the device's own sensors.
    entry = _optional_section(data, "power", PowerEntry, out)
    if entry is None:
        return None
    return PowerSettings(meter=entry.meter, interval=entry.interval, idle=entry.idle)


def _lab(data: dict[Any, Any], out: Collector) -> LabPlan | None:
    # `lab:` with nothing under it asks for a lab with the default link.
    entry = _optional_section(data, "lab", LabEntry, out)
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
    return LabPlan(link=link, limit=lab_limit(entry.dut))


def _hosts(data: dict[Any, Any], out: Collector) -> tuple[dict[str, HostPlan], Names]:
    from wirespeed.plan.ports import check_ports_unique, port_plan

    hosts: dict[str, HostPlan] = {}
    names = Names()
    ports: dict[str, tuple[PortPlan, Loc]] = {}
    for key, value in section(data, "hosts", dict, out).items():
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


def _tests(
    data: dict[Any, Any], out: Collector, *, path_names: Names, power: PowerSettings | None
) -> tuple[list[ResolvedTest], dict[str, ReadExpectations]]:
    """The tests, and what each must reach (`expect:`) by test id."""
    misplaced = {key: f"{key}: {_IN_A_TEST}" for key in TEST_ONLY_KEYS}
    raw_defaults = data.get("defaults") or {}
    defaults = out.validate(TestSettings, raw_defaults, ("defaults",), misplaced=misplaced)
    if defaults is None:  # reported; the tests are still checked against its valid keys
        defaults = salvage(TestSettings, raw_defaults)
    items = section(data, "tests", list, out)
    if "tests" in data and isinstance(data["tests"], list | None) and not items:
        out.error(("tests",), "tests: the plan needs at least one test")
    tests: list[ResolvedTest] = []
    expectations: dict[str, ReadExpectations] = {}
    for loc, entry in unique_entries(items, "tests", TestEntry, out, key="id", what="test id"):
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
                f"(tool: {_one_of(with_options())}); "
                f"{test.case.tool} takes the test's own keys (protocol, direction, "
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
            tool = str(test.case.tool)
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
    items = section(data, "variants", list, out)
    if "variants" in data and isinstance(data["variants"], list | None) and not items:
        out.error(
            ("variants",),
            "variants: the list is empty",
            hint="leave the key out to run everything in the one, unchanged state",
        )
    variants: list[tuple[Variant, Loc]] = []
    for loc, entry in unique_entries(
        items, "variants", VariantEntry, out, key="name", what="variant name"
    ):
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
    path_names: Names,
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
        check_test_on_paths(test, RunsOn(on, variant_mtus, hosts), out)
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
