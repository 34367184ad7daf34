"""What the HTML reports look like, measured in real headless Chromium: a run of only
benchmarks has no throughput chart, a failure's reason stays inside its card however
long, the forwarding charts' labels do not cover each other, and a soak's time axis
reads from its start, a resumed soak's unwatched time a gap in its lines.

Screenshots are kept in out/test-artifacts/ (gitignored) for a person to look at.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from browser.chromium_cdp import Page, chromium, chromium_path
from browser.html_samples import TESTS
from browser.test_html_report_browser import ARTIFACTS, _problems
from support.bench_samples import R4S_419, bench_outcome, device_path
from support.forwarding_samples import (
    Device,
    bridge_path,
    forwarding_outcome,
    forwarding_test,
    search_log,
)
from support.samples import START, run_record, store_runs, wan_path
from support.soak_samples import captured_summary
from wirespeed.model import Trial, TrialOutcome, TrialStatus
from wirespeed.report import build_report
from wirespeed.report.html import render_document_html, render_html
from wirespeed.soak.render import soak_result
from wirespeed.store import Store

pytestmark = pytest.mark.browser

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(
        "chromium is not installed (Debian: apt-get install chromium)", allow_module_level=True
    )

# As a tool words it, with a path no line break can fall in.
LONG_TOKEN = (
    "dlopen(/usr/lib/aarch64-linux-gnu/engines-3/afalg.so,0x0002):"
    "cannot_open_shared_object_file:No_such_file_or_directory"
)
REASON = f"openssl exited with status 1: speed: Unknown algorithm aes-999-cbc; {LONG_TOKEN}"

# Each text node holding `token`, outside scripts: its card's id and whether the text's
# box lies within the card's box (left and right).
INSIDE_ITS_CARD = """(function (token) {
  var found = [], walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    var node = walker.currentNode, el = node.parentElement;
    if (node.textContent.indexOf(token) < 0 || el.closest("script")) continue;
    var card = el.closest("section.card");
    if (!card) continue;
    var range = document.createRange();
    range.selectNodeContents(node);
    var r = range.getBoundingClientRect(), c = card.getBoundingClientRect();
    found.push([card.id, r.left >= c.left - 0.5 && r.right <= c.right + 0.5,
                Math.round(r.right), Math.round(c.right)]);
  }
  return found;
})(%s)"""


def _open(browser: Any, path: Path, width: int) -> Page:
    page: Page = browser.open(path.as_uri(), width=width)
    assert page.wait_for("document.documentElement.getAttribute('data-ready')") == "true"
    return page


def _failed_trial(reason: str) -> TrialOutcome:
    test = TESTS[0][0]
    return TrialOutcome(
        trial=Trial(test, wan_path(), repetition=1),
        status=TrialStatus.FAILED,
        started_at=START,
        finished_at=START + 1,
        reason=reason,
    )


def _failed_bench(reason: str) -> TrialOutcome:
    ok = bench_outcome(device_path("Neo2"), R4S_419)
    return dataclasses.replace(ok, status=TrialStatus.FAILED, result=None, reason=reason)


def test_a_run_of_benchmarks_only_has_no_throughput_chart_and_its_reason_wraps(
    tmp_path: Path,
) -> None:
    assert CHROMIUM is not None
    out = tmp_path / "bench.html"
    record = run_record(
        bench_outcome(device_path("R4S"), R4S_419), _failed_bench(REASON), title="compute"
    )
    out.write_text(render_html(build_report(record)), encoding="utf-8")
    with chromium(CHROMIUM) as browser:
        page = _open(browser, out, 480)
        assert page.evaluate("document.getElementById('trials')") is None
        assert "Throughput over time" not in page.evaluate("document.body.innerText")
        assert page.evaluate("document.querySelectorAll('svg').length") == 0
        placed = page.evaluate(INSIDE_ITS_CARD % repr(LONG_TOKEN[:20]))
        assert placed and all(inside for _, inside, *_ in placed), placed
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / "html-report-benchmarks-only.png", width=480)
        assert _problems(page) == []


def test_a_failed_trials_reason_stays_inside_its_cards(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    out = tmp_path / "failed.html"
    record = run_record(
        _failed_trial(f"the iperf client on workstation failed: {LONG_TOKEN}"),
        bench_outcome(device_path("R4S"), R4S_419),
        title="a failed trial",
    )
    out.write_text(render_html(build_report(record)), encoding="utf-8")
    with chromium(CHROMIUM) as browser:
        page = _open(browser, out, 480)
        # The failed trial is the one shown: its chart says why it has no series.
        assert "failed" in page.evaluate("document.getElementById('trial-info').textContent")
        placed = page.evaluate(INSIDE_ITS_CARD % repr(LONG_TOKEN[:20]))
        assert {card for card, *_ in placed} == {"trials", "notes"}, placed
        assert all(inside for _, inside, *_ in placed), placed
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / "html-report-failed-reason.png", width=480)
        assert _problems(page) == []


def test_the_ceiling_and_generator_labels_of_a_forwarding_chart_do_not_overlap(
    tmp_path: Path,
) -> None:
    # A gigabit bridge whose generator sends at most 1.4 Mpps at 64 B: its limit is a
    # few pixels from the link's 1,488,095 on the chart's log scale.
    assert CHROMIUM is not None
    path, db, out = bridge_path(), tmp_path / "runs.db", tmp_path / "fwd.html"
    test = forwarding_test("fwd-gen", frames=(64, 1518), directions=("up",))
    device = Device(pps=2_000_000.0, policer_bps=None)
    logs = [search_log(f, "up", path, device=device, generator=1_400_000.0) for f in (64, 1518)]
    (run_id,) = store_runs(db, run_record(forwarding_outcome(test, path, logs), title="gen"))
    with Store.open(db, read_only=True) as store:
        record = store.load_run(run_id, intervals="packed", outputs=True, commands=True)
    out.write_text(render_html(build_report(record)), encoding="utf-8")
    with chromium(CHROMIUM) as browser:
        page = _open(browser, out, 900)
        assert page.wait_for("document.documentElement.getAttribute('data-forwarding')") == "ready"
        labels = page.evaluate(
            "Array.from(document.querySelectorAll('.fwd-plot svg')).map(function (s) {"
            " return Array.from(s.querySelectorAll('text.hlabel')).map(function (t) {"
            "  var r = t.getBoundingClientRect();"
            "  return [t.textContent, r.left, r.top, r.right, r.bottom]; }); })"
        )
        first = [text for text, *_ in labels[0]]
        assert "ceiling 1,488,095" in first and "generator 1,400,000" in first
        for chart in labels:
            for i, (a, al, at, ar, ab) in enumerate(chart):
                for b, bl, bt, br, bb in chart[i + 1 :]:
                    apart = ar <= bl or br <= al or ab <= bt or bb <= at
                    assert apart, f"{a!r} covers {b!r}"
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / "html-report-forwarding-labels.png", width=900)
        assert _problems(page) == []


def test_a_resumed_soaks_timeline_reads_from_its_start_with_a_gap(tmp_path: Path) -> None:
    assert CHROMIUM is not None
    summary = captured_summary()
    [chunk] = summary.chunks
    length = chunk["end"] - chunk["start"]

    def later(seconds: float) -> dict[str, Any]:
        return chunk | {"start": chunk["start"] + seconds, "end": chunk["end"] + seconds}

    # Two chunks back to back; stopped; two more five minutes later.
    chunks = (chunk, later(length + 0.01), later(2 * length + 300), later(3 * length + 300.01))
    out = tmp_path / "soak.html"
    out.write_text(
        render_document_html(soak_result(dataclasses.replace(summary, chunks=chunks))), "utf-8"
    )
    with chromium(CHROMIUM) as browser:
        page = browser.open(out.as_uri(), width=1000)
        assert page.wait_for("!!document.querySelector('#soak-timeline figure[data-ready]')")
        ticks = page.evaluate(
            "Array.from(document.querySelectorAll('#soak-timeline .ws-tl-axis text'))"
            ".map(function (t) { return t.textContent; })"
        )
        assert ticks[0] == "0:00.0" and all(len(t) <= 8 for t in ticks), ticks
        # Each lane's lines: one run of two chunks before the gap, one after.
        runs = page.evaluate(
            "Array.from(document.querySelectorAll('#soak-timeline g.ws-tl-lane')).map("
            "function (g) { return g.querySelectorAll('path.ws-tl-series').length; })"
        )
        assert runs == [2, 4], runs  # lost; p50 and p99
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / "html-timeline-soak-resumed.png", width=1000)
        assert _problems(page) == []
