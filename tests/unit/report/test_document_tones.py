"""A table cell's tone (report/document.py Tone): the terminal colours the cell, the HTML
gives it the class (styled only on a page that has one); a document without tones is
written as before."""

from __future__ import annotations

import io

from rich.console import Console

from wirespeed.report.document import Document, Part, SectionTable, TableRow, Tone
from wirespeed.report.html import TONE_CSS, render_document_html
from wirespeed.report.terminal import render_document


def _document(*tones: Tone | None) -> Document:
    cells = tuple((f"{n} MB/s",) for n in range(1, len(tones) + 2))
    table = SectionTable(
        "", ("What", *(f"c{n}" for n in range(len(cells)))), (TableRow("x", cells, tones),)
    )
    return Document("comparison", "t", (), (Part("p", "P", tables=(table,)),))


def _terminal(document: Document) -> str:
    out = io.StringIO()
    render_document(
        document, Console(file=out, width=80, force_terminal=True, color_system="standard")
    )
    return out.getvalue()


def test_a_toned_cell_is_coloured_and_classed() -> None:
    document = _document(None, Tone.BETTER, Tone.WORSE, Tone.SAME)
    text = _terminal(document)
    assert "\x1b[32m2 MB/s\x1b[0m" in text and "\x1b[31m3 MB/s\x1b[0m" in text
    assert "\x1b[2m4 MB/s\x1b[0m" in text and "\x1b[" not in text.split("1 MB/s")[0][-6:]
    page = render_document_html(document)
    assert TONE_CSS in page
    for shown in ('"num">1 MB/s', '"num better">2 MB/s', '"num worse">3 MB/s', '"num same">4 MB/s'):
        assert f"<td class={shown}</td>" in page, shown


def test_a_document_without_tones_is_written_as_before() -> None:
    document = _document()
    page = render_document_html(document)
    assert TONE_CSS not in page and '<td class="num">1 MB/s</td>' in page
    assert "\x1b[31m" not in _terminal(document) and "\x1b[2m1 MB/s" not in _terminal(document)
