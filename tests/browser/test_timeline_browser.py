"""The timeline chart in real headless Chromium: a run's "Device over time" from the fake
board's samples, and a synthetic day-long soak, drawn with their lanes, intervals and
instants, zoomed by dragging and by the wheel, without a console error or a request."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browser.chromium_cdp import Page, chromium, chromium_path
from browser.test_html_report_browser import ARTIFACTS, _problems
from support.board_samples import line_rate_trial, sampled_board
from support.samples import run_record
from support.soak_samples import captured_summary
from wirespeed.report import build_report
from wirespeed.report.html import render_document_html, render_html
from wirespeed.report.timeline import Lane, Mark, Series, Span, timeline_section
from wirespeed.soak.render import soak_result

pytestmark = pytest.mark.browser

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(
        "chromium is not installed (Debian: apt-get install chromium)", allow_module_level=True
    )

DRAWN = "!!document.querySelector('{0} figure.ws-timeline[data-ready=true] svg')"


def _lanes(page: Page, scope: str) -> list[str]:
    titles: list[str] = page.evaluate(
        f"Array.from(document.querySelectorAll('{scope} .ws-tl-lane'))"
        ".map(function (g) { return g.getAttribute('data-title'); })"
    )
    return titles


def _drag(page: Page, scope: str, start: float, end: float) -> str:
    """Drag across the chart from `start` to `end` (fractions of its width); the range."""
    text: str = page.evaluate(
        f"(function () {{ var box = document.querySelector('{scope} .ws-tl-plot');"
        " var r = box.querySelector('rect.ws-tl-bg').getBoundingClientRect();"
        " var y = r.y + r.height / 2;"
        f" var a = r.x + r.width * {start}, b = r.x + r.width * {end};"
        " box.dispatchEvent(new MouseEvent('mousedown',"
        " {clientX: a, clientY: y, button: 0, bubbles: true}));"
        " box.dispatchEvent(new MouseEvent('mousemove', {clientX: b, clientY: y, bubbles: true}));"
        " window.dispatchEvent(new MouseEvent('mouseup', {clientX: b, clientY: y, bubbles: true}));"
        f" return document.querySelector('{scope} .ws-tl-range').textContent; }})()"
    )
    return text


def test_a_runs_device_timeline_draws_the_boards_lanes(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    board = sampled_board(tmp_path, seconds=3.0)
    record = run_record(line_rate_trial(board, 1), line_rate_trial(board, 2), title="R4S")
    out = tmp_path / "report.html"
    out.write_text(render_html(build_report(record)), encoding="utf-8")
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri())
        assert page.wait_for(DRAWN.format("#device-timeline"))
        assert _lanes(page, "#device-timeline") == ["power", "temperature", "CPU clock"]
        scope = "#device-timeline .ws-tl-choice:not([hidden])"
        counts = page.evaluate(
            f"(function () {{ var s = document.querySelector('{scope} svg'); return ["
            " s.querySelectorAll('path.ws-tl-series').length,"
            " s.querySelectorAll('rect.ws-tl-span').length,"
            " s.querySelectorAll('line.ws-tl-mark').length]; })()"
        )
        # power, temperature, two clocks; under-voltage and throttled; four log lines
        assert counts == [4, 2, 4]
        marks = page.evaluate(
            f"Array.from(document.querySelectorAll('{scope} line.ws-tl-mark title'))"
            ".map(function (t) { return t.textContent; })"
        )
        assert any("Detected Tx Unit Hang" in m for m in marks), marks
        # hover: every lane's value at that time
        tip = page.evaluate(
            f"(function () {{ var box = document.querySelector('{scope} .ws-tl-plot');"
            " var r = box.querySelector('rect.ws-tl-bg').getBoundingClientRect();"
            " box.dispatchEvent(new MouseEvent('mousemove', {clientX: r.x + r.width / 2,"
            " clientY: r.y + 5, bubbles: true}));"
            " return box.querySelector('.ws-tl-tip').textContent; })()"
        )
        assert "power board: 2.2 W" in tip and "under-voltage" in tip, tip
        before = page.evaluate(f"document.querySelector('{scope} .ws-tl-range').textContent")
        assert _drag(page, scope, 0.25, 0.5) != before
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / "html-device-timeline.png")
        # the other trial's chart is drawn when it is chosen
        page.evaluate(
            "var s = document.querySelector('#device-timeline select.ws-tl-pick');"
            "s.value = '1'; s.dispatchEvent(new Event('change')); 1"
        )
        assert (
            page.evaluate(
                "document.querySelectorAll('#device-timeline figure[data-ready=true]').length"
            )
            == 2
        )
        assert _problems(page) == []


def _soak(seconds: int) -> str:
    t = [float(i) for i in range(seconds)]
    down: list[float | None] = [940.0 + (i % 13) * 0.5 for i in range(seconds)]
    down[seconds // 3] = None  # a gap
    rtt: list[float | None] = [1.0 + (i % 17) * 0.01 for i in range(seconds)]
    rtt[seconds // 2] = 250.0  # one second's spike
    lanes = [
        Lane("throughput", "Mbit/s", (Series("down", t, down),)),
        Lane("round trip", "ms", (Series("p50", t, rtt),)),
    ]
    outages = [
        Span(1000.0 + i * 1700, 1000.01 + i * 1700, "outage 10 ms", "outage") for i in range(50)
    ]
    events = [Mark(float(i * 170), "tx-hang", f"</script> hang {i}") for i in range(500)]
    return timeline_section("Soak <24 h>", lanes, outages, events, section_id="soak")


def test_a_day_of_soak_draws_every_outage_and_event_and_zooms(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    out = tmp_path / "soak.html"
    out.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>'
        f"{_soak(86_400)}</body></html>",
        encoding="utf-8",
    )
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri())
        assert page.wait_for(DRAWN.format("#soak"))
        assert page.evaluate("document.querySelector('#soak h2').textContent") == "Soak <24 h>"
        assert _lanes(page, "#soak") == ["throughput", "round trip"]
        svg = "document.querySelector('#soak svg')"
        # 10 ms outages in a day: each still a visible sliver
        widths = page.evaluate(
            f"Array.from({svg}.querySelectorAll('rect.ws-tl-span'))"
            ".map(function (r) { return r.getBoundingClientRect().width; })"
        )
        assert len(widths) == 50 and min(widths) >= 1
        assert page.evaluate(f"{svg}.querySelectorAll('line.ws-tl-mark').length") == 500
        # the one-second spike reaches the top of its lane's scale
        ticks = page.evaluate(
            f"Array.from({svg}.querySelectorAll('text.ws-tl-tick'))"
            ".map(function (t) { return t.textContent; })"
        )
        assert any(float(v) >= 250 for v in ticks if re.fullmatch(r"[\d.]+", v)), ticks
        # zoom: a drag, then the wheel, each narrows the span; a double-click restores it
        whole = page.evaluate("document.querySelector('#soak .ws-tl-range').textContent")
        dragged = _drag(page, "#soak", 0.4, 0.5)
        assert dragged != whole
        wheeled = page.evaluate(
            "(function () { var box = document.querySelector('#soak .ws-tl-plot');"
            " var r = box.querySelector('rect.ws-tl-bg').getBoundingClientRect();"
            " box.dispatchEvent(new WheelEvent('wheel', {deltaY: -100, clientX: r.x + r.width / 2,"
            " clientY: r.y + 5, bubbles: true, cancelable: true}));"
            " return document.querySelector('#soak .ws-tl-range').textContent; })()"
        )
        assert wheeled not in (dragged, whole)
        page.evaluate(
            "document.querySelector('#soak .ws-tl-plot')"
            ".dispatchEvent(new MouseEvent('dblclick', {bubbles: true})); 1"
        )
        assert page.evaluate("document.querySelector('#soak .ws-tl-range').textContent") == whole
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / "html-timeline-soak.png")
        assert _problems(page) == []


def test_a_soaks_own_page_draws_its_outage_and_events(tmp_path: Path) -> None:
    # The page `wirespeed soak --report --format html` writes, from a chunk captured
    # through a lab with a link fault.
    assert CHROMIUM is not None
    out = tmp_path / "soak-page.html"
    out.write_text(render_document_html(soak_result(captured_summary())), encoding="utf-8")
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri())
        assert page.wait_for(DRAWN.format("#soak-timeline"))
        assert _lanes(page, "#soak-timeline") == ["Probes lost", "Round trip"]
        svg = "document.querySelector('#soak-timeline svg')"
        assert page.evaluate(f"{svg}.querySelectorAll('rect.ws-tl-span').length") == 2
        assert page.evaluate(f"{svg}.querySelectorAll('line.ws-tl-mark').length") >= 2
        assert _problems(page) == []
