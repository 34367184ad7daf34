"""A result document (report/document.py) as the text of an output format, as `--format`
and `-o FILE` write it: the terminal's as plain text, without colour; JSON and CSV its
data where it has them. Imported only when a command writes a document."""

from __future__ import annotations

from collections.abc import Callable

from wirespeed.cli.env import plain_text
from wirespeed.report.csv_export import render_document_csv
from wirespeed.report.document import Document
from wirespeed.report.html import render_document_html
from wirespeed.report.json_export import render_document_json
from wirespeed.report.markdown import render_document_markdown
from wirespeed.report.terminal import render_document

# The writer of each format but the terminal's, which prints to a console.
_WRITERS: dict[str, Callable[[Document], str]] = dict(
    markdown=render_document_markdown,
    html=render_document_html,
    json=render_document_json,
    csv=render_document_csv,
)


def document_text(fmt: str, document: Document) -> str:
    if fmt == "terminal":
        return plain_text(lambda console: render_document(document, console))
    return _WRITERS[fmt](document)
