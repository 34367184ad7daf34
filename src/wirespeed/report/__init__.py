"""Reports of a stored run: one model (build_report), rendered to terminal, Markdown,
CSV and JSON; and comparisons (analysis.compare) rendered to the same four."""

from wirespeed.report.compare_export import render_compare_csv, render_compare_json
from wirespeed.report.compare_render import render_compare_markdown, render_compare_terminal
from wirespeed.report.csv_export import render_csv
from wirespeed.report.json_export import render_json
from wirespeed.report.markdown import render_markdown
from wirespeed.report.model import Report, build_report
from wirespeed.report.terminal import render_runs, render_terminal

__all__ = [
    "Report",
    "build_report",
    "render_compare_csv",
    "render_compare_json",
    "render_compare_markdown",
    "render_compare_terminal",
    "render_csv",
    "render_json",
    "render_markdown",
    "render_runs",
    "render_terminal",
]
