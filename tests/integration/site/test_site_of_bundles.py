"""A results repository made by real runs, published with `wirespeed site` and read in
headless Chromium: two lab devices' cards (Fast Ethernet NAT and gigabit router, their
throughput parts at 1 s) and a foreign-bench router (an OpenWrt-like busybox device over
SSH, built by the test without wirespeed's lab code) measured under two firmware labels,
each run exported to a bundle of its own.

The page's table is sorted (a figure's rows grouped by comparison key) and filtered, a
card is opened, the two lab cards compared in the page, the router's trend read: the
comparison's figures are those of `wirespeed compare` on the same bundles, the trend's
page that of `wirespeed trend --by firmware` on a store that imported them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from browser.chromium_cdp import Page, chromium, chromium_path
from browser.test_html_report_browser import ARTIFACTS, _problems
from support.cli import run_cli
from support.foreign_bench import PC_LAN, ROUTER_WAN, WORKSTATION, ForeignBench

pytestmark = [pytest.mark.root, pytest.mark.slow, pytest.mark.browser]

CHROMIUM = chromium_path()
WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]
MakeBench = Callable[..., ForeignBench]

ROUTER_PLAN = f"""\
hosts:
  laptop: {{address: {PC_LAN}, ssh: root@pc}}
  workstation: {{address: {WORKSTATION}, ssh: root@workstation}}
  router: {{address: {ROUTER_WAN}, ssh: root@router}}
paths:
  - {{name: NAT, topology: nat, client: laptop, server: workstation, dut: router, link: gbe}}
