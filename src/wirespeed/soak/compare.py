"""Soaks side by side: the outages' rate, length and loss, the round trip, the kernel
events; and whether the outage rates differ more than chance would make them.

Outages are counted events over a watched time, so their rates are compared as two
Poisson rates with the exact conditional test (given n = n₁ + n₂ outages in all, n₁ is
binomial with p = t₁ / (t₁ + t₂) when the rates are equal): 7 outages in 14 h against
0 in 14 h gives p = 0.016; 2 against 1 gives p = 1.0, no difference shown.
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from wirespeed.soak.sentence import duration_text
from wirespeed.soak.summary import SoakSummary

__all__ = ["SoakColumn", "columns", "rate_p_value", "render_comparison"]

SIGNIFICANT = 0.05
MISSING = "-"


@dataclass(frozen=True)
class SoakColumn:
    soak: int
    label: str
    status: str
    watched_s: float
    outages: int
    per_hour: float | None
    mean_between_s: float | None  # watched time / outages
    length_median_s: float | None
    length_max_s: float | None
    lost_fraction: float | None  # lost probes / sent, each way
    rtt_p50_ms: float | None  # the median of the chunks' medians
    rtt_p99_ms: float | None  # the median of the chunks' 99th percentiles
    kernel_events: int  # link events (Tx Unit Hang, Reset adapter, Link is Down, ...)
    p_value: float | None  # outage rate against the first column's; None for the first
    sentence: str


def rate_p_value(n1: int, t1: float, n2: int, t2: float) -> float:
    """Two-sided exact test that n1 events in t1 and n2 in t2 come from one rate."""
    n = n1 + n2
    if n == 0 or t1 <= 0 or t2 <= 0:
        return 1.0
    p = t1 / (t1 + t2)

    def probability(k: int) -> float:
        return math.comb(n, k) * p**k * (1 - p) ** (n - k)

    observed = probability(n1)
    total = sum(q for k in range(n + 1) if (q := probability(k)) <= observed * (1 + 1e-7))
    return min(1.0, total)


def _median(values: Sequence[float | None]) -> float | None:
    present = [value for value in values if value is not None]
    return statistics.median(present) if present else None


def _label(summary: SoakSummary) -> str:
    variant = summary.header.info.get("variant")
    if isinstance(variant, str):
        return variant
    return summary.header.title or f"soak {summary.header.id}"


def columns(summaries: Sequence[SoakSummary]) -> list[SoakColumn]:
    found: list[SoakColumn] = []
    base = summaries[0] if summaries else None
    for summary in summaries:
        lengths = [m.outage.duration for m in summary.matched]
        count = len(lengths)
        hours = summary.watched / 3600
        found.append(
            SoakColumn(
                soak=summary.header.id,
                label=_label(summary),
                status=summary.header.status,
                watched_s=round(summary.watched, 3),
                outages=count,
                per_hour=count / hours if hours > 0 else None,
                mean_between_s=summary.watched / count if count else None,
                length_median_s=statistics.median(lengths) if lengths else None,
                length_max_s=max(lengths, default=None),
                lost_fraction=summary.lost / summary.sent if summary.sent else None,
                rtt_p50_ms=_median([chunk["rtt_p50_ms"] for chunk in summary.chunks]),
                rtt_p99_ms=_median([chunk["rtt_p99_ms"] for chunk in summary.chunks]),
                kernel_events=sum(1 for event in summary.events if event.kind is not None),
                p_value=None
                if base is None or summary is base
                else rate_p_value(len(base.matched), base.watched, count, summary.watched),
                sentence=summary.sentence,
            )
        )
    return found


def _number(value: float | None, digits: int = 2, scale: float = 1.0) -> str:
    return MISSING if value is None else f"{value * scale:.{digits}f}"


def _between(column: SoakColumn) -> str:
    return MISSING if column.mean_between_s is None else duration_text(column.mean_between_s)


def _rows(found: Sequence[SoakColumn]) -> list[tuple[str, list[str]]]:
    def p_text(column: SoakColumn) -> str:
        if column.p_value is None:
            return "(baseline)"
        verdict = "differs" if column.p_value < SIGNIFICANT else "no difference shown"
        return f"p = {column.p_value:.3g}, {verdict}"

    return [
        ("soak", [f"{c.soak} ({c.status})" for c in found]),
        ("watched", [duration_text(c.watched_s) for c in found]),
        ("outages", [str(c.outages) for c in found]),
        ("outages per hour", [_number(c.per_hour) for c in found]),
        ("outage rate vs first", [p_text(c) for c in found]),
        ("time between outages", [_between(c) for c in found]),
        ("outage length, median s", [_number(c.length_median_s) for c in found]),
        ("outage length, max s", [_number(c.length_max_s) for c in found]),
        ("probes lost %", [_number(c.lost_fraction, 3, 100) for c in found]),
        ("rtt p50 ms", [_number(c.rtt_p50_ms, 3) for c in found]),
        ("rtt p99 ms", [_number(c.rtt_p99_ms, 3) for c in found]),
        ("kernel link events", [str(c.kernel_events) for c in found]),
    ]


def render_comparison(found: Sequence[SoakColumn], fmt: str) -> str:
    if fmt == "json":
        return json.dumps({"soaks": [asdict(c) for c in found]}, indent=2) + "\n"
    head = ["", *(c.label for c in found)]
    rows = _rows(found)
    if fmt == "markdown":
        out = ["| " + " | ".join(head) + " |", "|---" * len(head) + "|"]
        out += ["| " + " | ".join([name, *cells]) + " |" for name, cells in rows]
        out += [""] + [f"- **{c.label}**: {c.sentence}" for c in found]
        return "\n".join(out) + "\n"
    table = [head, *([name, *cells] for name, cells in rows)]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in table
    ]
    lines += [""] + [f"{c.label}: {c.sentence}" for c in found]
    return "\n".join(lines) + "\n"
