"""The timeline chart's data: a day of one-second readings kept as min/max envelopes that
lose no spike, intervals and instants kept exactly, bad data refused when built, and
text that cannot leave its JSON block."""

from __future__ import annotations

import json
import re

import pytest

from wirespeed.report.timeline import (
    BUCKETS,
    Lane,
    Mark,
    Series,
    Span,
    TimelineError,
    envelope,
    timeline_data,
    timeline_section,
)

DAY = 86_400


def _day(spike_at: int, spike: float, dip_at: int) -> Series:
    t = [float(i) for i in range(DAY)]
    v: list[float | None] = [940.0 + (i % 7) * 0.1 for i in range(DAY)]
    v[spike_at] = spike
    v[dip_at] = 0.0
    return Series("down", t, v)


def _data_of(html: str) -> dict[str, object]:
    block = re.search(r'class="ws-timeline-data">(.*?)</script>', html, re.S)
    assert block is not None
    data: dict[str, object] = json.loads(block.group(1))
    return data


def test_a_days_one_second_spike_and_dip_survive_the_envelope() -> None:
    data = timeline_data([Lane("throughput", "Mbit/s", (_day(43_210, 2_000.0, 70_001),))])
    levels = data["lanes"][0]["series"][0]["levels"]
    first = levels[0]
    assert first["n"] == BUCKETS
    assert max(first["hi"]) == 2_000.0 and min(first["lo"]) == 0.0
    # the spike sits in the slice that holds its second, not smeared over its neighbours
    width = DAY / BUCKETS
    assert first["hi"][int(43_210 / width)] == 2_000.0
    assert sorted(first["hi"])[-2] < 941.0
    # finer envelopes for zooming in, none beyond the budget, no level of every point
    assert [level.get("n") for level in levels] == [BUCKETS, BUCKETS * 8]
    assert all("t" not in level for level in levels)


def test_a_short_series_is_kept_exactly_its_gap_too() -> None:
    t = [0.0, 1.0, 2.5, 3.0]
    data = timeline_data([Lane("rtt", "ms", (Series("p50", t, [1.25, None, 1.5, 40.125]),))])
    (level,) = data["lanes"][0]["series"][0]["levels"]
    # None, no reading, stays: the page breaks the line there rather than join across.
    assert level == {"t": [0.0, 1.0, 2.5, 3.0], "v": [1.25, None, 1.5, 40.12]}


def test_a_slice_without_a_reading_is_a_gap() -> None:
    low, high = envelope([0.0, 1.0, 9.0, 10.0], [1.0, 3.0, 2.0, None], 0.0, 10.0, 5)
    assert low == [1.0, None, None, None, 2.0]
    assert high == [3.0, None, None, None, 2.0]
    # an axis narrower than the readings (timeline_data's start and end) leaves the rest out
    low, high = envelope([-1.0, 0.0, 11.0], [9.0, 1.0, 7.0], 0.0, 10.0, 2)
    assert (low, high) == ([1.0, None], [1.0, None])


def test_a_ten_millisecond_outage_and_every_event_are_kept_exactly() -> None:
    outage = Span(3_600.0, 3_600.01, "outage 10 ms", "outage")
    events = [Mark(float(i * 170), "tx-hang", f"eth0: hang {i}") for i in range(500)]
    data = timeline_data([Lane("throughput", "Mbit/s", (_day(1, 950.0, 2),))], [outage], events)
    assert data["spans"] == [[3600.0, 3600.01, "outage 10 ms", "outage"]]
    assert len(data["marks"]) == 500 and data["marks"][3] == [510.0, "tx-hang", "eth0: hang 3"]
    assert (data["start"], data["end"]) == (0.0, DAY - 1.0)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Series("x", [0.0, 1.0], [1.0]), "2 times for 1 values"),
        (lambda: Series("x", [1.0, 0.0], [1.0, 2.0]), "backwards"),
        (lambda: Series("x", [0.0], [float("nan")]), "finite"),
        (lambda: Span(5.0, 4.0, "outage"), "before it starts"),
        (lambda: Mark(float("inf"), "oops"), "finite"),
    ],
)
def test_data_a_chart_cannot_draw_is_refused_when_built(build: object, message: str) -> None:
    with pytest.raises(TimelineError, match=message):
        build()  # type: ignore[operator]


def test_text_from_a_device_cannot_close_the_script_it_travels_in() -> None:
    hostile = "</script><script>alert(1)</script>"
    html = timeline_section(
        "<b>soak</b>",
        [Lane(hostile, "&", (Series(hostile, [0.0, 1.0], [1.0, 2.0]),))],
        [Span(0.2, 0.4, hostile)],
        [Mark(0.5, hostile, hostile)],
    )
    assert "<b>soak</b>" not in html and "&lt;b&gt;soak&lt;/b&gt;" in html
    assert "alert(1)</script>" not in html
    data = _data_of(html)
    assert data["marks"] == [[0.5, hostile, hostile]]
    # the fragment carries its own style and script: it needs nothing else on the page
    assert "<style>" in html and "wsTimeline" in html
