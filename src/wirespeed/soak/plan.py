"""Soak plan files: where the stream runs (a lab path or real hosts) and `soak:`.

    title: Router soak, two injected outages
    lab: {link: gbe}
    path: {name: R, topology: router}
    soak:
      duration: 40s        # how long the stream runs (a number is seconds; 10m, 14h)
      interval: 10ms       # one probe each way every interval (100 packets/s)
      chunk: 60s           # irtt runs this long; what a killed soak loses at most
      outage: 10           # consecutive lost probes that make an outage
      match_window: 2s     # kernel events this near an outage are matched with it
      ethtool: [wan]       # DUT interfaces whose `ethtool -S` counters are read per chunk
      bursts: {every: 10m, duration: 30s}   # iperf3 load on a schedule (optional)
      faults:              # lab only: outages of known start and length
        - {at: 10s, down: 3.2s, kind: link}
        - {at: 25s, down: 1.5s, kind: forwarding}
    expect:                # optional: exit status 5 when one is not met
      outages per hour: "<= 0.5"
      longest outage: "<= 5 s"
    variants:              # lab only, optional: one soak per state, one after the other
      - {name: gro-on, offloads: {gro: on}}
      - {name: gro-off, offloads: {gro: off}}

On real hosts, `path:` names `client`, `server` (both run irtt) and `dut` (whose kernel
log and counters are followed, over SSH) from `hosts:`, as docs/plan-format.md says.
"""

from __future__ import annotations

import math
import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, model_validator

from wirespeed.expectations import Expectation, parse_comparison, unit_rule
from wirespeed.plan.collect import Collector
from wirespeed.plan.plan import Variant
from wirespeed.plan.plan_kind import is_soak_file, stray_keys, stray_message
from wirespeed.plan.problems import PlanError, Problem, did_you_mean, one_of
from wirespeed.plan.schema import (
    DutEntry,
    Entry,
    HostEntry,
    LabEntry,
    PathEntry,
    VariantEntry,
)
from wirespeed.plan.yamltree import Loc, YamlProblem, load_yaml
from wirespeed.soak.faults import DEVICE_FAULT_KINDS, FAULT_KINDS
from wirespeed.soak.measurements import SOAK_YIELDS
from wirespeed.soak.outages import DEFAULT_THRESHOLD

__all__ = [
    "BurstEntry",
    "FaultEntry",
    "SoakEntry",
    "SoakFile",
    "is_soak_plan",
    "parse_soak_plan",
    "seconds",
    "soak_variants",
]

MAX_SOAK = 7 * 86400.0
_UNITS = {"ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h|d)?\s*$")


def seconds(value: object) -> float:
    """10, 0.5, "10ms", "60s", "10m", "14h" -> seconds."""
    if isinstance(value, bool):
        raise ValueError("a duration is a number of seconds or a text like 10m")
    if isinstance(value, (int, float)):
        return float(value)
    found = _DURATION.match(str(value))
    if not found:
        raise ValueError(f"{value!r} is no duration (write 10ms, 60s, 10m, 14h)")
    return float(found[1]) * _UNITS[found[2] or "s"]


def _said(value: float) -> str:
    """604800 -> "7d", 0.01 -> "10ms": a bound in the units a plan writes."""
    if value == 0:
        return "0s"
    for unit in ("d", "h", "m", "s"):
        if value >= _UNITS[unit] and (value / _UNITS[unit]).is_integer():
            return f"{value / _UNITS[unit]:g}{unit}"
    return f"{value * 1000:g}ms"


def _duration(low: float, high: float, *, above: bool = False) -> BeforeValidator:
    """A duration from `low` (or above it) to `high`, its bounds said in a plan's units."""

    def check(value: object) -> float:
        found = seconds(value)
        shown = repr(value) if isinstance(value, str) else f"{value} s"
        if not math.isfinite(found):
            raise ValueError(f"must be a finite duration, got {shown}")
        if found > high:
            raise ValueError(f"must be at most {_said(high)}, got {shown}")
        if found < low or (above and found == low):
            least = f"more than {low:g} s" if above else f"at least {_said(low)}"
            raise ValueError(f"must be {least}, got {shown}")
        return found

    return BeforeValidator(check)


