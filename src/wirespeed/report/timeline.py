"""A timeline chart for the HTML report: stacked lanes on one time axis.

A lane holds numeric series (throughput, round trip, temperature, power, clocks); the
chart also shades intervals (outages, throttling) across every lane and ticks instants
(kernel events) below them, each with its text on hover. The page's script
(assets/timeline.js) draws it as SVG; this module builds the data it draws.

Call it with plain data:

    from wirespeed.report.timeline import Lane, Mark, Series, Span, timeline_section

    html = timeline_section(
        "Soak, 24 h",
        [
            Lane("throughput", "Mbit/s", (Series("down", t, mbit), Series("up", t, up))),
            Lane("round trip", "ms", (Series("p50", t, rtt),)),
        ],
        intervals=[Span(3600.0, 3600.01, "outage 10 ms")],
        instants=[Mark(3599.9, "tx-hang", "igb 0000:01:00.0 eth0: Detected Tx Unit Hang")],
    )

`t` is seconds on any one clock shared by every lane (since the start, say); a value of
None is a gap (no reading). The fragment is a <section> with its data, style and script
inline: it makes no request and can be put in any page whose Content-Security-Policy
allows inline scripts and styles (the report's does). Several fragments on one page
share one copy of the script's functions. All text (titles, labels, kernel messages) is
escaped: in markup by html.escape, in the JSON by report.html_json.script_json's rules, and
the script writes it with textContent only.

A day of one-second readings is 86,400 points per series: too many to draw or to write.
Each series is kept as an envelope, the lowest and the highest value in each of at most
`buckets` equal slices of the whole span (so a one-second spike is never averaged away),
plus finer envelopes (8 times, 64 times more slices) for zooming in, as long as they fit
in `keep` values; a series with no more points than slices is kept exactly. Intervals and
instants are kept exactly, and an interval narrower than a pixel is drawn one pixel wide:
a 10 ms outage in a day still shows. Drag across the chart (or turn the wheel over it) to
zoom; double-click or "whole span" to zoom out.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from importlib import resources
from typing import Any

from wirespeed.report.html_json import script_json

__all__ = [
    "BUCKETS",
    "KEEP",
    "Lane",
    "Mark",
    "Series",
    "Span",
    "envelope",
    "timeline_assets",
    "timeline_data",
    "timeline_figure",
    "timeline_section",
]

BUCKETS = 2000  # slices of the whole span: about one per pixel of a wide screen
KEEP = 40_000  # values a series may keep beyond its first envelope, for zooming in
ZOOM_STEP = 8  # each finer envelope has this many times more slices


class TimelineError(ValueError):
    """Data a timeline cannot draw: said when it is built, not in the browser."""


@dataclass(frozen=True)
class Series:
    """One line of a lane: a value (None: no reading) at each time t, in seconds."""

    label: str
    t: Sequence[float]
    v: Sequence[float | None]

    def __post_init__(self) -> None:
        if len(self.t) != len(self.v):
            raise TimelineError(f"{self.label}: {len(self.t)} times for {len(self.v)} values")
        if not all(map(math.isfinite, self.t)):
            raise TimelineError(f"{self.label}: a time that is not a finite number")
        if any(b < a for a, b in zip(self.t, self.t[1:], strict=False)):
            raise TimelineError(f"{self.label}: times go backwards")
        if any(v is not None and not math.isfinite(v) for v in self.v):
            raise TimelineError(f"{self.label}: a value that is not a finite number")


@dataclass(frozen=True)
class Lane:
    """A band of the chart with its own vertical scale: title, unit, its series.
    digits: the decimals the page is given (and shows) of each value."""

    title: str
    unit: str
    series: tuple[Series, ...]
    digits: int = 2


@dataclass(frozen=True)
class Span:
    """An interval shaded across every lane (an outage, a throttled stretch)."""

    start: float
    end: float
    label: str
    kind: str = ""  # spans of one kind share a colour: "outage", "under-voltage"

    def __post_init__(self) -> None:
        if not (math.isfinite(self.start) and math.isfinite(self.end)):
            raise TimelineError(f"{self.label}: an end that is not a finite number")
        if self.end < self.start:
            raise TimelineError(f"{self.label}: ends at {self.end} before it starts")


@dataclass(frozen=True)
class Mark:
    """An instant (a kernel event): a tick, its label, and a longer text on hover."""

    t: float
    label: str
    text: str = ""

    def __post_init__(self) -> None:
        if not math.isfinite(self.t):
            raise TimelineError(f"{self.label}: a time that is not a finite number")


def _round(value: float, digits: int) -> float | int:
    rounded = round(value, digits)
    return int(rounded) if digits <= 0 else rounded


def envelope(
    t: Sequence[float],
    v: Sequence[float | None],
    start: float,
    end: float,
    buckets: int,
) -> tuple[list[float | None], list[float | None]]:
    """The lowest and the highest value in each of `buckets` equal slices of
    [start, end]; None in a slice without a reading. A point at `end` is in the last;
    points outside [start, end] are in none."""
    low: list[float | None] = [None] * buckets
    high: list[float | None] = [None] * buckets
    width = (end - start) / buckets if end > start else 1.0
    last = buckets - 1
    for time, value in zip(t, v, strict=True):
        if value is None or time < start or time > end:  # outside the axis: not drawn
            continue
        index = int((time - start) / width)
        index = last if index > last else index
        was = low[index]
        if was is None:
            low[index] = high[index] = value
        elif value < was:
            low[index] = value
        elif value > high[index]:  # type: ignore[operator]
            high[index] = value
    return low, high


def _levels(
    series: Series, start: float, end: float, *, buckets: int, keep: int, digits: int
) -> list[dict[str, Any]]:
    """The envelopes a series is kept as, coarsest first; the last may be its points."""
    points = sum(1 for value in series.v if value is not None)
    levels: list[dict[str, Any]] = []
    kept = 0
    slices = buckets
    while True:
        if points <= slices:  # no coarser than the points themselves: keep them
            # A None stays, as null: a gap in the line, not a ramp across it.
            levels.append(
                {
                    "t": [round(t, 3) for t in series.t],
                    "v": [None if v is None else _round(v, digits) for v in series.v],
                }
            )
            return levels
        low, high = envelope(series.t, series.v, start, end, slices)
        lo = [None if x is None else _round(x, digits) for x in low]
        hi = [None if x is None else _round(x, digits) for x in high]
        # Slices of one reading each (or of equal ones) have lo == hi: written once.
        levels.append({"n": slices, "lo": lo} if lo == hi else {"n": slices, "lo": lo, "hi": hi})
        slices *= ZOOM_STEP
        cost = 2 * min(points, slices)  # the next level's values
        if kept + cost > keep:
            return levels
        kept += cost


def timeline_data(
    lanes: Sequence[Lane],
    intervals: Sequence[Span] = (),
    instants: Sequence[Mark] = (),
    *,
    buckets: int = BUCKETS,
    keep: int = KEEP,
    start: float | None = None,
    end: float | None = None,
) -> dict[str, Any]:
    """What the page's script draws, JSON-ready: the span, each lane's series as
    envelopes (see the module's docstring), the intervals and the instants.

    start, end: the span of the time axis; by default from the earliest to the latest
    time of any series, interval or instant."""
    if buckets < 1:
        raise TimelineError(f"buckets must be at least 1, not {buckets}")
    times = [s.t[0] for lane in lanes for s in lane.series if s.t]
    times += [s.t[-1] for lane in lanes for s in lane.series if s.t]
    times += [x for span in intervals for x in (span.start, span.end)]
    times += [mark.t for mark in instants]
    first = start if start is not None else min(times, default=0.0)
    last = end if end is not None else max(times, default=first)
    if last <= first:
        last = first + 1.0
    return {
        "start": round(first, 3),
        "end": round(last, 3),
        "lanes": [
            {
                "title": lane.title,
                "unit": lane.unit,
                "digits": lane.digits,
                "series": [
                    {
                        "label": series.label,
                        "levels": _levels(
                            series, first, last, buckets=buckets, keep=keep, digits=lane.digits
                        ),
                    }
                    for series in lane.series
                ],
            }
            for lane in lanes
        ],
        "spans": [
            [round(s.start, 3), round(s.end, 3), s.label, s.kind]
            for s in sorted(intervals, key=lambda span: span.start)
        ],
        "marks": [
            [round(m.t, 3), m.label, m.text] for m in sorted(instants, key=lambda mark: mark.t)
        ],
    }


def timeline_figure(data: dict[str, Any], caption: str = "") -> str:
    """One chart's markup and data (timeline_data's), without the script: for a page
    that adds timeline_assets() once."""
    caption_html = f"<figcaption>{escape(caption)}</figcaption>" if caption else ""
    return (
        f'<figure class="ws-timeline">{caption_html}'
        f'<script type="application/json" class="ws-timeline-data">{script_json(data)}'
        "</script></figure>"
    )


def timeline_assets() -> str:
    """The style and the script that draw every `.ws-timeline` figure of a page: once
    per page is enough; a second copy does no harm (it draws what is not drawn yet)."""
    return f"<style>{_asset('timeline.css')}</style><script>{_asset('timeline.js')}</script>"


@functools.cache
def _asset(name: str) -> str:
    return (resources.files("wirespeed.report") / "assets" / name).read_text(encoding="utf-8")


def timeline_section(
    title: str,
    lanes: Sequence[Lane],
    intervals: Sequence[Span] = (),
    instants: Sequence[Mark] = (),
    *,
    lead: str = "",
    buckets: int = BUCKETS,
    keep: int = KEEP,
    section_id: str = "",
    start: float | None = None,
    end: float | None = None,
) -> str:
    """A self-contained HTML fragment: a <section class="card"> titled `title`, with
    one timeline chart of `lanes` (each its series on a shared time axis), `intervals`
    shaded across them and `instants` ticked beneath, its style and script inline.

    lead: a sentence under the title (plain text, escaped). buckets, keep: see the
    module's docstring (at most `buckets` slices of the whole span per series at first;
    finer data for zooming within `keep` values). section_id: the section's HTML id.
    start, end: the time axis (default: from the first to the last time of any series,
    interval or instant).
    Raises TimelineError for data it cannot draw (times going backwards, a NaN).
    """
    data = timeline_data(
        lanes, intervals, instants, buckets=buckets, keep=keep, start=start, end=end
    )
    ident = f' id="{escape(section_id, quote=True)}"' if section_id else ""
    lead_html = f'<p class="lead">{escape(lead)}</p>' if lead else ""
    return (
        f'<section class="card"{ident}><h2>{escape(title)}</h2>{lead_html}'
        f"{timeline_figure(data)}{timeline_assets()}</section>"
    )
