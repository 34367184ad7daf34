"""The run's report as the command line prints it (its document, report/run_document.py,
through the document exporters) says everything the report's own renderers say: every
line of the terminal's, every word of the Markdown's, on every captured run; only the
layout differs."""

from __future__ import annotations

import io
import lzma
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from wirespeed.report import build_report, render_markdown, render_terminal
from wirespeed.report.content import Report
from wirespeed.report.markdown import render_document_markdown
from wirespeed.report.run_document import run_document
from wirespeed.report.terminal import render_document
from wirespeed.store import Store

FIXTURES = Path(__file__).parents[2] / "fixtures"
RUNS = [("cards/runs.db.xz", 1), ("cards/runs.db.xz", 2), ("cards/tuned.db.xz", 1)]
RUNS += [("reports/runs.db.xz", 1), ("reports/runs.db.xz", 2)]

# Rules and corners of a table's box: layout, not words.
_RULES = re.compile(r"[\u2500-\u257f]+")
# The Markdown's host table's column names: the document says a host on one line.
HOST_TABLE_HEADINGS = {"host", "role", "os", "kernel", "tools"}


@pytest.fixture(scope="module", params=RUNS, ids=[f"{db}-{run}" for db, run in RUNS])
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Report:
    name, run = request.param
    db = tmp_path_factory.mktemp("says-all") / "runs.db"
    db.write_bytes(lzma.decompress((FIXTURES / name).read_bytes()))
    with Store.open(str(db), read_only=True) as store:
        record = store.load_run(run, intervals="packed", outputs=True, commands=True)
    return build_report(record)


def _printed(render: object, width: int = 2000) -> str:
    buffer = io.StringIO()
    render(Console(file=buffer, width=width, color_system=None))  # type: ignore[operator]
    return buffer.getvalue()


def _lines(text: str) -> Iterator[str]:
    """Each line's words, without the box around them and the space between them (a
    table's legend is wrapped at the table's own width, which differs)."""
    for line in text.splitlines():
        words = "".join(_RULES.sub("", line).split())
        if words:
            yield words


def _words(markdown: str) -> set[str]:
    """The Markdown's words, without its markup: escapes, code spans, table pipes."""
    for markup, plain in (("<br>", " "), ("&#96;", ""), ("\\", ""), ("`", ""), ("|", " ")):
        markdown = markdown.replace(markup, plain)
    return {w.strip(",.;:()").lower() for w in markdown.split()} - {"", "---", "--:"}


def test_the_terminal_says_every_line_the_report_said(report: Report) -> None:
    said = _printed(lambda console: render_terminal(report, console))
    printed = "".join(_lines(_printed(lambda c: render_document(run_document(report), c))))
    missing = [line for line in _lines(said) if line not in printed]
    assert missing == []


def test_at_200_columns_the_terminal_says_every_word_the_report_said(report: Report) -> None:
    # A forwarding table of both directions is printed one direction a table where it
    # is too wide, each figure whole, as the report's own renderer printed it.
    said = _printed(lambda console: render_terminal(report, console), 200)
    printed = _printed(lambda console: render_document(run_document(report), console), 200)
    assert _words(_RULES.sub(" ", said)) - _words(_RULES.sub(" ", printed)) == set()


def test_the_markdown_says_every_word_the_report_said(report: Report) -> None:
    said = _words(render_markdown(report)) - HOST_TABLE_HEADINGS
    assert said - _words(render_document_markdown(run_document(report))) == set()


@pytest.mark.parametrize("width", [40, 200])
def test_the_terminal_keeps_to_its_width(report: Report, width: int) -> None:
    text = _printed(lambda console: render_document(run_document(report), console), width)
    assert max(map(len, text.splitlines())) <= width


def test_a_lost_note_is_found(report: Report) -> None:
    # The check fails where the document leaves a line out: here the notes.
    document = run_document(report)
    without = document.__class__(
        document.kind,
        document.title,
        document.lines,
        tuple(part for part in document.parts if part.key != "notes"),
    )
    said = _printed(lambda console: render_terminal(report, console))
    printed = "".join(_lines(_printed(lambda c: render_document(without, c))))
    assert [line for line in _lines(said) if line not in printed]


@pytest.mark.parametrize("width", [120, 200])
def test_a_forwarding_figure_is_printed_whole_where_the_report_printed_it_whole(
    report: Report, width: int
) -> None:
    # A table of both directions too wide for the terminal is printed a direction a
    # table, not squeezed until its figures wrap.
    said = _printed(lambda console: render_terminal(report, console), width)
    document = run_document(report)
    printed = _printed(lambda console: render_document(document, console), width)
    (forwarding,) = (part for part in document.parts if part.key == "forwarding")
    figures = {line for t in forwarding.tables for r in t.rows for c in r.cells for line in c}
    whole = {figure for figure in figures if figure in said}
    assert {figure for figure in whole if figure not in printed} == set()
