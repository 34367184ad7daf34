"""The trend's HTML page in real headless Chromium: each measurement's figure has a
point per run, a step per group and its change points, and fits a phone's width.
Screenshots are kept in out/test-artifacts/ for a person to look at."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser.chromium_cdp import chromium, chromium_path
from browser.test_html_report_browser import ARTIFACTS, _problems
from support.trend_samples import labelled
from wirespeed.analysis.trend import trend
from wirespeed.report.trend_render import render_trend_html

pytestmark = pytest.mark.browser

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(
        "chromium is not installed (Debian: apt-get install chromium)", allow_module_level=True
    )

# Firmware 23.05.0 twice, 23.05.2 the same, 23.05.3 10 % slower, twice.
LEVELS: tuple[tuple[str, float], ...] = (
    ("23.05.0", 1.0),
    ("23.05.0", 1.004),
    ("23.05.2", 0.998),
    ("23.05.3", 0.9),
    ("23.05.3", 0.903),
    ("23.05.3", 0.899),
)

FIGURES = """(function () {
  return Array.from(document.querySelectorAll("section.series")).map(function (s) {
    var svg = s.querySelector("svg").getBoundingClientRect();
    return {runs: s.querySelectorAll("circle.run").length,
            steps: s.querySelectorAll("line.step").length,
            changes: s.querySelectorAll("line.change-point").length,
            right: Math.round(svg.right), width: document.documentElement.clientWidth,
            scroll: document.documentElement.scrollWidth};
  });
})()"""


@pytest.mark.parametrize("width", [1280, 400])
def test_each_measurement_is_drawn_with_its_steps_and_change_points(
    tmp_path: Path, width: int
) -> None:
    assert CHROMIUM is not None
    runs = [labelled(i + 1, firmware, level) for i, (firmware, level) in enumerate(LEVELS)]
    page_file = tmp_path / "trend.html"
    page_file.write_text(render_trend_html(trend(runs, by="firmware")))
    with chromium(CHROMIUM) as browser:
        page = browser.open(page_file.as_uri(), width=width)
        assert page.wait_for("document.readyState") == "complete"
        figures = page.evaluate(FIGURES)
        assert len(figures) == 2
        for figure in figures:
            assert figure["runs"] == len(LEVELS)
            assert figure["steps"] == 3
            assert figure["changes"] == 1  # the drop, at run 4
            assert figure["right"] <= figure["width"]
            assert figure["scroll"] <= figure["width"]  # nothing wider than the page
        assert _problems(page) == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / f"trend-{width}.png", width=width)
