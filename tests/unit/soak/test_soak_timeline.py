"""The soak's page draws it over time: chunks' loss and round trips, the outage and the
injected fault shaded, the kernel's events ticked; from a chunk captured through a lab
with a link fault (tests/fixtures/soak/capture_soak.py)."""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, datetime
from typing import Any

from support.soak_samples import captured_summary
from wirespeed.report.html import render_document_html
from wirespeed.soak.render import soak_result
from wirespeed.soak.summary import SoakSummary
from wirespeed.soak.timeline import soak_timeline


def drawn(summary: SoakSummary) -> str:
    """The soak's page, which draws its timeline."""
    return render_document_html(soak_result(summary))


def chart_data(page: str) -> dict[str, Any]:
    [found] = re.findall(
        r'<script type="application/json" class="ws-timeline-data">(.*?)</script>', page
    )
    data: dict[str, Any] = json.loads(found)
    return data


def test_the_soak_page_draws_its_outage_fault_and_events_over_time() -> None:
    summary = captured_summary()
    [matched] = summary.matched
    page = drawn(summary)
    data = chart_data(page)

    spans = {(kind, label): (start, end) for start, end, label, kind in data["spans"]}
    outage = f"outage {matched.outage.duration:.3f} s, {matched.outage.lost} lost, up"
    assert ("injected fault", "injected link fault") in spans
    assert {lane["title"] for lane in data["lanes"]} == {"Probes lost", "Round trip"}
    assert any("Detected Tx Unit Hang" in text for _, _, text in data["marks"])
    # The outage is where it was measured, to the millisecond, in seconds since the
    # soak's first probe.
    origin = summary.chunks[0]["start"]
    start, end = spans["outage", outage]
    assert abs(start - (matched.outage.start - origin)) < 0.001
    assert abs(end - (matched.outage.end - origin)) < 0.001
    assert 'id="soak-timeline"' in page and "script-src 'unsafe-inline'" in page


def test_a_soak_with_no_chunk_yet_has_no_timeline() -> None:
    summary = captured_summary()
    assert soak_timeline(dataclasses.replace(summary, chunks=())) is None
    assert 'id="soak-timeline"' not in drawn(dataclasses.replace(summary, chunks=()))


def _shifted(chunk: dict[str, Any], seconds: float) -> dict[str, Any]:
    return chunk | {"start": chunk["start"] + seconds, "end": chunk["end"] + seconds}


def _lost_level(summary: SoakSummary) -> dict[str, Any]:
    data = chart_data(drawn(summary))
    (level,) = data["lanes"][0]["series"][0]["levels"]
    return level  # type: ignore[no-any-return]


def test_the_time_axis_is_the_time_since_the_soaks_start() -> None:
    summary = captured_summary()
    section = drawn(summary)
    data = chart_data(section)
    first = summary.chunks[0]["start"]
    # Not 1,795,838,695 s: the axis starts at the first probe, its wall-clock time said.
    assert data["start"] == 0.0
    assert data["end"] < 3600
    when = datetime.fromtimestamp(first, tz=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    assert f"Time since the soak&#x27;s start ({when})" in section
    assert all(0 <= t < 3600 for t, *_ in data["marks"])


def test_a_resumed_soaks_unwatched_time_is_a_gap_back_to_back_chunks_a_step() -> None:
    summary = captured_summary()
    [chunk] = summary.chunks
    length = chunk["end"] - chunk["start"]
    # The next chunk as a soak starts it, with the previous one's last probe.
    back_to_back = dataclasses.replace(summary, chunks=(chunk, _shifted(chunk, length + 0.01)))
    assert None not in _lost_level(back_to_back)["v"]
    # Stopped, and resumed ten minutes later: nobody watched in between.
    resumed = dataclasses.replace(summary, chunks=(chunk, _shifted(chunk, length + 600)))
    level = _lost_level(resumed)
    gap = level["v"].index(None)
    assert level["v"][:gap] == level["v"][gap + 1 :]  # one chunk's step each side
    assert level["t"][gap + 1] - level["t"][gap] >= 600
