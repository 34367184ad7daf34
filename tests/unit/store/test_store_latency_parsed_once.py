"""The HTML report's latency charts read each probe output once: the timeline and the
CDF of a trial draw from one parse (a site of thousands of cards parses each irtt output
of each)."""

from __future__ import annotations

from typing import Any

import pytest
from test_store_latency import probed_outcome

from wirespeed.report import html_latency
from wirespeed.tools import irtt


def test_the_latency_section_parses_each_probe_output_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    outcome = probed_outcome()
    expected = html_latency.latency_section([outcome])
    parsed: list[str] = []
    real = irtt.parse

    def counted(text: str) -> Any:
        parsed.append(text)
        return real(text)

    monkeypatch.setattr(irtt, "parse", counted)
    assert html_latency.latency_section([outcome]) == expected
    assert "<polyline" in expected
    probes = [raw.text for raw in outcome.raw if raw.side.value == "probe"]
    assert sorted(parsed) == sorted(probes)  # each once, not once a chart
