"""Reports of a stored run: one model (build_report), one ordered list of sections
(report/sections.py) rendered to terminal, Markdown, HTML and JSON; CSV a flat export of
the trials. A comparison (analysis.compare_many) is a result document, built by
report.many_document."""

from wirespeed.report.markdown import render_markdown
from wirespeed.report.model import Report, build_report
from wirespeed.report.run_csv import render_csv
from wirespeed.report.run_json import render_json
from wirespeed.report.terminal import render_runs, render_terminal

__all__ = [
    "Report",
    "build_report",
    "render_csv",
    "render_json",
    "render_markdown",
    "render_runs",
    "render_terminal",
]
