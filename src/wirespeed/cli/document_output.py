"""A result document (report/document.py) as a command writes it: each format by its
own exporter, the terminal's in colour on a terminal and as plain text in a file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment, plain_text

if TYPE_CHECKING:
    from wirespeed.report.document import Document


def document_text(document: Document, fmt: str) -> str:
    """The document in `fmt`, a format of outputs.py (terminal, markdown, html, json,
    csv); the terminal's as plain text, as it is written to a file."""
    if fmt == "markdown":
        from wirespeed.report.markdown import render_document_markdown

        return render_document_markdown(document)
    if fmt == "html":
        from wirespeed.report.html import render_document_html

        return render_document_html(document)
    if fmt == "json":
        from wirespeed.report.json_export import render_document_json

        return render_document_json(document)
    if fmt == "csv":
        from wirespeed.report.csv_export import render_document_csv

        return render_document_csv(document)
    from wirespeed.report.terminal import render_document

    return plain_text(lambda console: render_document(document, console))


def show_document(document: Document, fmt: str, env: Environment) -> None:
    """The document on stdout: the terminal's on env's console (in colour on a
    terminal), another format's text as it is."""
    if fmt == "terminal":
        from wirespeed.report.terminal import render_document

        render_document(document, env.console())
    else:
        env.stdout.write(document_text(document, fmt))
    env.stdout.flush()
