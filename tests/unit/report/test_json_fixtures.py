"""The JSON of real runs is written byte for byte as it was before orjson wrote it
(tests/fixtures/reports: two lab runs and their reports and comparisons as json.dumps and
the hand-built compact writer wrote them)."""

from __future__ import annotations

import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest

from wirespeed.analysis.compare_many import compare_many
from wirespeed.analysis.compare_within import compare_paths, compare_variants
from wirespeed.report import build_report, render_json, run_json
from wirespeed.report.compare_many_render import render_many_json
from wirespeed.store import Store
from wirespeed.store.records import RunRecord

REPORTS = Path(__file__).parents[2] / "fixtures" / "reports"


def _fixture(name: str) -> str:
    return lzma.decompress((REPORTS / f"{name}.xz").read_bytes()).decode("utf-8")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    db = tmp_path_factory.mktemp("reports") / "runs.db"
    db.write_bytes(lzma.decompress((REPORTS / "runs.db.xz").read_bytes()))
    with Store.open(str(db), read_only=True) as opened:
        yield opened


def _for_report(store: Store, run: int) -> RunRecord:
    return store.load_run(run, intervals="packed", outputs=False, commands=True)


def _for_compare(store: Store, run: int) -> RunRecord:
    return store.load_run(run, intervals=False, outputs=False, commands=False)


@pytest.mark.parametrize("run", [1, 2])
def test_a_real_runs_report_is_written_as_before(store: Store, run: int) -> None:
    written = render_json(build_report(_for_report(store, run)))
    assert written == _fixture(f"report-{run}.json")


@pytest.mark.parametrize("run", [1, 2])
def test_a_real_runs_compact_report_is_written_as_before(
    store: Store, run: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_json, "INDENT_UP_TO_TRIALS", 0)
    written = render_json(build_report(_for_report(store, run)))
    assert "\n" not in written
    assert written == _fixture(f"report-{run}.compact.json")


def test_real_comparisons_are_written_as_before(store: Store) -> None:
    first, second = _for_compare(store, 1), _for_compare(store, 2)
    written = {
        "compare-1-2.json": compare_many([first, second]),
        "compare-1-paths.json": compare_paths(first, "WAN", "Br0"),
        "compare-2-variants.json": compare_variants(second, "default", "mtu1400"),
    }
    for name, comparison in written.items():
        assert render_many_json(comparison) == _fixture(name), name
