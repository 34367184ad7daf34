"""Reports of a stored run: one model (build_report), one ordered list of sections
(report/sections.py), made a result document (report/run_document.py) that each format's
exporter writes; the run's JSON and CSV (run_json, run_csv) are its data, and its HTML
page (report/html.py render_html) draws the device's charts too. A comparison
(analysis.compare_many) is a result document, built by report.many_document."""

from wirespeed.report.model import Report, build_report
from wirespeed.report.run_csv import render_csv
from wirespeed.report.run_json import render_json
from wirespeed.report.terminal import render_runs

__all__ = [
    "Report",
    "build_report",
    "render_csv",
    "render_json",
    "render_runs",
]
