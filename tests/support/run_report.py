"""A run's report as `wirespeed report` prints it: its document (report/run_document.py)
through the terminal's and the Markdown's document exporters."""

from __future__ import annotations

from rich.console import Console

from wirespeed.report.content import Report
from wirespeed.report.markdown import render_document_markdown
from wirespeed.report.run_document import run_document
from wirespeed.report.terminal import render_document


def render_terminal(report: Report, console: Console) -> None:
    render_document(run_document(report), console)


def render_markdown(report: Report) -> str:
    return render_document_markdown(run_document(report))