Seconds = Annotated[float, _duration(0, MAX_SOAK, above=True)]
At = Annotated[float, _duration(0, MAX_SOAK)]


class FaultEntry(Entry):
    at: At
    down: Annotated[float, _duration(0, 600, above=True)]
    kind: str = "link"

    @model_validator(mode="after")
    def _kind(self) -> FaultEntry:
        if self.kind not in FAULT_KINDS:
            kinds = ", ".join(FAULT_KINDS[:-1]) + f" or {FAULT_KINDS[-1]}"
            raise ValueError(f"kind: {kinds}, not {self.kind!r}")
        return self


class BurstEntry(Entry):
    every: Seconds
    duration: Seconds
    parallel: Annotated[int, Field(ge=1, le=16)] = 1


class SoakEntry(Entry):
    duration: Seconds
    interval: Annotated[float, _duration(0.001, 1.0)] = 0.01
    chunk: Annotated[float, _duration(5, 3600)] = 60.0
    outage: Annotated[int, Field(ge=1, le=100000)] = DEFAULT_THRESHOLD
    match_window: Annotated[float, _duration(0, 600)] = 2.0
    port: Annotated[int, Field(ge=1, le=65535)] = 2112
    dut_access: str = "netns"  # lab only: "ssh" makes the DUT a dropbear + busybox device
    ethtool: list[str] | None = None
    bursts: BurstEntry | None = None
    faults: list[FaultEntry] = Field(default_factory=list)


class SoakFile(Entry):
    title: str | None = None
    lab: LabEntry | None = None
    hosts: dict[str, HostEntry] = Field(default_factory=dict)
    path: PathEntry
    soak: SoakEntry
    variants: list[VariantEntry] | None = None
    expect: dict[Any, Any] | None = None

    @property
    def expectations(self) -> tuple[Expectation, ...]:
        """`expect:` as checked when the plan was read (parse_soak_plan)."""
        return read_expect(self.expect, Collector("<soak plan>"))


def read_expect(value: Any, out: Collector) -> tuple[Expectation, ...]:
    """A soak's `expect:`: each of its figures (soak/measurements.py) by name, with one
    comparison, as a run plan's expectations of a measurement without labels."""
    where: Loc = ("expect",)
    if value is None:
        return ()
    if not isinstance(value, dict):
        out.error(where, 'expect: expected a mapping of measurements such as '
                  '{outages per hour: "<= 0.5"}')  # fmt: skip
        return ()
    found = []
    for key, written in value.items():
        at: Loc = (*where, key)
        name = str(key)
        known = SOAK_YIELDS.get(name)
        if known is None:
            out.error(
                at, f"unknown measurement {name!r}{did_you_mean(name, SOAK_YIELDS.names)}",
                hint=f"a soak measures {one_of(SOAK_YIELDS.names)}", key=True,
            )  # fmt: skip
            continue
        if isinstance(written, dict | list):
            out.error(
                at, f"{name}: a soak's figures have no labels: write one comparison, such as "
                f"{name}: {unit_rule(known.unit).example}",
            )  # fmt: skip
            continue
        try:
            comparison, number, text = parse_comparison(written, known.unit, name=name)
        except ValueError as error:
            out.error(at, f"{name}: {error}")
            continue
        found.append(Expectation(name, comparison, number, text, known.unit))
    return tuple(found)


# What a lab soak's variant may set: the lab's links. A soak has no tunnel, and the lab
# DUT's CPUs are this machine's.
_SOAK_VARIANT_KEYS = ("name", "mtu", "rps", "xps", "offloads")
# Keys only a run plan has: a file with them and without `soak:` was meant for `run`.
_RUN_PLAN_KEYS = ("paths", "tests", "defaults", "expect")


