"""What a test must reach: `expect: {goodput: ">= 300M"}` in a plan, in plain words.

An expectation is one measurement, a comparison and a value: goodput >= 300 Mbit/s,
loss < 0.1 %, NDR at 1518 B out >= 14,000 pps, AES-256-GCM at 8 KB >= 500 MB/s, a
latency increase <= 30 ms. Any measurement a trial yields (model.Measurement) is named by
its name, and the cells it concerns by its labels (flow, frame, block ...).
analysis/expectations.py judges it on the median over a cell's repetitions; plan/expect.py
reads it from the plan file with positions for its errors; encode() and decode() keep it
with the run, so that a report judges a run with what its plan expected when it ran.
Standard library only: the report imports it too.
"""

from __future__ import annotations

import enum
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from wirespeed.model import Flow, Proto
from wirespeed.units import format_rate, parse_rate

Labels = tuple[tuple[str, str], ...]


class Measure(enum.StrEnum):
    """The flow figures of a traffic test, each in one unit: written without labels
    (`goodput: ">= 300M"`) or per flow (`goodput: {up: ">= 300M"}`)."""

    GOODPUT = "goodput"  # bit/s, the receiver's where it reported
    LOSS = "loss"  # percent of datagrams, UDP
    JITTER = "jitter"  # milliseconds, UDP
    RETRANSMITS = "retransmits"  # TCP segments sent again, summed over the streams


# The protocol a measurement exists for; None: both.
MEASURE_PROTOCOL: dict[Measure, Proto | None] = {
    Measure.GOODPUT: None,
    Measure.LOSS: Proto.UDP,
    Measure.JITTER: Proto.UDP,
    Measure.RETRANSMITS: Proto.TCP,
}
MEASURE_UNIT: dict[Measure, str] = {
    Measure.GOODPUT: "bit/s",
    Measure.LOSS: "%",
    Measure.JITTER: "ms",
    Measure.RETRANSMITS: "count",
}


class Comparison(enum.StrEnum):
    AT_LEAST = ">="
    ABOVE = ">"
    AT_MOST = "<="
    BELOW = "<"


_COMPARE: dict[Comparison, Callable[[float, float], bool]] = {
    Comparison.AT_LEAST: operator.ge,
    Comparison.ABOVE: operator.gt,
    Comparison.AT_MOST: operator.le,
    Comparison.BELOW: operator.lt,
}
# Two-character operators first: ">= 5" is not "> = 5".
_WRITTEN = re.compile(r"\s*(?P<op>>=|<=|>|<)\s*(?P<value>.*?)\s*")
# A number, an SI prefix and a unit, each but the number optional: "14k", "14 kpps",
# "500 MB/s", "2 ms". The unit is checked against the measurement's own.
_FIGURE = re.compile(
    r"(?P<num>\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)\s*(?P<prefix>[kKMGT]?)\s*(?P<unit>[^\d\s].*?)?"
)
_SI = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


@dataclass(frozen=True)
class UnitRule:
    """How a value of one unit is written: the words that name the unit (lower case;
    B/s as written), a factor for each other word that converts (500 us to ms), an
    example, a limit beyond which a value is a typo, and whether SI prefixes apply."""

    names: tuple[str, ...]
    example: str
    limit: float
    limit_text: str
    scaled: Mapping[str, float] = field(default_factory=dict)
    prefixes: bool = True
    words: str = ""  # what the unit is, for an error: "packets per second"


_NO_SCALE: Mapping[str, float] = MappingProxyType({})
UNITS: dict[str, UnitRule] = {
    "bit/s": UnitRule(("bit/s",), '">= 300M"', 1e13, "10 Tbit/s", words="bits per second"),
    "pps": UnitRule(
        ("pps", "packets/s", "p/s"), '">= 14k"', 1e11, "10^11 pps", words="packets per second"
    ),
    "B/s": UnitRule(
        ("B/s", "bytes/s", "byte/s"), '">= 500 MB/s"', 1e14, "100 TB/s", words="bytes per second"
    ),
    "%": UnitRule(("%",), '"< 0.1 %"', 100.0, "100 %", prefixes=False, words="a percentage"),
    "ms": UnitRule(
        ("ms",),
        '"<= 30 ms"',
        86_400_000.0,
        "a day",
        scaled=MappingProxyType({"us": 1e-3, "µs": 1e-3, "s": 1e3}),
        prefixes=False,
        words="milliseconds",
    ),
    "s": UnitRule(
        ("s",),
        '"<= 60 s"',
        86_400.0 * 365,
        "a year",
        scaled=MappingProxyType({"ms": 1e-3, "min": 60.0}),
        prefixes=False,
        words="seconds",
    ),
    "count": UnitRule((), '"<= 100"', 1e15, "10^15", words="a count"),
    # A soak's outages per hour of watching.
    "/h": UnitRule(("/h", "per hour"), '"<= 0.5"', 1e9, "10^9", prefixes=False, words="a rate"),
}


