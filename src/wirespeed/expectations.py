"""What a test must reach: `expect: {goodput: ">= 300M"}` in a plan, in plain words.

An expectation is one measurement, a comparison and a value: goodput >= 300 Mbit/s,
loss < 0.1 %, jitter <= 2 ms, retransmits <= 100. analysis/expectations.py judges it on
the median over a cell's repetitions; plan/expect.py reads it from the plan file with
positions for its errors. Standard library only: the report imports it too.
"""

from __future__ import annotations

import enum
import math
import operator
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from wirespeed.model import Flow, Proto
from wirespeed.units import format_rate, parse_rate


class Measure(enum.StrEnum):
    """The measurements an expectation can be about, each in one unit."""

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
MEASURE_EXAMPLES: dict[Measure, str] = {
    Measure.GOODPUT: '">= 300M"',
    Measure.LOSS: '"< 0.1 %"',
    Measure.JITTER: '"<= 2 ms"',
    Measure.RETRANSMITS: '"<= 100"',
}


# Beyond these a value is a typo: 10 Tbit/s (as the plan's rates), a day of jitter.
MEASURE_LIMITS: dict[Measure, tuple[float, str]] = {
    Measure.GOODPUT: (1e13, "10 Tbit/s"),
    Measure.LOSS: (100.0, "100 %"),
    Measure.JITTER: (86_400_000.0, "a day"),
    Measure.RETRANSMITS: (1e15, "10^15"),
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
_NUMBER = r"(?P<num>\d+(?:\.\d+)?)"
_PERCENT = re.compile(rf"{_NUMBER}\s*%?")
_MILLISECONDS = re.compile(rf"{_NUMBER}\s*(?P<unit>ms|us|µs)?")
_COUNT = re.compile(rf"{_NUMBER}\s*(?P<prefix>[kKmM]?)")


@dataclass(frozen=True)
class Expectation:
    """One measurement compared with a value. flow None: every flow of the test."""

    measure: Measure
    comparison: Comparison
    value: float  # in the measurement's unit (Measure)
    written: str  # as the plan wrote it: ">= 300M"
    flow: Flow | None = None

    def holds(self, measured: float) -> bool:
        return _COMPARE[self.comparison](measured, self.value)

    @property
    def text(self) -> str:
        """'goodput up >= 300.0 Mbit/s', the value in the report's own units."""
        name = self.measure.value if self.flow is None else f"{self.measure} {self.flow}"
        return f"{name} {self.comparison} {measured_text(self.measure, self.value)}"


def measured_text(measure: Measure, value: float) -> str:
    """A figure of this measurement as reports show it: '94.1 Mbit/s', '0.25 %'."""
    if measure is Measure.GOODPUT:
        return format_rate(value)
    if measure is Measure.LOSS:
        return f"{value:.3g} %"
    if measure is Measure.JITTER:
        return f"{value:.3g} ms"
    return f"{value:.10g}"


def parse_expectation(measure: Measure, written: object, flow: Flow | None = None) -> Expectation:
    """'>= 300M' for goodput -> Expectation; ValueError saying what to write instead."""
    example = MEASURE_EXAMPLES[measure]
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
    try:
        value = _value(measure, match["value"])
    except OverflowError:  # parse_rate's round() of a float that overflowed
        value = math.inf
    limit, limit_text = MEASURE_LIMITS[measure]
    if not value <= limit:
        raise ValueError(f"{match['value']!r} is above {limit_text}")
    return Expectation(measure, Comparison(match["op"]), value, written.strip(), flow)


def _value(measure: Measure, text: str) -> float:
    if measure is Measure.GOODPUT:
        return float(parse_rate(text))  # its ValueError says how to write a rate
    if measure is Measure.LOSS:
        found = _PERCENT.fullmatch(text)
        if found is None:
            raise ValueError(f"not a loss: {text!r} (write a percentage 0..100, e.g. 0.1 %)")
        return float(found["num"])
    if measure is Measure.JITTER:
        found = _MILLISECONDS.fullmatch(text)
        if found is None:
            raise ValueError(f"not a jitter: {text!r} (write milliseconds, e.g. 2 ms or 500 us)")
        scale = 1.0 if found["unit"] in (None, "ms") else 1e-3
        return float(found["num"]) * scale
    found = _COUNT.fullmatch(text)
    if found is None:
        raise ValueError(f"not a count of retransmits: {text!r} (write e.g. 100 or 2k)")
    return float(found["num"]) * {"": 1, "k": 1e3, "m": 1e6}[found["prefix"].lower()]


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
        """The expectations in force for this test on `path` in `variant`."""
        chosen: dict[Measure, list[Expectation]] = {}
        for layer in (self.everywhere, self.paths.get(path, ()), self.variants.get(variant, ())):
            replaced: dict[Measure, list[Expectation]] = {}
            for expectation in layer:
                replaced.setdefault(expectation.measure, []).append(expectation)
            chosen.update(replaced)
        return tuple(e for measure in Measure for e in chosen.get(measure, ()))
