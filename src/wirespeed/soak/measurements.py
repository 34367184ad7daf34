"""A soak's figures as measurements: what `compare` puts side by side and `expect:` gates.

A soak is one long observation, so most of its figures are one value each: its outages
per hour are its count over its hours, not a median of chunks (a chunk has none or one,
and the median of those would hide every outage). The round trip is the exception: each
chunk's median and 99th percentile are a repetition of the same measurement, so a soak's
round trip is the median over its chunks (as its report says it) and two soaks' round
trips can be told apart from noise by the comparison's one test.

    figures = repetitions(summary)   # [(key, (Measurement, ...)), ...]
    judged = judge(summary)          # against the plan's `expect:`, kept with the soak
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from wirespeed.model import Better, Measurement
from wirespeed.plan.yields import Yield, Yields

if TYPE_CHECKING:  # the plan reads SOAK_YIELDS without the store's modules
    from wirespeed.analysis.expectations import Judgement
    from wirespeed.soak.summary import SoakSummary

__all__ = ["SOAK_TEST", "SOAK_YIELDS", "exact_rate_p_value", "figures", "judge", "repetitions"]

# The test id of a soak's measurements: in compare's rows and in stored expectations.
SOAK_TEST = "soak"

OUTAGES = "outages"
PER_HOUR = "outages per hour"
LONGEST = "longest outage"
MEDIAN_LENGTH = "median outage"
LOSS = "probe loss"
RTT_P50 = "rtt p50"
RTT_P99 = "rtt p99"
LINK_EVENTS = "kernel link events"
SILENCES = "device silences"
RESTARTS = "device restarts"

# What `expect:` of a soak plan may name, in the order a comparison shows them.
SOAK_YIELDS = Yields(
    (
        Yield(OUTAGES, "count"),
        Yield(PER_HOUR, "/h"),
        Yield(LONGEST, "s"),
        Yield(MEDIAN_LENGTH, "s"),
        Yield(LOSS, "%"),
        Yield(RTT_P50, "ms"),
        Yield(RTT_P99, "ms"),
        Yield(LINK_EVENTS, "count"),
        Yield(SILENCES, "count"),
        Yield(RESTARTS, "count"),
    )
)


def _lower(name: str, unit: str, value: float) -> Measurement:
    # Every figure of a soak is better smaller: fewer, shorter outages, a faster trip.
    return Measurement(name, unit, Better.LOWER, value)


def soak_figures(summary: SoakSummary) -> tuple[Measurement, ...]:
    """The figures that are one value per soak; none of a soak that watched nothing."""
    if summary.watched <= 0:
        return ()
    lengths = [m.outage.duration for m in summary.matched]
    found = [
        _lower(OUTAGES, "count", len(lengths)),
        _lower(PER_HOUR, "/h", len(lengths) / (summary.watched / 3600)),
        # No outage is a longest outage of 0 s: `longest outage: "<= 2 s"` is met.
        _lower(LONGEST, "s", max(lengths, default=0.0)),
    ]
    if lengths:
        found.append(_lower(MEDIAN_LENGTH, "s", statistics.median(lengths)))
    if summary.sent:
        found.append(_lower(LOSS, "%", summary.lost / summary.sent * 100))
    found += [
        _lower(LINK_EVENTS, "count", sum(1 for e in summary.events if e.kind is not None)),
        _lower(SILENCES, "count", sum(1 for e in summary.device if e.kind == "no-answer")),
        _lower(RESTARTS, "count", sum(1 for e in summary.device if e.kind == "restart")),
    ]
    return tuple(found)


def figures(summary: SoakSummary) -> tuple[Measurement, ...]:
    """Every figure once, as a report states it: the round trip the median of the
    chunks'."""
    found = list(soak_figures(summary))
    for name, field in _TRIP:
        values = [chunk[field] for chunk in summary.chunks if chunk[field] is not None]
        if values:
            found.append(_lower(name, "ms", float(statistics.median(values))))
    return tuple(found)


_TRIP = ((RTT_P50, "rtt_p50_ms"), (RTT_P99, "rtt_p99_ms"))


def repetitions(summary: SoakSummary) -> list[tuple[str, tuple[Measurement, ...]]]:
    """The soak's measurements as repetitions, each with a key that names it: the soak's
    own figures once, and each chunk's round trip."""
    soak = f"soak {summary.header.id}"
    found: list[tuple[str, tuple[Measurement, ...]]] = []
    figures = soak_figures(summary)
    if figures:
        found.append((soak, figures))
    for chunk in summary.chunks:
        trip = tuple(
            _lower(name, "ms", float(chunk[field]))
            for name, field in _TRIP
            if chunk[field] is not None
        )
        if trip:
            found.append((f"{soak} chunk {chunk['position']}", trip))
    return found


def exact_rate_p_value(n1: int, t1: float, n2: int, t2: float) -> float:
    """Two-sided exact test that n1 outages in t1 and n2 in t2 come from one rate.

    Given n = n1 + n2 outages in all, n1 is binomial with p = t1 / (t1 + t2) when the
    rates are equal: 7 outages in 14 h against 0 in 14 h gives p = 0.016; 2 against 1,
    p = 1.0. A soak's outage rate is one observation of a count, where the comparison's
    test of repetitions has nothing to permute: this is its test."""
    import math

    n = n1 + n2
    if n == 0 or t1 <= 0 or t2 <= 0:
        return 1.0
    p = t1 / (t1 + t2)

    def probability(k: int) -> float:
        return math.comb(n, k) * p**k * (1 - p) ** (n - k)

    observed = probability(n1)
    total = sum(q for k in range(n + 1) if (q := probability(k)) <= observed * (1 + 1e-7))
    return min(1.0, total)


def judge(summary: SoakSummary) -> tuple[Judgement, ...]:
    """The soak's figures against what its plan expected when it began (kept with the
    soak: a later reading of the plan cannot change them), on the median as a run's."""
    from wirespeed.analysis.expectations import judge_measured
    from wirespeed.expectations import decode

    stored = summary.header.info.get("expectations")
    if not stored:
        return ()
    expected = decode(stored).get(SOAK_TEST)
    if expected is None:
        return ()
    place = f"soak {summary.header.id}"
    return judge_measured(expected.everywhere, repetitions(summary), place)