def _check_where(plan: SoakFile, out: Collector) -> None:
    """Where the soak runs: a lab path, or real hosts the plan names."""
    path = plan.path
    named = path.client or path.server
    if named is None and plan.lab is None:
        out.error(
            ("path",), "a path without hosts runs in the lab: add `lab:`",
            hint="or name the client and server of `hosts:` in the path",
        )  # fmt: skip
    if (path.client is None) != (path.server is None):
        out.error(("path",), "a soak on real hosts names both its client and its server")
    for role, name in (("client", path.client), ("server", path.server), ("dut", path.dut_host)):
        if name is not None and name not in plan.hosts:
            out.error(
                ("path", role),
                f"path.{role}: no host {name!r} in `hosts:`{did_you_mean(name, plan.hosts)}",
            )
    if path.topology not in ("router", "nat", "bridge"):
        out.error(("path", "topology"), "a soak's path forwards: topology router, nat or bridge")
    if isinstance(path.dut, dict):
        if named is not None:
            out.error(("path", "dut"), "path.dut: a mapping of limits is for a lab DUT only")
        else:
            out.validate(DutEntry, path.dut, ("path", "dut"))
    for name, host in plan.hosts.items():
        if host.port is not None:
            # Without the move, both ends would be this machine over loopback.
            out.error(
                ("hosts", name, "port"),
                f"hosts.{name}: a port of this machine is a host of `wirespeed run` only; "
                "a soak does not move ports into namespaces",
                key=True,
            )
        elif host.address and "/" in host.address:
            out.error(
                ("hosts", name, "address"),
                f"hosts.{name}: an address with a prefix belongs to a port of this machine; "
                "write the address alone",
            )
    if named is not None and plan.soak.faults:
        out.error(
            ("soak", "faults"), "faults: are injected into a lab DUT only", key=True,
            hint="on real hosts a soak watches the outages that happen; leave faults: out",
        )  # fmt: skip


def _check_faults(settings: SoakEntry, out: Collector) -> None:
    """Each fault starts within the soak and after the one before has ended: a fault
    that never happens, or two at once, would be a truth the soak cannot be checked
    against."""
    for index, fault in enumerate(settings.faults):
        if fault.kind in DEVICE_FAULT_KINDS and settings.dut_access != "ssh":
            out.error(
                ("soak", "faults", index, "kind"),
                f"a {fault.kind} fault stops the DUT's SSH server: it needs dut_access: ssh",
                hint="add `dut_access: ssh` to soak:, or use kind link or forwarding",
            )
    order = sorted(range(len(settings.faults)), key=lambda i: settings.faults[i].at)
    previous: FaultEntry | None = None
    for index in order:
        fault = settings.faults[index]
        if fault.at >= settings.duration:
            out.error(
                ("soak", "faults", index, "at"),
                f"a fault at {fault.at:g} s starts after the soak's end "
                f"(duration {settings.duration:g} s)",
                hint="give it an `at` within the duration, or lengthen the soak",
            )
            continue
        if previous is not None and fault.at < previous.at + previous.down:
            out.error(
                ("soak", "faults", index),
                f"the fault at {fault.at:g} s overlaps the one at {previous.at:g} s "
                f"(down until {previous.at + previous.down:g} s)",
                hint="one fault at a time: start it after the one before has ended",
            )
            continue
        previous = fault


