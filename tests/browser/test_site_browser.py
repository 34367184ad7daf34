"""The results site's comparison page in real headless Chromium, on the real cards of
tests/fixtures/cards (exported by `wirespeed export`): the cards chosen are compared in
the page exactly as `wirespeed compare FILE...` compares them; and the page's statistics
(stats.js) give the figures of analysis/compare_many.py on groups of every size, the
seeded bootstrap and random permutations drawing what Python's generator draws."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from browser.chromium_cdp import chromium, chromium_path
from browser.test_html_report_browser import ARTIFACTS, _problems
from support.cli import run_cli
from support.site_bundles import card_bundles
from wirespeed.analysis.compare_many import _cell
from wirespeed.analysis.stats import LARGE_GROUP, median_distribution

pytestmark = pytest.mark.browser

CHROMIUM = chromium_path()
if CHROMIUM is None:
    pytest.skip(
        "chromium is not installed (Debian: apt-get install chromium)", allow_module_level=True
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp_path = tmp_path_factory.mktemp("site")
    results, out = tmp_path / "results", tmp_path / "public"
    card_bundles(results, tmp_path)
    done = run_cli("site", str(results), "-o", str(out))
    assert done.status == 0, done.err
    return results, out


def _pages(out: Path) -> dict[str, str]:
    text = (out / "data" / "index.js").read_text()
    index = json.loads(text[len("wirespeedIndex(") : -3])
    return {row["file"]: row["page"] for row in index["rows"]}


@pytest.mark.parametrize(
    "files",
    [
        ("cards/fe-15k.wsr", "cards/tuned.wsr"),
        ("cards/tuned.wsr", "cards/fe-30k.wsr", "cards/fe-15k.wsr"),
    ],
)
def test_the_page_compares_the_chosen_cards_as_compare_does(
    site: tuple[Path, Path], files: tuple[str, ...]
) -> None:
    assert CHROMIUM is not None
    results, out = site
    pages = _pages(out)
    with chromium(CHROMIUM) as browser:
        url = (out / "compare.html").as_uri() + "#" + ",".join(pages[f] for f in files)
        page = browser.open(url, width=1280)
        page.send("Runtime.enable")
        page.wait_for("window.siteComparison")
        shown: dict[str, Any] = page.evaluate("window.siteComparison")
        assert "error" not in shown, shown
        assert _problems(page) == []
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(ARTIFACTS / f"site-compare-{len(files)}.png", width=1280)
    done = subprocess.run(
        [sys.executable, "-m", "wirespeed.cli.app", "compare", *files, "--format", "json"],
        capture_output=True, text=True, check=False, cwd=results, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    cli = json.loads(done.stdout)
    assert shown["columns"] == [c["label"] for c in cli["columns"]]
    assert shown["notes"] == cli["notes"]
    assert [p["key"] for p in shown["parts"]] == [p["key"] for p in cli["parts"]]
    verdicts = set()
    for theirs, mine in zip(cli["parts"], shown["parts"], strict=True):
        assert [r["item"] for r in mine["rows"]] == [r["item"] for r in theirs["rows"]]
        for row, site_row in zip(theirs["rows"], mine["rows"], strict=True):
            for cell, site_cell in zip(row["cells"], site_row["cells"], strict=True):
                if cell is None:
                    assert site_cell is None
                    continue
                assert site_cell["median"] == cell["summary"]["median"]
                assert site_cell["percent"] == cell["percent"], row["item"]
                assert site_cell["verdict"] == cell["verdict"], row["item"]
                assert site_cell["not_comparable"] == cell.get("not_comparable")
                verdicts.add(cell["verdict"])
    # The tuned card ran twice: its cells against the others' are judged.
    assert verdicts >= {None, "single run"}


def _group(values: list[float]) -> dict[str, Any]:
    import statistics

    group: dict[str, Any] = {"values": values, "median": statistics.median(values)}
    if len(values) >= LARGE_GROUP:
        medians, cumulative = median_distribution(sorted(values))
        group["large"] = {
            "fmean": statistics.fmean(values),
            "variance": statistics.variance(values),
            "medians": medians,
            "cumulative": cumulative,
        }
    return group


def test_the_page_s_statistics_are_python_s(tmp_path: Path) -> None:
    """Pairs of groups of 1 to 25 values (exact and random permutations, the ratio's
    bootstrap from values and from the median's distribution, Welch's test), with ties,
    zeros and values below 0: each cell's ratio, interval, p-value and verdict as
    compare_many._cell gives them."""
    assert CHROMIUM is not None
    generator = random.Random(7)
    cases = []
    for size_a, size_b in [(1, 3), (2, 2), (3, 3), (4, 5), (8, 8), (10, 10), (12, 6),
                           (25, 25), (22, 30), (5, 25), (3, 1)]:  # fmt: skip
        for shift in (1.0, 1.04, 1.3):
            a = [round(generator.gauss(100, 3), 1) for _ in range(size_a)]
            b = [round(generator.gauss(100 * shift, 3), 1) for _ in range(size_b)]
            cases.append((a, b))
    cases += [([0.0, 0.0, 0.0], [0.0, 0.0, 1.0]), ([0.0, 0.0], [0.0, 0.0]),
              ([5.0, 5.0, 5.0], [5.0, 5.0, 5.0]), ([-1.0, 2.0], [1.0, 3.0])]  # fmt: skip
    page_file = tmp_path / "stats.html"
    stats = Path(__file__).resolve().parents[2] / "src/wirespeed/site/assets/stats.js"
    page_file.write_text(f'<!DOCTYPE html><script src="{stats.as_uri()}"></script>')
    with chromium(CHROMIUM) as browser:
        page = browser.open(page_file.as_uri())
        page.wait_for("typeof WirespeedStats !== 'undefined'")
        pairs = json.dumps([[_group(a), _group(b)] for a, b in cases])
        found = page.evaluate(
            f"{pairs}.map(function (p) {{ var c = WirespeedStats.cell(p[1], p[0]);"
            " return [c.ratio, c.interval, c.p, c.verdict]; })"
        )
    for (a, b), (ratio, interval, p, verdict) in zip(cases, found, strict=True):
        first = _cell(a, [f"a{i}" for i in range(len(a))], None, True)
        cell = _cell(b, [f"b{i}" for i in range(len(b))], first, False)
        said = (a, b)
        assert ratio == cell.ratio, said
        assert verdict == (None if cell.verdict is None else cell.verdict.value), said
        if cell.ratio_interval is None:
            assert interval is None, said
        else:
            assert [interval["low"], interval["high"]] == [
                cell.ratio_interval.low, cell.ratio_interval.high,
            ], said  # fmt: skip
        if cell.test is None:
            assert p is None, said
        elif cell.test.method == "welch t-test":
            assert p == pytest.approx(cell.test.p_value, rel=1e-9, abs=1e-15), said
        else:
            assert p == cell.test.p_value, said
