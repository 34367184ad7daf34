"""The HTML report in real headless Chromium: every plot drawn, no console error, no
request leaving the page, and a hostile title shown as text.

Screenshots are kept in out/test-artifacts/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from browser.chromium_cdp import Page, chromium, chromium_path
from browser.html_samples import sample_run
from support.cli import run_cli
from wirespeed.report import build_report
from wirespeed.report.html import render_html

pytestmark = pytest.mark.browser

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(
        "chromium is not installed (Debian: apt-get install chromium)", allow_module_level=True
    )

ROOT = Path(__file__).parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
ARTIFACTS = ROOT / "out" / "test-artifacts"
HOSTILE = "<script>alert(1)</script>"
PROBLEMS = ("Runtime.exceptionThrown", "Page.javascriptDialogOpening")


def _cli(*argv: str) -> None:
    status, _, err = run_cli(*argv)
    assert status == 0, err


def _problems(page: Page) -> list[str]:
    page.browser.pump(0.3)
    found = []
    for event in page.events:
        method, params = event["method"], event.get("params", {})
        if method in PROBLEMS:
            found.append(f"{method}: {json.dumps(params)[:300]}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            found.append(f"console.{params['type']}: {json.dumps(params.get('args'))[:300]}")
        elif method == "Log.entryAdded" and params["entry"]["level"] == "error":
            found.append(f"log: {params['entry'].get('text', '')[:300]}")
        elif method == "Network.requestWillBeSent":
            url = params["request"]["url"]
            if not url.startswith(("file:", "data:", "about:")):
                found.append(f"request: {url}")
    return found


def _plots(page: Page) -> list[dict[str, Any]]:
    sizes: list[dict[str, Any]] = page.evaluate(
        "Array.from(document.querySelectorAll('.plot svg')).map(function (s) {"
        " var r = s.getBoundingClientRect();"
        " return {id: s.parentNode.id, w: r.width, h: r.height,"
        "  marks: s.querySelectorAll('polyline, polygon, rect.bar').length}; })"
    )
    return sizes


def _check_page(page: Page, screenshot: Path) -> None:
    assert page.wait_for("document.documentElement.getAttribute('data-ready')") == "true"
    plots = _plots(page)
    assert int(page.evaluate("document.documentElement.getAttribute('data-plots')")) > 0
    assert plots, "no plot on the page"
    for plot in plots:
        assert plot["w"] > 100 and plot["h"] > 100, plot
        assert plot["marks"] > 0, f"an empty plot: {plot}"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(screenshot)
    print(f"screenshot: {screenshot}")
    assert _problems(page) == []


def test_imported_captures_with_a_hostile_title_render_as_text(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    db, out = str(tmp_path / "runs.db"), tmp_path / "report.html"
    files = sorted((FIXTURES / "iperf2").glob("exact-*.client.txt"))
    files += sorted((FIXTURES / "seeds").glob("r4s-*.txt"))
    _cli("import", "--db", db, "--title", HOSTILE, *map(str, files))
    _cli("report", "--db", db, "--format", "html", "-o", str(out))
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri())
        _check_page(page, ARTIFACTS / "html-report-imported.png")
        assert page.evaluate("document.querySelector('h1').textContent") == HOSTILE
        assert page.evaluate("document.title").startswith(HOSTILE)
        assert page.evaluate("document.querySelectorAll('script').length") == 2
        assert "No device samples in this run." in page.evaluate(
            "document.getElementById('device').innerText"
        )
        # The imported links are unknown: the plot says there is no ceiling to draw.
        assert "no ceiling" in page.evaluate("document.getElementById('trial-plot').textContent")


def test_a_run_with_ceilings_and_device_samples_draws_every_plot(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    record, samples = sample_run()
    out = tmp_path / "report.html"
    out.write_text(render_html(build_report(record), samples), encoding="utf-8")
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri())
        _check_page(page, ARTIFACTS / "html-report-r4s.png")
        plots = {p["id"] for p in _plots(page)}
        assert {"bars", "trial-plot"} <= plots
        # Six cores, one stacked plot each, and the interrupt distribution.
        assert page.evaluate("document.querySelectorAll('#monitor .plot svg').length") == 7
        # The path name with markup in it is a label, not an element.
        assert page.evaluate("document.querySelectorAll('main b').length") == 0
        assert 'Br0 "<b>lan</b>"' in page.evaluate("document.getElementById('results').innerText")
        # The ceiling is drawn on the trial's throughput plot.
        assert "ceiling 941.5 Mbit/s" in page.evaluate(
            "document.getElementById('trial-plot').textContent"
        )

        # Another trial: its plot and its samples replace the first's.
        page.evaluate(
            "var s = document.getElementById('trial-select'); s.value = '9';"
            "s.dispatchEvent(new Event('change'))"
        )
        assert page.evaluate("document.documentElement.getAttribute('data-trial')") == "9"
        assert "\N{DOWNWARDS ARROW} down stream 4" in page.evaluate(
            "document.querySelector('#trial-plot .legend').textContent"
        )
        # Its series travel as ms and 10 kbit/s: drawn in seconds and Mbit/s (Br0's
        # dual test: about 690 Mbit/s each way over 30 s).
        hover = page.evaluate(
            "var o = document.querySelector('#trial-plot svg rect[fill=transparent]');"
            "var r = o.getBoundingClientRect();"
            "o.dispatchEvent(new MouseEvent('mousemove',"
            " {clientX: r.x + r.width / 2, clientY: r.y + 5, bubbles: true}));"
            "document.querySelector('.tip').textContent"
        )
        sums = [float(v) for v in re.findall(r"sum: ([\d.]+) Mbit/s", hover)]
        assert len(sums) == 2 and all(600 < v < 800 for v in sums), hover
        ticks = page.evaluate(
            "Array.from(document.querySelectorAll('#trial-plot text.tick'))"
            ".map(function (t) { return t.textContent; })"
        )
        assert "30" in ticks and "800" in ticks, ticks

        # Hover shows values; a legend click hides a series and a second shows it again.
        tooltip = page.evaluate(
            "var r = document.querySelector('#bars rect.bar').getBoundingClientRect();"
            "document.querySelector('#bars rect.bar').dispatchEvent(new MouseEvent('mousemove',"
            " {clientX: r.x + 2, clientY: r.y + 2, bubbles: true}));"
            "document.querySelector('.tip').textContent"
        )
        assert "#1 TCP" in tooltip and "Mbit/s" in tooltip and "n = 3" in tooltip
        count = "document.querySelectorAll('#bars rect.bar').length"
        before = page.evaluate(count)
        page.evaluate("document.querySelector('#bars .legend .lg').click()")
        assert page.evaluate(count) == before - 3  # WAN's bar in each of the three tests
        page.evaluate("document.querySelector('#bars .legend .lg').click()")
        assert page.evaluate(count) == before
        assert _problems(page) == []


def test_a_run_of_benchmarks_shows_its_table_and_its_trials(tmp_path: Path) -> None:
    from support.bench_samples import NEO2, R4S_419, device_path, failed_bench, repeated
    from support.samples import run_record

    assert CHROMIUM is not None
    r4s, neo2 = device_path("R4S"), device_path("Neo2")
    record = run_record(
        *repeated(r4s, R4S_419, (1.0, 1.002, 0.998)),
        *repeated(neo2, NEO2, (1.0,)),
        failed_bench(neo2, 2),
        title="openssl speed, R4S and Neo2",
    )
    out = tmp_path / "report.html"
    out.write_text(render_html(build_report(record)), encoding="utf-8")
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri())
        assert page.wait_for("document.documentElement.getAttribute('data-ready')") == "true"
        table = page.evaluate("document.getElementById('benchmarks').innerText")
        assert "AES-128-CBC 1 KB, EVP" in table and "Neo2" in table
        assert page.evaluate("document.getElementById('results')") is None
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / "html-report-benchmarks.png")
        assert _problems(page) == []


def test_the_table_of_runs_is_a_page_of_its_own(tmp_path: Path) -> None:
    from support.bench_samples import NEO2, R4S_419, R4S_510, device_path, repeated
    from support.samples import run_record, store_runs

    assert CHROMIUM is not None
    db, out = tmp_path / "runs.db", tmp_path / "compare.html"
    spread = (1.0, 1.001, 0.999)
    store_runs(
        db,
        run_record(*repeated(device_path("R4S"), R4S_419, spread), title=HOSTILE),
        run_record(*repeated(device_path("R4S"), R4S_510, spread)),
        run_record(*repeated(device_path("Neo2"), NEO2, spread)),
    )
    _cli("compare", "1", "2", "3", "--db", str(db), "-o", str(out))
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri())
        page.browser.pump(0.5)
        assert page.evaluate("document.querySelectorAll('#compare-runs tbody tr').length") == 2
        assert page.evaluate("document.querySelectorAll('script').length") == 0
        assert HOSTILE in page.evaluate("document.body.innerText")  # shown as text
        assert _problems(page) == []