def _check_variants(variants: list[VariantEntry], out: Collector, *, on_real_hosts: bool) -> None:
    if not variants:
        out.error(
            ("variants",),
            "variants: the list is empty (leave the key out to soak in the one, unchanged state)",
            key=True,
        )
        return
    if on_real_hosts:
        out.error(
            ("variants",),
            "variants: are applied to a lab DUT only; on real hosts soak once per state "
            "and compare the soaks with `wirespeed soak --compare A B`",
            key=True,
        )
        return
    seen: set[str] = set()
    for index, variant in enumerate(variants):
        if variant.name in seen:
            out.error(("variants", index, "name"), f"duplicate variant name {variant.name!r}")
        seen.add(variant.name)
        other = sorted(key for key in variant.model_fields_set if key not in _SOAK_VARIANT_KEYS)
        if other:
            out.error(
                ("variants", index, other[0]),
                f"variant {variant.name!r} sets {', '.join(other)}: a soak's variant sets "
                f"the lab's {', '.join(_SOAK_VARIANT_KEYS[1:])}",
                key=True,
            )


def soak_variants(plan: SoakFile) -> tuple[Variant, ...]:
    """The plan's variants in the order written; () when it has none."""
    return tuple(
        Variant(
            name=entry.name,
            mtu=entry.mtu,
            rps=entry.rps,
            xps=entry.xps,
            offloads=tuple((entry.offloads or {}).items()),
        )
        for entry in plan.variants or ()
    )


def is_soak_plan(data: object) -> bool:
    """A plan file's data is a soak plan's: it has `soak:`."""
    return isinstance(data, dict) and "soak" in data


# The plan's mappings, each checked on its own first: an unknown key in one is then
# matched against that mapping's keys (`durtion` -> did you mean 'duration'?).
_SECTIONS: dict[str, type[Entry]] = {"lab": LabEntry, "path": PathEntry, "soak": SoakEntry}


def _sections_checked(data: dict[object, object], out: Collector) -> dict[object, object]:
    """data with each section that has problems (recorded in out) replaced by an
    entry built without checks, so that checking the whole file says nothing more of it."""
    checked = dict(data)
    for key, model in _SECTIONS.items():
        value = data.get(key)
        if isinstance(value, dict) and out.validate(model, value, (key,)) is None:
            checked[key] = model.model_construct()
    return checked


def parse_soak_plan(text: str, source: str = "<soak plan>") -> SoakFile:
    """The plan, or PlanError with every problem as `source:line:column: what`, in the
    words a run plan's problems are said in."""
    try:
        document = load_yaml(text)
    except YamlProblem as problem:
        raise PlanError([Problem(source, problem.line, problem.column, problem.message)]) from None
    data = document.data
    out = Collector(source, document)
    if not isinstance(data, dict):
        raise PlanError([Problem(source, 1, 1, "a soak plan is a mapping of keys (title, lab, "
                                 "hosts, path, soak, variants)")])  # fmt: skip
    run_keys = [key for key in _RUN_PLAN_KEYS if key in data]
    if run_keys and not is_soak_file(data):
        has = ", ".join(k + ":" for k in run_keys)
        out.error(
            (run_keys[0],),
            f"this is a run plan (it has {has} and no soak:)"
            if "soak" not in data
            else f"this is a run plan (it has {has} and no path:), with a stray soak:",
            hint="run it with `wirespeed run`; a soak plan has one path: and a soak: mapping "
            "(docs/plan-format.md, Soak)",
            key=True,
        )
        if "soak" in data:
            message, hint = stray_message("soak", soak=False)
            out.error(("soak",), message, hint=hint, key=True)
        raise PlanError(out.errors)
    strays = stray_keys(data)
    for key in strays:  # a run plan's key (a stray `tests:`), said where it is written
        message, hint = stray_message(key, soak=True)
        out.error((key,), message, hint=hint, key=True)
    kept = {key: value for key, value in data.items() if key not in strays}
    plan = out.validate(SoakFile, _sections_checked(kept, out), ())
    if plan is not None and not out.errors:
        _check_where(plan, out)
        _check_faults(plan.soak, out)
        read_expect(plan.expect, out)
        if plan.variants is not None:
            _check_variants(
                plan.variants, out, on_real_hosts=(plan.path.client or plan.path.server) is not None
            )
    if plan is None or out.errors:
        raise PlanError(out.errors or [Problem(source, None, None, "the soak plan is not valid")])
    return plan
