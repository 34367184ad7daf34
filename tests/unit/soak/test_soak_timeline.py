"""The soak's page draws it over time: chunks' loss and round trips, the outage and the
injected fault shaded, the kernel's events ticked; from a chunk captured through a lab
with a link fault (tests/fixtures/soak/capture_soak.py)."""

from __future__ import annotations

import dataclasses
import json
import re
from typing import Any

from support.soak_samples import captured_summary
from wirespeed.soak.render import render
from wirespeed.soak.timeline import soak_timeline


def chart_data(page: str) -> dict[str, Any]:
    [found] = re.findall(
        r'<script type="application/json" class="ws-timeline-data">(.*?)</script>', page
    )
    data: dict[str, Any] = json.loads(found)
    return data


def test_the_soak_page_draws_its_outage_fault_and_events_over_time() -> None:
    summary = captured_summary()
    [matched] = summary.matched
    section = soak_timeline(summary)
    data = chart_data(section)

    spans = {(kind, label): (start, end) for start, end, label, kind in data["spans"]}
    outage = f"outage {matched.outage.duration:.3f} s, {matched.outage.lost} lost, up"
    assert ("injected fault", "injected link fault") in spans
    assert {lane["title"] for lane in data["lanes"]} == {"Probes lost", "Round trip"}
    assert any("Detected Tx Unit Hang" in text for _, _, text in data["marks"])
    # The outage is where it was measured, to the millisecond.
    start, end = spans["outage", outage]
    assert abs(start - matched.outage.start) < 0.001 and abs(end - matched.outage.end) < 0.001
    page = render(summary, "html")
    assert 'id="soak-timeline"' in page and "Content-Security-Policy" in page


def test_a_soak_with_no_chunk_yet_has_no_timeline() -> None:
    summary = captured_summary()
    assert soak_timeline(dataclasses.replace(summary, chunks=())) == ""