def unit_rule(unit: str) -> UnitRule:
    """The rule of a unit; a unit without one (MIPS, RPM, W, index, lps) is written as a
    number, with an SI prefix or its own name if wished: ">= 2000 MIPS", ">= 2k"."""
    found = UNITS.get(unit)
    if found is not None:
        return found
    if not unit:  # a name the plan cannot know the unit of (UnixBench's): a number
        return UnitRule((), '">= 1000"', 1e15, "10^15", words="a number")
    return UnitRule((unit.lower(),), f'">= 1000 {unit}"', 1e15, "10^15", words=unit)


@dataclass(frozen=True)
class Expectation:
    """One measurement compared with a value.

    `labels` pick the cells it concerns (every label written must match: frame 1518 B);
    `slots` are the label sets the test was planned to produce that match them (its
    flows; a search's frame sizes and directions), each of which must be measured; ()
    where the plan cannot know them (a benchmark's CPU clusters): then every measurement
    of that name matching `labels`, and at least one."""

    name: str  # the measurement's: "goodput", "NDR", "AES-256-GCM", "latency increase"
    comparison: Comparison
    value: float  # in `unit`
    written: str  # as the plan wrote it: ">= 300M"
    unit: str = "bit/s"
    labels: Labels = ()
    slots: tuple[Labels, ...] = ()

    def holds(self, measured: float) -> bool:
        return _COMPARE[self.comparison](measured, self.value)

    @property
    def measure(self) -> Measure | None:
        """The flow figure it is about; None for any other measurement."""
        if self.name not in Measure.__members__.values():
            return None
        return Measure(self.name)

    @property
    def flow(self) -> Flow | None:
        """The flow it is limited to; None: every flow (or a measurement of no flow)."""
        written = dict(self.labels).get("flow")
        return None if written is None else Flow(written)

    @property
    def item(self) -> str:
        """'goodput up', 'NDR 1518 B, out', 'AES-256-GCM 8 KB, EVP': as reports name it."""
        return item_text(self.name, self.labels)

    @property
    def text(self) -> str:
        """'goodput up >= 300.0 Mbit/s', the value in the report's own units (a rate in
        the unit it was written in: '>= 1M' is 1.0 Mbit/s, not 1000.0 kbit/s)."""
        shown = _rate_as_written(self.value, self.written) if self.unit == "bit/s" else None
        return f"{self.item} {self.comparison} {shown or value_text(self.unit, self.value)}"

    def matches(self, labels: Labels) -> bool:
        """Whether a measurement with these labels is one this expectation concerns."""
        return labels_match(self.labels, labels)


def labels_match(wanted: Labels, labels: Labels) -> bool:
    have = dict(labels)
    return all(have.get(key) == value for key, value in wanted)


def item_text(name: str, labels: Labels) -> str:
    if not labels:
        return name
    if len(labels) == 1 and labels[0][0] == "flow":
        return f"{name} {labels[0][1]}"
    return f"{name} " + ", ".join(value for _, value in labels)


