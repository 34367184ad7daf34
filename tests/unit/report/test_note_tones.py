"""A note's mark says what kind of note it is: a failure's "[n]" in red, any other's in
yellow, in the terminal (as the run report printed it before it became a document) and
on the document's page."""

from __future__ import annotations

import dataclasses
import io
import lzma
from collections.abc import Iterator
from pathlib import Path

import pytest
from rich.console import Console

from wirespeed.report import build_report
from wirespeed.report.content import NoteKind, Report
from wirespeed.report.document import Document, Part, Tone
from wirespeed.report.html import render_document_html
from wirespeed.report.markdown import render_document_markdown
from wirespeed.report.run_document import note_lines, run_document
from wirespeed.report.terminal import render_document
from wirespeed.store import Store

CARDS = Path(__file__).parents[2] / "fixtures" / "cards" / "runs.db.xz"
RED, YELLOW = "\x1b[31m", "\x1b[33m"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Report]:
    db = tmp_path_factory.mktemp("tones") / "runs.db"
    db.write_bytes(lzma.decompress(CARDS.read_bytes()))
    with Store.open(str(db), read_only=True) as store:
        yield build_report(store.load_run(1, intervals="packed", outputs=True, commands=True))


def _coloured(document: Document) -> str:
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, color_system="standard", force_terminal=True)
    render_document(document, console)
    return buffer.getvalue()


def test_a_warning_notes_mark_is_yellow_and_the_single_run_line_plain(report: Report) -> None:
    notes = note_lines(report)
    assert notes.lines[0].startswith("Single run") and notes.tones[0] is None
    assert notes.lines[1].startswith("[1] ") and notes.tones[1] is Tone.CAUTION
    shown = _coloured(run_document(report))
    assert f"{YELLOW}[1]" in shown
    # Only the mark: the note's words follow in the terminal's own colour.
    after = shown[shown.index(f"{YELLOW}[1]") + len(YELLOW) + 3 :]
    assert after.startswith("\x1b[0m")


def test_a_failure_notes_mark_is_red(report: Report) -> None:
    first = dataclasses.replace(report.notes[0], kind=NoteKind.FAILURE)
    failed = dataclasses.replace(report, notes=(first, *report.notes[1:]))
    assert note_lines(failed).tones[1] is Tone.FAILED
    shown = _coloured(run_document(failed))
    assert f"{RED}[1]" in shown and f"{YELLOW}[2]" in shown


def test_the_page_marks_a_toned_line_and_markdown_says_the_words_alone() -> None:
    part = Part("notes", "Notes", ("[1] it failed", "[2] a warning", "a plain line"),
                tones=(Tone.FAILED, Tone.CAUTION))  # fmt: skip
    document = Document("run", "t", (), (part,))
    page = render_document_html(document)
    assert '<li class="line-failed">[1] it failed</li>' in page
    assert '<li class="line-caution">[2] a warning</li>' in page
    assert "<li>a plain line</li>" in page
    assert "li.line-failed::marker" in page  # styled only where a line has a tone
    assert "li.line-failed::marker" not in render_document_html(
        dataclasses.replace(document, parts=(dataclasses.replace(part, tones=()),))
    )
    markdown = render_document_markdown(document)
    assert "- \\[1\\] it failed\n" in markdown and "line-failed" not in markdown
