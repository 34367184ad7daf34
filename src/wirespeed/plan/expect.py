"""A test's `expect:` from the plan file, each problem at its file:line:column.

    expect:
      goodput: ">= 300M"                  # every flow; or {up: ">= 300M", down: ">= 250M"}
      loss: "< 0.1 %"                     # UDP
      paths: {WAN: {goodput: ">= 900M"}}  # replaces the test's goodput on WAN
      variants: {no-offloads: {goodput: ">= 250M"}}

Read by hand rather than by a pydantic model: an unknown measurement is answered with
the measurements that exist, and a measurement the test cannot have (loss of a TCP
test, a down flow of an upload) is pointed at where it is written.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from wirespeed.expectations import (
    MEASURE_PROTOCOL,
    Expectation,
    Measure,
    TestExpectations,
    parse_expectation,
)
from wirespeed.model import Flow, TestCase
from wirespeed.plan.collect import Collector
from wirespeed.plan.problems import did_you_mean, one_of
from wirespeed.plan.yamltree import Loc

MEASURES = tuple(measure.value for measure in Measure)
_OVERRIDES = ("paths", "variants")
_FLOWS = tuple(flow.value for flow in Flow)


@dataclass(frozen=True)
class ReadExpectations:
    """A test's expectations, and the variant names they refer to with where each is
    written (the variants are read after the tests)."""

    expectations: TestExpectations
    variant_refs: tuple[tuple[str, Loc], ...] = field(default_factory=tuple)


def read_expect(
    value: Any,
    loc: Loc,
    test: TestCase,
    out: Collector,
    *,
    paths: Collection[str],
    declared_paths: Collection[str],
) -> ReadExpectations:
    """`expect:` of a test at loc (its entry); paths: those it runs on. Problems go to
    out; what is left of them is returned."""
    where: Loc = (*loc, "expect")
    if value is None:
        return ReadExpectations(TestExpectations())
    if not isinstance(value, dict):
        out.error(where, f"expect: expected a mapping of measurements such as {_EXAMPLE}")
        return ReadExpectations(TestExpectations())
    everywhere = _measurements(value, where, test, out, overrides=True)
    by_path: dict[str, tuple[Expectation, ...]] = {}
    for name, entry, at in _named(value, "paths", where, out):
        if name not in declared_paths:
            known = sorted(declared_paths)
            out.error(
                at,
                f"expect.paths: unknown path {name!r}{did_you_mean(name, known)}",
                hint=f"paths are {', '.join(known)}" if known else None,
                key=True,
            )
        elif name not in paths:
            out.error(at, f"test {test.id!r} does not run on path {name!r}", key=True)
        by_path[name] = _measurements(entry, (*where, "paths", name), test, out)
    by_variant: dict[str, tuple[Expectation, ...]] = {}
    refs: list[tuple[str, Loc]] = []
    for name, entry, at in _named(value, "variants", where, out):
        refs.append((name, at))
        by_variant[name] = _measurements(entry, (*where, "variants", name), test, out)
    expectations = TestExpectations(
        everywhere=everywhere,
        paths=MappingProxyType(by_path),
        variants=MappingProxyType(by_variant),
    )
    return ReadExpectations(expectations, tuple(refs))


_EXAMPLE = '{goodput: ">= 300M"}'


def _named(value: dict[Any, Any], section: str, where: Loc, out: Collector) -> list[Any]:
    """(name, mapping, loc of the name) of expect.paths or expect.variants."""
    entries = value.get(section)
    if entries is None:
        return []
    if not isinstance(entries, dict):
        out.error(
            (*where, section),
            f"expect.{section}: expected a mapping of {section[:-1]} names to measurements, "
            f'such as {{WAN: {{goodput: ">= 900M"}}}}',
        )
        return []
    found = []
    for name, entry in entries.items():
        at: Loc = (*where, section, name)
        if not isinstance(entry, dict):
            out.error(at, f"expect.{section}.{name}: expected a mapping such as {_EXAMPLE}")
            continue
        found.append((str(name), entry, at))
    return found


def _measurements(
    value: dict[Any, Any], where: Loc, test: TestCase, out: Collector, *, overrides: bool = False
) -> tuple[Expectation, ...]:
    found: list[Expectation] = []
    allowed = MEASURES + _OVERRIDES if overrides else MEASURES
    for key, written in value.items():
        at: Loc = (*where, key)
        if overrides and key in _OVERRIDES:
            continue
        if key not in MEASURES:
            out.error(
                at,
                f"unknown measurement {str(key)!r}{did_you_mean(str(key), allowed)}",
                hint=f"measurements are {one_of(MEASURES)}"
                + ("; paths: and variants: replace them in some columns" if overrides else ""),
                key=True,
            )
            continue
        measure = Measure(key)
        protocol = MEASURE_PROTOCOL[measure]
        if protocol is not None and protocol is not test.spec.protocol:
            out.error(
                at,
                f"test {test.id!r} is {test.spec.protocol.value.upper()}: {measure} is measured "
                f"for {protocol.value.upper()} only",
                key=True,
            )
            continue
        if isinstance(written, dict):
            found += _per_flow(measure, written, at, test, out)
        else:
            found += _parsed(measure, written, at, out, flow=None)
    return tuple(found)


def _per_flow(
    measure: Measure, value: dict[Any, Any], where: Loc, test: TestCase, out: Collector
) -> list[Expectation]:
    found = []
    flows = test.spec.flows
    for key, written in value.items():
        at: Loc = (*where, key)
        if key not in _FLOWS:
            out.error(
                at,
                f"{measure}: {str(key)!r} is not a flow{did_you_mean(str(key), _FLOWS)}",
                hint="write up (client to server) or down (server to client), or one "
                "comparison for every flow",
                key=True,
            )
            continue
        flow = Flow(key)
        if flow not in flows:
            only = " and ".join(f.value for f in flows)
            out.error(
                at,
                f"test {test.id!r} has no {flow} flow (direction "
                f"{test.spec.direction.value}: {only} only)",
                key=True,
            )
            continue
        found += _parsed(measure, written, at, out, flow=flow)
    return found


def _parsed(
    measure: Measure, written: Any, at: Loc, out: Collector, *, flow: Flow | None
) -> list[Expectation]:
    try:
        return [parse_expectation(measure, written, flow)]
    except ValueError as error:
        out.error(at, f"{measure}: {error}")
        return []