def value_text(unit: str, value: float) -> str:
    """A figure as reports show it: '94.1 Mbit/s', '0.25 %', '14,000 pps', '512.0 MB/s'."""
    if unit == "bit/s":
        return format_rate(value)
    if unit == "B/s":
        for shown, scale in (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
            if abs(value) >= scale:
                return f"{value / scale:.1f} {shown}"
        return f"{value:.0f} B/s"
    if unit == "pps":
        return f"{value:,.0f} pps"
    if unit in ("%", "ms"):
        return f"{value:.3g} {unit}"
    if unit == "count":
        return f"{value:.10g}"
    if unit == "/h":
        return f"{value:.3g} per hour"
    return f"{value:.4g} {unit}".rstrip()


_RATE_PREFIX = re.compile(r"[\d.eE+-]+\s*(?P<prefix>[kKmMgGtT])")
_RATE_UNITS = {"k": ("kbit/s", 1e3, 1), "m": ("Mbit/s", 1e6, 1), "g": ("Gbit/s", 1e9, 3)}
_RATE_UNITS["t"] = ("Tbit/s", 1e12, 3)


def _rate_as_written(value: float, written: str) -> str | None:
    """A rate in the unit of the prefix written ('>= 1M': '1.0 Mbit/s'); None without one."""
    match = _WRITTEN.fullmatch(written)
    found = _RATE_PREFIX.match(match["value"]) if match is not None else None
    if found is None:
        return None
    unit, scale, digits = _RATE_UNITS[found["prefix"].lower()]
    return f"{value / scale:.{digits}f} {unit}"


def measured_text(measure: Measure, value: float) -> str:
    """A figure of a flow measurement as reports show it: '94.1 Mbit/s', '0.25 %'."""
    return value_text(MEASURE_UNIT[measure], value)


def parse_comparison(written: object, unit: str, *, name: str) -> tuple[Comparison, float, str]:
    """'>= 14k' for a measurement in pps -> (>=, 14000.0, '>= 14k'); ValueError saying
    what to write instead."""
    rule = unit_rule(unit)
    example = rule.example
    if not isinstance(written, str):
        # YAML reads `goodput: 300M` as text and `loss: 1` as a number: neither compares.
        raise ValueError(
            f"expected a comparison such as {example}, got {written!r} "
            "(write >=, >, <= or < before the value, and quote it)"
        )
    match = _WRITTEN.fullmatch(written)
    if match is None or not match["value"]:
        raise ValueError(
            f"{written!r} is not a comparison: write >=, >, <= or < and a value, such as {example}"
        )
    text = match["value"]
    try:
        value = parse_value(text, unit, name=name)
    except OverflowError:  # parse_rate's round() of a float that overflowed
        value = math.inf
    if not value <= rule.limit:
        raise ValueError(f"{text!r} is above {rule.limit_text}")
    return Comparison(match["op"]), value, written.strip()


def parse_value(text: str, unit: str, *, name: str) -> float:
    """A value in the measurement's unit: '14k' or '14 kpps' in pps, '500 MB/s' in B/s,
    '500 us' in ms; ValueError naming the unit and an example for anything else."""
    rule = unit_rule(unit)
    if unit == "bit/s":
        return float(parse_rate(text))  # its ValueError says how to write a rate
    found = _FIGURE.fullmatch(text.strip())
    if found is None:
        raise ValueError(_wrong_unit(text, unit, name, rule))
    number = float(found["num"])
    prefix = found["prefix"]
    written_unit = (found["unit"] or "").strip()
    whole = prefix + written_unit
    if prefix and (not rule.prefixes or whole in rule.names or whole.lower() in rule.names):
        # "2000 MIPS" is the unit MIPS, not the prefix M: read it back into the unit.
        written_unit = whole
        prefix = ""
    if prefix and written_unit.lower() in (rule.scaled or _NO_SCALE):
        raise ValueError(_wrong_unit(text, unit, name, rule))
    lowered = written_unit.lower()
    # B/s only as written: "Mb/s" is as often megabits.
    if not lowered or lowered in rule.names or written_unit in rule.names:
        return number * _SI[prefix]
    for word, factor in rule.scaled.items():
        if lowered == word.lower():
            return number * _SI[prefix] * factor
    raise ValueError(_wrong_unit(text, unit, name, rule))


def _wrong_unit(text: str, unit: str, name: str, rule: UnitRule) -> str:
    return (
        f"{text!r} is not in {name}'s unit: it is {rule.words} ({unit}), write e.g. {rule.example}"
    )


def parse_expectation(measure: Measure, written: object, flow: Flow | None = None) -> Expectation:
    """'>= 300M' for goodput -> Expectation; ValueError saying what to write instead."""
    unit = MEASURE_UNIT[measure]
    comparison, value, text = parse_comparison(written, unit, name=measure.value)
    labels: Labels = () if flow is None else (("flow", flow.value),)
    return Expectation(measure.value, comparison, value, text, unit, labels)


def _no_overrides() -> Mapping[str, tuple[Expectation, ...]]:
    return MappingProxyType({})


@dataclass(frozen=True)
class TestExpectations:
    """A test's `expect:`: for all its cells, and replaced per measurement on some paths
    or in some variants (a variant's entry wins over a path's, which wins over the
    test's own)."""

    __test__ = False  # not a pytest test class, despite the name

    everywhere: tuple[Expectation, ...] = ()
    paths: Mapping[str, tuple[Expectation, ...]] = field(default_factory=_no_overrides)
    variants: Mapping[str, tuple[Expectation, ...]] = field(default_factory=_no_overrides)

    def for_cell(self, path: str, variant: str) -> tuple[Expectation, ...]:
        """The expectations in force for this test on `path` in `variant`, the test's
        own order kept (a path's or a variant's measurement where it replaces one)."""
        chosen: dict[str, list[Expectation]] = {}
        for layer in (self.everywhere, self.paths.get(path, ()), self.variants.get(variant, ())):
            replaced: dict[str, list[Expectation]] = {}
            for expectation in layer:
                replaced.setdefault(expectation.name, []).append(expectation)
            chosen.update(replaced)
        return tuple(e for of_name in chosen.values() for e in of_name)

    @property
    def empty(self) -> bool:
        return not (self.everywhere or self.paths or self.variants)


# The stored form (encode/decode): JSON values only, versioned so that a later reader
# knows what it reads.
STORED_VERSION = 1


def _encoded(expectation: Expectation) -> dict[str, Any]:
    return {
        "name": expectation.name,
        "comparison": expectation.comparison.value,
        "value": expectation.value,
        "unit": expectation.unit,
        "written": expectation.written,
        "labels": [list(label) for label in expectation.labels],
        "slots": [[list(label) for label in slot] for slot in expectation.slots],
    }


def _decoded(data: Mapping[str, Any]) -> Expectation:
    def labels(pairs: Any) -> Labels:
        return tuple((str(key), str(value)) for key, value in pairs)

    return Expectation(
        name=str(data["name"]),
        comparison=Comparison(data["comparison"]),
        value=float(data["value"]),
        written=str(data["written"]),
        unit=str(data["unit"]),
        labels=labels(data["labels"]),
        slots=tuple(labels(slot) for slot in data["slots"]),
    )


def encode(by_test: Mapping[str, TestExpectations]) -> dict[str, Any]:
    """A plan's expectations as the store keeps them with the run."""

    def layer(expectations: tuple[Expectation, ...]) -> list[dict[str, Any]]:
        return [_encoded(e) for e in expectations]

    return {
        "version": STORED_VERSION,
        "tests": {
            test_id: {
                "everywhere": layer(of_test.everywhere),
                "paths": {name: layer(found) for name, found in of_test.paths.items()},
                "variants": {name: layer(found) for name, found in of_test.variants.items()},
            }
            for test_id, of_test in by_test.items()
        },
    }


class StoredExpectationsError(ValueError):
    """Stored expectations this version cannot read (a later version's)."""


def decode(data: Mapping[str, Any]) -> dict[str, TestExpectations]:
    """encode()'s inverse; StoredExpectationsError for a form it does not know."""
    if data.get("version") != STORED_VERSION:
        raise StoredExpectationsError(
            f"stored expectations of version {data.get('version')!r}; this wirespeed reads "
            f"version {STORED_VERSION}"
        )
    try:
        return {
            str(test_id): TestExpectations(
                everywhere=tuple(_decoded(e) for e in of_test["everywhere"]),
                paths=MappingProxyType(
                    {str(n): tuple(_decoded(e) for e in f) for n, f in of_test["paths"].items()}
                ),
                variants=MappingProxyType(
                    {str(n): tuple(_decoded(e) for e in f) for n, f in of_test["variants"].items()}
                ),
            )
            for test_id, of_test in data["tests"].items()
        }
    except (KeyError, TypeError, ValueError) as error:
        raise StoredExpectationsError(f"stored expectations unreadable: {error}") from error
