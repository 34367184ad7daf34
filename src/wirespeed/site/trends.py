"""Each device's trend: its runs' figures over firmware (`run --label firmware=...`), judged
by analysis/trend.py and drawn by report/trend_render.py, as `wirespeed trend --by
firmware` does over a store that holds that device's bundles."""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.analysis.trend import Trend, run_labels, trend
from wirespeed.report.trend_render import render_trend_html
from wirespeed.store.records import RunRecord

BY = "firmware"


@dataclass(frozen=True)
class DeviceTrend:
    page: str  # devices/<slug>.html
    said: str  # in the index: "2 regressions", "no regression", "change points: 1"
    trend: Trend


def slug(device: str) -> str:
    """A file name for a device: its words, then a digest (two devices' words may meet)."""
    words = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")[:40] or "device"
    return f"{words}-{hashlib.sha256(device.encode()).hexdigest()[:8]}"


def numbered(records: Sequence[RunRecord]) -> list[RunRecord]:
    """The device's runs numbered 1, 2 ... in the order given (the results' paths): the
    ids a store that imported them in that order gives them."""
    return [dataclasses.replace(r, id=n) for n, r in enumerate(records, start=1)]


def device_trend(device: str, records: Sequence[RunRecord]) -> DeviceTrend | None:
    """The trend of a device's runs by firmware, or over time where none is labelled;
    None for a single run."""
    if len(records) < 2:
        return None
    runs = numbered(records)
    labelled = any(BY in run_labels(r) for r in runs)
    found = trend(runs, by=BY if labelled else None)
    regressions = len(found.regressions())
    if labelled:
        said = (
            f"{regressions} regression{'s' if regressions != 1 else ''}"
            if regressions
            else ("no regression")
        )
    else:
        points = sum(len(s.change_points) for s in found.series)
        said = f"{points} change point{'s' if points != 1 else ''} over time"
    return DeviceTrend(f"devices/{slug(device)}.html", said, found)


def trend_page(device: DeviceTrend, name: str) -> str:
    page = render_trend_html(device.trend)
    return with_nav(page, name, "..")


def with_nav(page: str, name: str, up: str) -> str:
    """The page with a line at its top back to the index, naming what it is of."""
    import html

    nav = (
        '<nav class="site-nav" style="font:14px system-ui,sans-serif;margin:.5em 0 1em">'
        f'<a href="{up}/index.html">\N{LEFTWARDS ARROW} all results</a> \N{MIDDLE DOT} '
        f"{html.escape(name)}</nav>"
    )
    at = re.search(r"<body[^>]*>", page)
    if at is None:
        return page
    return page[: at.end()] + nav + page[at.end() :]
