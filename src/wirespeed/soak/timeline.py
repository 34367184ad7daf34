"""A soak over time, the timeline of its document (report/document.py), which its HTML
page draws with the report's timeline chart (report/timeline.py): each chunk's probe
loss and round trips, the outages, injected faults and load bursts
shaded across them, and the kernel's events ticked beneath.

A chunk is one point per series (its loss and round trips are the chunk's), drawn at
the chunk's start and end so a chunk reads as a step; a 24-hour soak of 60 s chunks is
2,880 points a series, which the chart's envelopes keep light. Outages and events stay
exact at any zoom: a 30 ms outage is as visible as a 10 s one.

The time axis is the time since the soak's first probe (its wall-clock start is said
above the chart). Chunks follow each other within milliseconds; where more than
outages.JOIN_NS passed between two (a soak stopped and resumed later), nobody watched:
the lines break there instead of ramping across.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from wirespeed.report.document import Timeline
from wirespeed.report.timeline import Lane, Mark, Series, Span
from wirespeed.soak.outages import JOIN_NS
from wirespeed.soak.sentence import describe_event
from wirespeed.soak.summary import SoakSummary

__all__ = ["soak_timeline"]

# Chunks further apart than outages.py joins into one outage were not watched between.
UNWATCHED_S = JOIN_NS / 1e9


def _started(unix_time: float) -> str:
    return datetime.fromtimestamp(unix_time, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _steps(chunks: Iterable[Mapping[str, Any]], value: str, origin: float) -> Series:
    """One series of a chunk figure, each chunk's value held from its start to its end,
    in seconds since `origin`, and a gap where nobody watched between two chunks."""
    t: list[float] = []
    v: list[float | None] = []
    for chunk in chunks:
        figure = chunk.get(value)
        start, end = chunk["start"] - origin, max(chunk["end"], chunk["start"]) - origin
        if t and start - t[-1] > UNWATCHED_S:
            t.append(t[-1])
            v.append(None)
        t += [start, end]
        v += [figure, figure]
    return Series(value, t, v)


def _lost_percent(chunks: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    return [
        dict(chunk)
        | {
            "lost %": (
                100.0
                * (chunk["lost_up"] + chunk["lost_down"] + chunk["lost_unknown"])
                / chunk["sent"]
                if chunk["sent"]
                else None
            )
        }
        for chunk in chunks
    ]


def soak_timeline(summary: SoakSummary) -> Timeline | None:
    """The soak's timeline, or None for a soak with no chunk stored yet."""
    chunks = sorted(
        (c for c in summary.chunks if c.get("start") is not None), key=lambda c: c["start"]
    )
    if not chunks:
        return None
    origin = chunks[0]["start"]
    with_loss = _lost_percent(chunks)
    loss = _steps(with_loss, "lost %", origin)
    lanes = [
        Lane("Probes lost", "%", (Series("lost, per chunk", loss.t, loss.v),), digits=3),
        Lane(
            "Round trip",
            "ms",
            tuple(
                Series(label, s.t, s.v)
                for label, s in (
                    ("p50", _steps(chunks, "rtt_p50_ms", origin)),
                    ("p99", _steps(chunks, "rtt_p99_ms", origin)),
                )
            ),
        ),
    ]
    intervals = [
        Span(
            m.outage.start - origin,
            m.outage.end - origin,
            f"outage {m.outage.duration:.3f} s, {m.outage.lost} lost, {m.outage.direction}",
            "outage",
        )
        for m in summary.matched
    ]
    intervals += [
        Span(
            f["start"] - origin, f["end"] - origin, f"injected {f['kind']} fault", "injected fault"
        )
        for f in summary.faults
        if f.get("start") is not None and f.get("end") is not None
    ]
    intervals += [
        Span(start - origin, end - origin, "load burst", "load burst")
        for start, end in summary.bursts
    ]
    intervals += [
        Span(e.at - origin, e.end - origin, e.describe(), "device did not answer")
        for e in summary.device
        if e.kind == "no-answer"
    ]
    instants = [
        Mark(e.at - origin, describe_event(e), f"{e.host}: {e.message}")
        for e in summary.events
        if e.kind is not None
    ]
    instants += [
        Mark(max(0.0, e.at - origin), "device restarted", e.describe())
        for e in summary.device
        if e.kind == "restart"
    ]
    lead = (
        f"Each chunk's probe loss and round trips; outages (≥ {summary.threshold} "
        "consecutive lost probes) shaded, with injected faults and load bursts where "
        "there were any, and where the device did not answer; the kernel's events and the "
        "device's restarts ticked beneath. Time since the soak's start "
        f"({_started(origin)}); a break in the lines: nobody watched (the soak was stopped "
        "and resumed). Drag or scroll to zoom."
    )
    return Timeline(
        "soak-timeline", "Over time", tuple(lanes), tuple(intervals), tuple(instants), lead
    )
