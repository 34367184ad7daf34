"""The run's report as the command line prints it (its document, report/run_document.py,
through the terminal's exporter) keeps to the terminal's width, and prints a forwarding
table of both directions too wide for it one direction a table, each figure whole."""

from __future__ import annotations

import io
import lzma
from pathlib import Path

import pytest
from rich.console import Console

from wirespeed.report import build_report
from wirespeed.report.content import Report
from wirespeed.report.run_document import run_document
from wirespeed.report.terminal import render_document
from wirespeed.store import Store

FIXTURES = Path(__file__).parents[2] / "fixtures"
RUNS = [("cards/runs.db.xz", 1), ("cards/runs.db.xz", 2), ("cards/tuned.db.xz", 1)]
RUNS += [("reports/runs.db.xz", 1), ("reports/runs.db.xz", 2)]


@pytest.fixture(scope="module", params=RUNS, ids=[f"{db}-{run}" for db, run in RUNS])
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Report:
    name, run = request.param
    db = tmp_path_factory.mktemp("run-terminal") / "runs.db"
    db.write_bytes(lzma.decompress((FIXTURES / name).read_bytes()))
    with Store.open(str(db), read_only=True) as store:
        record = store.load_run(run, intervals="packed", outputs=True, commands=True)
    return build_report(record)


def _printed(report: Report, width: int) -> str:
    buffer = io.StringIO()
    render_document(run_document(report), Console(file=buffer, width=width, color_system=None))
    return buffer.getvalue()


@pytest.mark.parametrize("width", [40, 200])
def test_the_terminal_keeps_to_its_width(report: Report, width: int) -> None:
    assert max(map(len, _printed(report, width).splitlines())) <= width


def test_a_forwarding_figure_is_printed_whole_at_120_columns(report: Report) -> None:
    # Both directions' twelve figures do not fit in 120 columns: squeezed into one
    # table, they would wrap; a direction a table, each is whole on its line.
    printed = _printed(report, 120)
    (forwarding,) = (part for part in run_document(report).parts if part.key == "forwarding")
    figures = {line for t in forwarding.tables for r in t.rows for c in r.cells for line in c}
    assert {figure for figure in figures if figure not in printed} == set()