tests: [{{id: tcp, name: TCP}}]
"""
SKIP = "forwarding,latency,vpn,compute"
FIRMWARE = ("21.02.7", "23.05.3")


def _ok(*argv: str) -> str:
    status, out, err = run_cli(*argv)
    assert status == 0, (argv, err)
    return str(out)


def _lab_cards(tmp_path: Path, results: Path) -> list[Path]:
    db = str(tmp_path / "lab.db")
    prefix = f"site{os.getpid()}"
    made = []
    for number, (target, name) in enumerate(
        (("lab:nat:fe", "lab-nat-fe.wsr"), ("lab:router:gbe", "lab-router-gbe.wsr")), start=1
    ):
        _ok("card", target, "--duration", "1", "--skip", SKIP, "--lab-name", prefix,
            "--db", db, "-q")  # fmt: skip
        bundle = results / "lab" / name
        bundle.parent.mkdir(parents=True, exist_ok=True)
        _ok("export", str(number), "-o", str(bundle), "--db", db)
        made.append(bundle)
    return made


def _router_runs(bench: ForeignBench, tmp_path: Path, results: Path) -> list[Path]:
    plan = tmp_path / "router.yaml"
    plan.write_text(textwrap.dedent(ROUTER_PLAN))
    db = str(tmp_path / "router.db")
    made = []
    for number, firmware in enumerate(FIRMWARE, start=1):
        argv = [*WIRESPEED, "run", str(plan), "--duration", "1", "--repeat", "3",
                "--label", f"firmware={firmware}", "--ssh-config", str(bench.ssh_config),
                "--db", db, "-q"]  # fmt: skip
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        bundle = results / "router" / f"{number}-{firmware}.wsr"
        bundle.parent.mkdir(parents=True, exist_ok=True)
        _ok("export", str(number), "-o", str(bundle), "--db", db)
        made.append(bundle)
    return made


def _index(page: Page) -> list[dict[str, Any]]:
    return page.evaluate(  # type: ignore[no-any-return]
        """Array.from(document.querySelectorAll('#rows tr')).map(function (tr) {
          return {group: tr.classList.contains('key-group') ? tr.textContent : null,
                  page: tr.getAttribute('data-page'),
                  cells: Array.from(tr.querySelectorAll('td')).map(function (td) {
                    return td.textContent; })};
        })"""
    )


def _click(page: Page, selector: str) -> None:
    page.evaluate(f"document.querySelector({json.dumps(selector)}).click()")


def test_a_site_of_lab_and_bench_bundles_sorts_filters_compares_and_trends(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (Debian: apt-get install chromium)")
    results, out = tmp_path / "results", tmp_path / "public"
    lab = _lab_cards(tmp_path, results)
    router = _router_runs(foreign_bench(limit_pps=15000), tmp_path, results)

    status, _, err = run_cli("site", "--check", str(results), "--allow-invalid")
    assert status == 0, err
    _ok("site", str(results), "-o", str(out))

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with chromium(CHROMIUM) as browser:
        page = browser.open((out / "index.html").as_uri(), width=1280)
        page.send("Runtime.enable")
        page.wait_for("document.body.getAttribute('data-ready')")
        rows = [r for r in _index(page) if r["page"]]
        assert len(rows) == 4
        # Sorted by TCP, the figures fall in one group per comparison key: the Fast
        # Ethernet card's, the gigabit router card's and the foreign router's runs
        # (through NAT on gigabit) are each measured otherwise.
        _click(page, "th[data-key='TCP'] button")
        arranged = _index(page)
        groups = [r["group"] for r in arranged if r["group"]]
        assert len(groups) == 3 and all("measured as: tool iperf" in g for g in groups), groups
        assert groups[0].endswith("(2)") and "topology nat · link gbe" in groups[0]
        assert any("link fe" in g for g in groups) and any("topology router" in g for g in groups)
        tcp = [r["cells"][5] for r in arranged if r["page"]]
        assert all(text.endswith("bit/s") for text in tcp), tcp
        # Filtered by words: the router's run under the older firmware alone.
        page.evaluate(
            "var f = document.getElementById('filter'); f.value = '21.02.7';"
            "f.dispatchEvent(new Event('input'))"
        )
        page.wait_for("document.getElementById('count').textContent.startsWith('1 of 4')")
        page.screenshot(ARTIFACTS / "site-index-filtered.png", width=1280)
        page.evaluate(
            "var f = document.getElementById('filter'); f.value = '';"
            "f.dispatchEvent(new Event('input'))"
        )
        page.wait_for("document.getElementById('count').textContent.startsWith('4 of 4')")
        page.screenshot(ARTIFACTS / "site-index.png", width=1280)
        assert _problems(page) == []

        # A card's own page, from the table's link.
        by_name = {r["cells"][-1]: r for r in rows}
        fe = by_name["lab-nat-fe.wsr"]
        card = browser.open((out / "cards" / f"{fe['page']}.html").as_uri(), width=1280)
        card.wait_for("document.readyState === 'complete'")
        assert "Throughput" in card.evaluate("document.body.innerText")
        card.screenshot(ARTIFACTS / "site-card.png", width=1280)

        # The two lab cards chosen in the table and compared.
        for name in ("lab-nat-fe.wsr", "lab-router-gbe.wsr"):
            _click(page, f"tr[data-page='{by_name[name]['page']}'] input")
        _click(page, "#compare")
        page.wait_for("window.siteComparison && !window.siteComparison.error")
        shown = page.evaluate("window.siteComparison")
        page.screenshot(ARTIFACTS / "site-compare.png", width=1280)
        assert _problems(page) == []
    _same_as_compare(shown, lab)
    _same_as_trend(out, router, rows, tmp_path)


def _same_as_compare(shown: dict[str, Any], bundles: list[Path]) -> None:
    """The page's comparison is `wirespeed compare A B`'s, figure by figure."""
    done = subprocess.run(
        [*WIRESPEED, "compare", *(b.name for b in bundles), "--format", "json"],
        capture_output=True, text=True, timeout=120, check=False, cwd=bundles[0].parent,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)
    assert shown["columns"] == [c["label"] for c in cli["columns"]]
    assert shown["notes"] == cli["notes"]
    assert [p["key"] for p in shown["parts"]] == [p["key"] for p in cli["parts"]]
    compared = 0
    for theirs, mine in zip(cli["parts"], shown["parts"], strict=True):
        assert [r["item"] for r in mine["rows"]] == [r["item"] for r in theirs["rows"]]
        for row, site_row in zip(theirs["rows"], mine["rows"], strict=True):
            for cell, site_cell in zip(row["cells"], site_row["cells"], strict=True):
                if cell is None:
                    assert site_cell is None
                    continue
                assert site_cell["median"] == cell["summary"]["median"]
                assert site_cell["percent"] == cell["percent"]
                assert site_cell["verdict"] == cell["verdict"]
                assert site_cell["not_comparable"] == cell.get("not_comparable")
                compared += 1
    # Fast Ethernet against gigabit: the TCP figures say which key differs.
    assert compared > 4
    assert any(
        "link fe vs gbe" in ((c or {}).get("not_comparable") or "")
        for p in cli["parts"]
        for r in p["rows"]
        for c in r["cells"]
    )


def _same_as_trend(
    out: Path, bundles: list[Path], rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    """The router's trend page is `wirespeed trend --by firmware`'s over a store that
    imported its bundles, in the site's order; its verdict is read in the page."""
    router_rows = [r for r in rows if r["cells"][-1].endswith(".wsr") and r["cells"][-2]]
    trend_links = {r["cells"][-2] for r in router_rows}
    assert any("regression" in said or "no regression" in said for said in trend_links)
    db = str(tmp_path / "imported.db")
    for bundle in bundles:
        _ok("import", str(bundle), "--db", db)
    cli_page = tmp_path / "trend.html"
    _ok("trend", "--by", "firmware", "--db", db, "-o", str(cli_page))
    cli_json = json.loads(_ok("trend", "--by", "firmware", "--db", db, "--format", "json"))
    (site_page,) = (out / "devices").glob("*.html")
    text = site_page.read_text()
    start, end = text.index('<nav class="site-nav"'), text.index("</nav>") + len("</nav>")
    assert text[:start] + text[end:] == cli_page.read_text()
    assert CHROMIUM is not None
    with chromium(CHROMIUM) as browser:
        page = browser.open(site_page.as_uri(), width=400)
        page.wait_for("document.readyState === 'complete'")
        verdicts = page.evaluate(
            "Array.from(document.querySelectorAll('section.series')).map(function (s) {"
            "  var rows = s.querySelectorAll('tbody tr');"
            "  return rows[rows.length - 1].lastElementChild.textContent; })"
        )
        page.screenshot(ARTIFACTS / "site-trend-400.png", width=400)
    newest = [s["newest"]["verdict"] for s in cli_json["series"]]
    assert [v.split(" (")[0].rstrip("!+") for v in verdicts] == newest
    assert cli_json["runs"] == 2 and newest
