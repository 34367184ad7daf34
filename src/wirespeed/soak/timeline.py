"""A soak over time, for its HTML page: the report's timeline chart (report/timeline.py)
of each chunk's probe loss and round trips, the outages, injected faults and load bursts
shaded across them, and the kernel's events ticked beneath.

A chunk is one point per series (its loss and round trips are the chunk's), drawn at
the chunk's start and end so a chunk reads as a step; a 24-hour soak of 60 s chunks is
2,880 points a series, which the chart's envelopes keep light. Outages and events stay
exact at any zoom: a 30 ms outage is as visible as a 10 s one.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from wirespeed.report.timeline import Lane, Mark, Series, Span, timeline_section
from wirespeed.soak.sentence import describe_event
from wirespeed.soak.summary import SoakSummary

__all__ = ["soak_timeline"]


def _steps(chunks: Iterable[Mapping[str, Any]], value: str) -> Series:
    """One series of a chunk figure, each chunk's value held from its start to its end
    and a gap between chunks (a chunk that could not start is no reading)."""
    t: list[float] = []
    v: list[float | None] = []
    for chunk in chunks:
        figure = chunk.get(value)
        if t and chunk["start"] > t[-1]:
            t.append(t[-1])
            v.append(None)
        t += [chunk["start"], max(chunk["end"], chunk["start"])]
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


def soak_timeline(summary: SoakSummary) -> str:
    """The soak's timeline section, or "" for a soak with no chunk stored yet."""
    chunks = sorted(
        (c for c in summary.chunks if c.get("start") is not None), key=lambda c: c["start"]
    )
    if not chunks:
        return ""
    with_loss = _lost_percent(chunks)
    loss = _steps(with_loss, "lost %")
    lanes = [
        Lane("Probes lost", "%", (Series("lost, per chunk", loss.t, loss.v),), digits=3),
        Lane(
            "Round trip",
            "ms",
            tuple(
                Series(label, s.t, s.v)
                for label, s in (
                    ("p50", _steps(chunks, "rtt_p50_ms")),
                    ("p99", _steps(chunks, "rtt_p99_ms")),
                )
            ),
        ),
    ]
    intervals = [
        Span(
            m.outage.start,
            m.outage.end,
            f"outage {m.outage.duration:.3f} s, {m.outage.lost} lost, {m.outage.direction}",
            "outage",
        )
        for m in summary.matched
    ]
    intervals += [
        Span(f["start"], f["end"], f"injected {f['kind']} fault", "injected fault")
        for f in summary.faults
        if f.get("start") is not None and f.get("end") is not None
    ]
    intervals += [Span(start, end, "load burst", "load burst") for start, end in summary.bursts]
    instants = [
        Mark(e.at, describe_event(e), f"{e.host}: {e.message}")
        for e in summary.events
        if e.kind is not None
    ]
    lead = (
        f"Each chunk's probe loss and round trips; outages (≥ {summary.threshold} "
        "consecutive lost probes) shaded, with injected faults and load bursts where "
        "there were any; the kernel's events ticked beneath. Drag or scroll to zoom."
    )
    return timeline_section(
        "Over time", lanes, intervals, instants, lead=lead, section_id="soak-timeline"
    )
