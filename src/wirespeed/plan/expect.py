"""A test's `expect:` from the plan file, each problem at its file:line:column.

    expect:
      goodput: ">= 300M"                  # every flow; or {up: ">= 300M", down: ">= 250M"}
      loss: "< 0.1 %"                     # UDP
      paths: {WAN: {goodput: ">= 900M"}}  # replaces the test's goodput on WAN
      variants: {no-offloads: {goodput: ">= 250M"}}
      NDR: {frame: 1518, direction: out, value: ">= 14k"}   # any measurement, by labels
      latency increase: "<= 30 ms"        # the round trip's, with probes

Any measurement the test yields (plan/yields.py) is named by its name: one comparison
for every cell of it, or a mapping of labels and `value:`, or a list of those.
Read by hand rather than by a pydantic model: an unknown measurement is answered with
the measurements that exist, and a measurement the test cannot have (loss of a TCP
test, a down flow of an upload) is pointed at where it is written.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from wirespeed.expectations import (
    MEASURE_PROTOCOL,
    MEASURE_UNIT,
    Comparison,
    Expectation,
    Labels,
    Measure,
    TestExpectations,
    item_text,
    parse_comparison,
    parse_expectation,
    unit_rule,
    value_text,
)
from wirespeed.model import Flow, PowerSettings, TestCase
from wirespeed.plan.collect import Collector
from wirespeed.plan.problems import did_you_mean, one_of
from wirespeed.plan.yamltree import Loc
from wirespeed.plan.yields import Yield, Yields, label_value, yields_of

MEASURES = tuple(measure.value for measure in Measure)
_OVERRIDES = ("paths", "variants")
_GRADE = "bufferbloat grade"
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
    power: PowerSettings | None = None,
) -> ReadExpectations:
    """`expect:` of a test at loc (its entry); paths: those it runs on. Problems go to
    out; what is left of them is returned."""
    where: Loc = (*loc, "expect")
    if value is None:
        return ReadExpectations(TestExpectations())
    if not isinstance(value, dict):
        out.error(where, f"expect: expected a mapping of measurements such as {_EXAMPLE}")
        return ReadExpectations(TestExpectations())
    yields = yields_of(test, power)
    everywhere = _measurements(value, where, test, yields, out, overrides=True)
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
        by_path[name] = _measurements(entry, (*where, "paths", name), test, yields, out)
    by_variant: dict[str, tuple[Expectation, ...]] = {}
    refs: list[tuple[str, Loc]] = []
    for name, entry, at in _named(value, "variants", where, out):
        refs.append((name, at))
        by_variant[name] = _measurements(entry, (*where, "variants", name), test, yields, out)
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
    value: dict[Any, Any],
    where: Loc,
    test: TestCase,
    yields: Yields,
    out: Collector,
    *,
    overrides: bool = False,
) -> tuple[Expectation, ...]:
    found: list[Expectation] = []
    traffic = test.yields_flows
    names = (MEASURES if traffic else ()) + yields.names
    allowed = names + _OVERRIDES if overrides else names
    for key, written in value.items():
        at: Loc = (*where, key)
        if overrides and key in _OVERRIDES:
            continue
        name = str(key)
        if traffic and name in MEASURES:
            found += _flow_figure(Measure(name), written, at, test, out)
            continue
        known = yields.get(name)
        if known is None:
            _unknown_name(name, at, test, out, names=names, allowed=allowed, overrides=overrides)
            continue
        found += _any_measurement(known, written, at, test, out)
    return tuple(found)


def _unknown_name(
    name: str,
    at: Loc,
    test: TestCase,
    out: Collector,
    *,
    names: tuple[str, ...],
    allowed: tuple[str, ...],
    overrides: bool,
) -> None:
    if name == _GRADE:
        out.error(
            at,
            f"{_GRADE}: a grade is a letter of the latency increase; expect the increase",
            hint='latency increase: {way: round trip, value: "< 30 ms"} is grade A or better '
            "(docs/latency.md has the grades)",
            key=True,
        )
        return
    if names:
        hint = f"test {test.id!r} ({test.tool}) measures {one_of(names)}"
    else:
        hint = f"test {test.id!r} ({test.tool}) measures nothing an expectation can name"
    if test.yields_flows and not test.spec.probes:
        hint += "; with probes: also latency increase, rtt and probe loss"
    out.error(
        at,
        f"unknown measurement {name!r}{did_you_mean(name, allowed)}",
        hint=hint + ("; paths: and variants: replace them in some columns" if overrides else ""),
        key=True,
    )


def _flow_figure(
    measure: Measure, written: Any, at: Loc, test: TestCase, out: Collector
) -> list[Expectation]:
    protocol = MEASURE_PROTOCOL[measure]
    if protocol is not None and protocol is not test.spec.protocol:
        out.error(
            at,
            f"test {test.id!r} is {test.spec.protocol.value.upper()}: {measure} is measured "
            f"for {protocol.value.upper()} only",
            key=True,
        )
        return []
    if isinstance(written, dict):
        if not written:
            out.error(
                at,
                f"{measure}: an empty mapping expects nothing: write one comparison such as "
                f"{unit_rule(MEASURE_UNIT[measure]).example}, or one per flow (up:, down:)",
            )
            return []
        return _per_flow(measure, written, at, test, out)
    return _parsed(measure, written, at, out, flow=None, flows=test.spec.flows)


def _any_measurement(
    known: Yield, written: Any, at: Loc, test: TestCase, out: Collector
) -> list[Expectation]:
    """A measurement by name: one comparison for every cell of it, a mapping of labels
    with `value:`, or a list of such mappings."""
    if isinstance(written, list):
        if not written:
            out.error(
                at,
                f"{known.name}: an empty list expects nothing: write one comparison such as "
                f"{unit_rule(known.unit).example}, or a list of labels and value",
            )
            return []
        found: list[Expectation] = []
        for index, entry in enumerate(written):
            if not isinstance(entry, dict):
                out.error((*at, index), _mapping_expected(known, test))
                continue
            mine = _labelled(known, entry, (*at, index), test, out)
            for expectation in mine:
                _check_overlap(expectation, found, (*at, index), out)
            found += mine
        return found
    if isinstance(written, dict):
        return _labelled(known, written, at, test, out)
    return _compared(known, written, (), at, out)


def _check_overlap(
    expectation: Expectation, earlier: list[Expectation], at: Loc, out: Collector
) -> None:
    """Two rules of one measurement for the same cells: refused (which one?); sharing
    one cell (a floor for all, a stricter one for some): said, as both must hold."""
    for other in earlier:
        if other.labels == expectation.labels:
            out.error(
                at,
                f"{expectation.name}: two rules for the same cells ({expectation.item}): "
                f"{other.comparison} {other.written.lstrip('<>= ')} and "
                f"{expectation.comparison} {expectation.written.lstrip('<>= ')}",
                hint="keep one, or pick other cells with the labels",
            )
            return
        shared = _shared_cell(other, expectation)
        if shared is not None:
            out.warn(
                at,
                f"{expectation.name}: two rules for the cell {item_text(expectation.name, shared)}"
                f": both must hold ({other.text} and {expectation.text})",
            )
            return


def _shared_cell(one: Expectation, other: Expectation) -> Labels | None:
    """A cell both expectations concern, or None."""
    if one.slots and other.slots:
        return next((slot for slot in one.slots if slot in other.slots), None)
    mine, theirs = dict(one.labels), dict(other.labels)
    if any(theirs.get(key, value) != value for key, value in mine.items()):
        return None
    return tuple(sorted({**mine, **theirs}.items()))


def _mapping_expected(known: Yield, test: TestCase) -> str:
    labels = ", ".join(f"{label}: ..." for label in known.labels)
    example = f"{{{labels}, value: {unit_rule(known.unit).example}}}" if labels else ""
    return f"{known.name}: expected a comparison or a mapping of labels and value such as {example}"


def _labelled(
    known: Yield, entry: dict[Any, Any], at: Loc, test: TestCase, out: Collector
) -> list[Expectation]:
    chosen: list[tuple[str, str]] = []
    ok = True
    for key, raw in entry.items():
        label = str(key)
        if label == "value":
            continue
        if label not in known.labels:
            choices = (*known.labels, "value")
            out.error(
                (*at, key),
                f"{known.name}: unknown label {label!r}{did_you_mean(label, choices)}",
                hint=f"{known.name}'s labels: {', '.join(known.labels)}"
                if known.labels
                else f"{known.name} has no labels: write {known.name}: "
                f"{unit_rule(known.unit).example}",
                key=True,
            )
            ok = False
            continue
        try:
            text = label_value(label, raw)
        except ValueError as error:
            out.error((*at, key), f"{known.name}: {label}: {error}")
            ok = False
            continue
        values = known.values.get(label)
        if values is not None and text not in values:
            out.error(
                (*at, key),
                f"{known.name}: test {test.id!r} has no {label} {text!r}"
                f"{did_you_mean(text, values)}",
                hint=f"its {label} values: {', '.join(values)}",
            )
            ok = False
            continue
        chosen.append((label, text))
    if "value" not in entry:
        out.error(
            at,
            f"{known.name}: the comparison is missing: add value: such as "
            f"{unit_rule(known.unit).example}",
        )
        return []
    if not ok:
        return []
    order = {label: index for index, label in enumerate(known.labels)}
    labels = tuple(sorted(chosen, key=lambda pair: order[pair[0]]))
    return _compared(known, entry["value"], labels, (*at, "value"), out)


def _compared(
    known: Yield, written: Any, labels: Labels, at: Loc, out: Collector
) -> list[Expectation]:
    try:
        comparison, value, text = parse_comparison(written, known.unit, name=known.name)
    except ValueError as error:
        out.error(at, f"{known.name}: {error}")
        return []
    expectation = Expectation(
        known.name, comparison, value, text, known.unit, labels, known.slots(labels)
    )
    if not _possible(expectation, at, out, signed=known.signed):
        return []
    return [expectation]


# The most a figure of a unit can be; every unsigned figure is at least 0.
_HIGHEST = {"%": 100.0}


def _possible(expectation: Expectation, at: Loc, out: Collector, *, signed: bool = False) -> bool:
    """False, with an error, for a comparison no figure can meet ("< 0 %"); True, with a
    warning, for one none can fail (a gate that never closes)."""
    name, value, unit = expectation.name, expectation.value, expectation.unit
    lowest = None if signed else 0.0
    highest = _HIGHEST.get(unit)
    comparison = expectation.comparison
    said = f"{name} {expectation.written}"
    words = unit_rule(unit).words
    if lowest is not None and comparison is Comparison.BELOW and value <= lowest:
        out.error(
            at,
            f"{said} can never be met: {name} is never below {value_text(unit, lowest)}",
            hint=f'for none at all write "<= 0"; {name} is {words}',
        )
        return False
    if highest is not None and comparison is Comparison.ABOVE and value >= highest:
        out.error(at, f"{said} can never be met: {name} is never above {value_text(unit, highest)}")
        return False
    always = (lowest is not None and comparison is Comparison.AT_LEAST and value <= lowest) or (
        highest is not None and comparison is Comparison.AT_MOST and value >= highest
    )
    if always:
        out.warn(at, f"{said} is always met: it can never fail a run", hint="remove it")
    return True


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
        found += _parsed(measure, written, at, out, flow=flow, flows=(flow,))
    return found


def _parsed(
    measure: Measure,
    written: Any,
    at: Loc,
    out: Collector,
    *,
    flow: Flow | None,
    flows: tuple[Flow, ...],
) -> list[Expectation]:
    """A flow figure, due from each of `flows`."""
    try:
        expectation = parse_expectation(measure, written, flow)
    except ValueError as error:
        out.error(at, f"{measure}: {error}")
        return []
    if not _possible(expectation, at, out):
        return []
    slots = tuple((("flow", f.value),) for f in flows)
    return [dataclasses.replace(expectation, slots=slots)]
