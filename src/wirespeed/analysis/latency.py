"""Latency under load: an idle baseline of probes, probes during the load, the increase.

What a user feels on a full link is the queue in front of it (bufferbloat). The figures,
all in ms, each a Measurement of the traffic trial (model.Measurement):

- `rtt` idle and loaded: p50, p90, p99 and max of the probes' round trips.
- `latency increase`: loaded p50 minus idle p50, of the round trip and (irtt) of each
  one-way delay, `up` client to server and `down` back: a queue shows on the way it is.
- `probe loss`, idle and loaded, in %.
- `bufferbloat grade`: the round trip's increase (its value, in ms) under the grades of
  the DSLReports speed test, which Waveform's bufferbloat test keeps
  (https://www.dslreports.com/faq/17930): A+ below 5 ms, A below 30, B below 60, C below
  200, D below 400, F from 400. Its unit "grade" asks reports to show the letter.
  (DSLReports averages the increase during download and during upload; here a grade is
  the trial's own direction, or both together for a bidirectional test.)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from wirespeed.model import Better, Measurement
from wirespeed.tools.probing import ProbeSeries

GRADE_UNIT = "grade"
# (grade, the increase it stays below, ms); F beyond the last.
GRADES: tuple[tuple[str, float], ...] = (
    ("A+", 5.0),
    ("A", 30.0),
    ("B", 60.0),
    ("C", 200.0),
    ("D", 400.0),
)
WORST_GRADE = "F"
PERCENTILES: tuple[tuple[str, float], ...] = (("p50", 50.0), ("p90", 90.0), ("p99", 99.0))


def grade(increase_ms: float) -> str:
    """The bufferbloat grade of a latency increase: 40 ms -> "B"."""
    for letter, below in GRADES:
        if increase_ms < below:
            return letter
    return WORST_GRADE


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100), linear between the closest ranks (as numpy's default)."""
    if not values:
        raise ValueError("no values")
    ordered = sorted(values)
    rank = (len(ordered) - 1) * q / 100.0
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def _ms(name: str, value: float, *labels: tuple[str, str]) -> Measurement:
    return Measurement(name, "ms", Better.LOWER, value, labels)


def rtt_measurements(series: ProbeSeries, load: str) -> list[Measurement]:
    """p50/p90/p99/max of the round trips of one phase ("idle" or "loaded"), and its loss."""
    found: list[Measurement] = []
    if series.rtt_ms:
        for label, q in PERCENTILES:
            found.append(
                _ms("rtt", percentile(series.rtt_ms, q), ("load", load), ("statistic", label))
            )
        found.append(_ms("rtt", max(series.rtt_ms), ("load", load), ("statistic", "max")))
    loss = series.loss_percent
    if loss is not None:
        found.append(Measurement("probe loss", "%", Better.LOWER, loss, (("load", load),)))
    return found


def latency_measurements(idle: ProbeSeries | None, loaded: ProbeSeries) -> tuple[Measurement, ...]:
    """Every latency figure of a trial; without an idle baseline (its probes failed),
    the loaded figures alone: no increase, no grade."""
    found = [] if idle is None else rtt_measurements(idle, "idle")
    found += rtt_measurements(loaded, "loaded")
    if idle is None or not idle.rtt_ms or not loaded.rtt_ms:
        return tuple(found)
    increase = percentile(loaded.rtt_ms, 50) - percentile(idle.rtt_ms, 50)
    found.append(_ms("latency increase", increase, ("way", "round trip")))
    for way, before, during in (
        ("up", idle.up_ms, loaded.up_ms),
        ("down", idle.down_ms, loaded.down_ms),
    ):
        if before and during:
            change = percentile(during, 50) - percentile(before, 50)
            found.append(_ms("latency increase", change, ("way", way)))
    found.append(Measurement("bufferbloat grade", GRADE_UNIT, Better.LOWER, increase))
    return tuple(found)
