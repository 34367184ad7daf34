"""A comparison as `wirespeed compare` writes it: built once as its document
(report/many_document.py), then written by each format's exporter."""

from __future__ import annotations

import io

from rich.console import Console

from wirespeed.analysis.compare_many import ManyComparison
from wirespeed.report.budgets import Budget
from wirespeed.report.csv_export import render_document_csv
from wirespeed.report.html import render_document_html
from wirespeed.report.json_export import render_document_json
from wirespeed.report.many_document import comparison_document
from wirespeed.report.markdown import render_document_markdown
from wirespeed.report.terminal import render_document


def compare_markdown(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    return render_document_markdown(comparison_document(comparison, budgets))


def compare_html(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    return render_document_html(comparison_document(comparison, budgets))


def compare_json(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    return render_document_json(comparison_document(comparison, budgets))


def compare_csv(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    return render_document_csv(comparison_document(comparison, budgets))


def compare_terminal(
    comparison: ManyComparison, budgets: tuple[Budget, ...] = (), width: int = 200
) -> str:
    """Without colours, at `width` columns."""
    out = io.StringIO()
    console = Console(file=out, width=width, color_system=None, legacy_windows=False)
    render_document(comparison_document(comparison, budgets), console)
    return out.getvalue()
