"""A store written before benchmarks existed (schema 3) is migrated and reported exactly
as it was: terminal, Markdown, CSV, HTML and compare, byte for byte, against the outputs
the code of that time wrote (tests/fixtures/reports/v3-outputs)."""

from __future__ import annotations

import io
import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from support.run_report import render_markdown, render_terminal
from wirespeed.report import build_report, render_csv
from wirespeed.report.html import render_html
from wirespeed.store import Store
from wirespeed.store.schema import SCHEMA_VERSION

REPORTS = Path(__file__).parents[2] / "fixtures" / "reports"
BEFORE = REPORTS / "v3-outputs"


def _before(name: str) -> str:
    return lzma.decompress((BEFORE / f"{name}.xz").read_bytes()).decode("utf-8")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Store]:
    db = tmp_path_factory.mktemp("reports") / "runs.db"
    db.write_bytes(lzma.decompress((REPORTS / "runs.db.xz").read_bytes()))
    with Store.open(str(db), read_only=True) as opened:
        yield opened


def test_the_fixture_store_is_older_than_this_schema(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "runs.db"
    path.write_bytes(lzma.decompress((REPORTS / "runs.db.xz").read_bytes()))
    with sqlite3.connect(path) as conn:
        (version,) = conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    conn.close()
    assert int(version) < SCHEMA_VERSION


@pytest.mark.parametrize("run", [1, 2])
def test_every_report_of_a_migrated_store_is_written_as_before(store: Store, run: int) -> None:
    report = build_report(store.load_run(run, intervals="packed", outputs=False, commands=True))
    buffer = io.StringIO()
    render_terminal(
        report, Console(file=buffer, width=160, color_system=None, force_terminal=False)
    )
    assert buffer.getvalue() == _before(f"report-{run}.txt")
    assert render_markdown(report) == _before(f"report-{run}.md")
    assert render_csv(report) == _before(f"report-{run}.csv")
    assert render_html(report) == _before(f"report-{run}.html")
