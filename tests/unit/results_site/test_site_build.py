"""`wirespeed site DIR -o OUT` on bundles written by `wirespeed export`: the index's rows
and their figures' comparison keys, a page and a data file per card (each holding its
own card only), and each device's trend page as `wirespeed trend --by firmware` writes
it over a store that imported the device's bundles."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from support.cli import run_cli
from support.site_bundles import card_bundles, firmware_bundles


def _data(path: Path, name: str) -> Any:
    text = path.read_text()
    assert text.startswith(f"{name}(") and text.endswith(");\n")
    return json.loads(text[len(name) + 1 : -3])


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[Path]]:
    tmp_path = tmp_path_factory.mktemp("site")
    results, out = tmp_path / "results", tmp_path / "public"
    card_bundles(results, tmp_path)
    firmware = firmware_bundles(results, tmp_path)
    done = run_cli("site", str(results), "-o", str(out), "--jobs", "2")
    assert done.status == 0, done.err
    assert "site of 7 runs (1 devices with a trend)" in done.err
    return results, out, firmware


def test_the_index_has_a_row_per_run_with_the_card_s_figures_and_their_keys(
    built: tuple[Path, Path, list[Path]],
) -> None:
    _, out, _ = built
    index = _data(out / "data" / "index.js", "wirespeedIndex")
    rows = {row["file"]: row for row in index["rows"]}
    assert sorted(rows) == [
        "cards/fe-15k.wsr", "cards/fe-30k.wsr", "cards/tuned.wsr",
        "r4s/1.wsr", "r4s/2.wsr", "r4s/3.wsr", "r4s/4.wsr",
    ]  # fmt: skip
    fe = rows["cards/fe-15k.wsr"]
    assert fe["link"] == "fe" and fe["valid"] is False
    assert fe["verdict"] == "not valid: background load, lab-limited, no repetitions"
    assert set(fe["figures"]) == {"TCP", "NDR 64 B", "WireGuard", "AES-256-GCM", "Bufferbloat"}
    assert fe["figures"]["NDR 64 B"]["text"] == "14,257 pps"  # the card's row says so too
    # Both lab cards measured TCP alike: one key; its text names how.
    other = rows["cards/fe-30k.wsr"]
    assert fe["figures"]["TCP"]["key"] == other["figures"]["TCP"]["key"]
    said = index["keys"][fe["figures"]["TCP"]["key"]]
    assert said.startswith("tool iperf2 ") and "topology nat" in said and "link fe" in said
    assert "None" not in said  # the settings a test left unset are not said
    # The tuned card ran 1 s trials, repeated twice: still the same key (pace is not in it).
    assert rows["cards/tuned.wsr"]["figures"]["TCP"]["key"] == fe["figures"]["TCP"]["key"]
    # The R4S's runs are runs, not cards: no headline figures, their firmware labels.
    assert rows["r4s/3.wsr"]["figures"] == {} and rows["r4s/3.wsr"]["firmware"] == "23.05.3"


def test_each_card_has_its_page_and_a_data_file_of_its_own(
    built: tuple[Path, Path, list[Path]],
) -> None:
    _, out, _ = built
    index = _data(out / "data" / "index.js", "wirespeedIndex")
    pages = [row["page"] for row in index["rows"]]
    assert len(set(pages)) == 7
    for row in index["rows"]:
        page = (out / "cards" / f"{row['page']}.html").read_text()
        assert '<a href="../index.html">' in page
        data = _data(out / "data" / "cards" / f"{row['page']}.js", "wirespeedCard")
        assert data["page"] == row["page"] and data["name"] == Path(row["file"]).name
        assert data["groups"] and all(g["values"] for g in data["groups"])
        others = set(pages) - {row["page"]}
        text = (out / "data" / "cards" / f"{row['page']}.js").read_text()
        assert not any(other in text for other in others)
    card = (out / "cards" / f"{index['rows'][0]['page']}.html").read_text()
    assert "Throughput" in card and "Forwarding rate" in card
    for name in ("index.html", "compare.html", "stats.js", "compare.js", "index.js", "site.css"):
        text = (out / name).read_text()
        # Self-contained: nothing fetched from elsewhere.
        assert "http://" not in text.replace("http://www.w3.org", "") and "https://" not in text


def test_a_device_s_trend_page_is_the_trend_command_s(
    built: tuple[Path, Path, list[Path]], tmp_path: Path
) -> None:
    _, out, firmware = built
    db = str(tmp_path / "imported.db")
    for bundle in firmware:
        assert run_cli("import", str(bundle), "--db", db).status == 0
    page = tmp_path / "trend.html"
    done = run_cli("trend", "--by", "firmware", "--db", db, "-o", str(page))
    assert done.status == 0, done.err
    (device,) = (out / "devices").glob("*.html")
    text = device.read_text()
    start, end = text.index('<nav class="site-nav"'), text.index("</nav>") + len("</nav>")
    assert text[:start] + text[end:] == page.read_text()
    said = run_cli("trend", "--by", "firmware", "--db", db, "--format", "json")
    regressions = json.loads(said.out)["regressions"]
    assert regressions == 2  # both openssl figures, 10 % slower under 23.05.3
    index = _data(out / "data" / "index.js", "wirespeedIndex")
    trends = {row["trend"]["said"] for row in index["rows"] if row["file"].startswith("r4s/")}
    assert trends == {"2 regressions"}


def test_a_bad_bundle_is_left_out_and_named(tmp_path: Path) -> None:
    results = tmp_path / "results"
    card_bundles(results, tmp_path)
    (results / "broken.wsr").write_bytes(b"\x1f\x8b broken")
    done = run_cli("site", str(results), "-o", str(tmp_path / "out"), "--jobs", "1")
    assert done.status == 1
    assert "left out: broken.wsr: not a whole bundle" in done.err
    index = _data(tmp_path / "out" / "data" / "index.js", "wirespeedIndex")
    assert len(index["rows"]) == 3 and index["bad"][0].startswith("broken.wsr: ")
