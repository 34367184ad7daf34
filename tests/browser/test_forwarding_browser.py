"""The forwarding section of the HTML report in real headless Chromium: a chart per cell
of the searches' trials, drawn without a script error, from a run read back from a store."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser.chromium_cdp import chromium, chromium_path
from browser.test_html_report_browser import ARTIFACTS, _problems
from support.forwarding_samples import bridge_outcomes, nat_outcomes
from support.samples import run_record, store_runs
from wirespeed.report import build_report
from wirespeed.report.html import render_html
from wirespeed.store import Store

pytestmark = pytest.mark.browser

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(
        "chromium is not installed (Debian: apt-get install chromium)", allow_module_level=True
    )


def test_a_forwarding_run_draws_a_chart_per_cell_with_every_trial(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    db, out = tmp_path / "runs.db", tmp_path / "report.html"
    outcomes = [*bridge_outcomes(3), *nat_outcomes(2)]
    (run_id,) = store_runs(db, run_record(*outcomes, title="R4S forwarding <b>rate</b>"))
    with Store.open(db, read_only=True) as store:
        record = store.load_run(run_id, intervals="packed", outputs=True, commands=True)
    page_text = render_html(build_report(record))
    out.write_text(page_text, encoding="utf-8")
    # 7 sizes x 2 directions x 3 repetitions, and the NAT path's 2 x 2: a light page.
    assert len(page_text) < 400_000
    trials = sum(
        1 for o in outcomes for raw in o.raw if raw.argv[0] == "iperf" and "-c" in raw.argv
    )
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri())
        assert page.wait_for("document.documentElement.getAttribute('data-forwarding')") == "ready"
        assert page.evaluate("document.documentElement.getAttribute('data-ready')") == "true"
        charts = page.evaluate("document.querySelectorAll('.fwd-plot svg').length")
        assert charts == 7 * 2 + 2
        # Every trial of every search is a point; full-length and short ones apart.
        points = page.evaluate("document.querySelectorAll('.fwd-plot circle.pt').length")
        assert points == trials
        assert page.evaluate("document.querySelectorAll('.fwd-plot circle.full').length") > 0
        assert page.evaluate("document.querySelectorAll('.fwd-plot circle.short').length") > 0
        # Each chart is drawn at its size, with the bounds and the link's ceiling.
        sizes = page.evaluate(
            "Array.from(document.querySelectorAll('.fwd-plot svg')).map(function (s) {"
            " var r = s.getBoundingClientRect(); return [r.width, r.height,"
            " s.querySelectorAll('line.bound').length]; })"
        )
        assert all(w > 100 and h > 100 and bounds > 0 for w, h, bounds in sizes), sizes
        first = page.evaluate("document.querySelector('.fwd-chart').textContent")
        assert "64 B" in first and "ceiling 148,810" not in first and "ceiling 1,488,095" in first
        nat = page.evaluate("document.getElementById('forwarding-charts-1').textContent")
        assert "generator 180,000" in nat and "ceiling" not in nat  # unshaped: no ceiling
        table = page.evaluate("document.getElementById('forwarding').innerText")
        assert "1518 B" in table and "with their FCS" in table
        assert page.evaluate("document.querySelectorAll('main b').length") == 0
        # Only searches: no throughput-over-time view of trials that have none.
        assert page.evaluate("document.getElementById('trials')") is None
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / "html-report-forwarding.png")
        assert _problems(page) == []
