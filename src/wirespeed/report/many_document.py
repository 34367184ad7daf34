"""A comparison (`wirespeed compare`: runs, a run's paths or variants, soaks) as a result
document (report/document.py): its columns and notes under the title, then its table of
measurements, each cell its median and its change against the first column's."""

from __future__ import annotations

from collections.abc import Iterable

from wirespeed.analysis.compare_many import ManyComparison, ManyRow
from wirespeed.report.budgets import Budget
from wirespeed.report.document import Document, Part, SectionTable, TableRow
from wirespeed.report.many_text import LEGEND, cell_lines, row_label


def comparison_rows(
    rows: Iterable[ManyRow], budgets: tuple[Budget, ...] = ()
) -> tuple[TableRow, ...]:
    """Each row's label, then its cells' lines: its median and change per column."""
    return tuple(
        TableRow(row_label(row), tuple(tuple(cell_lines(row, cell, budgets)) for cell in row.cells))
        for row in rows
    )


def comparison_headings(comparison: ManyComparison) -> tuple[str, ...]:
    return ("Measurement", *(comparison.heading(column) for column in comparison.columns))


def comparison_document(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> Document:
    columns = tuple(
        column.label + (f" \N{EM DASH} {column.title}" if column.title else "")
        for column in comparison.columns
    )
    rows = tuple(
        TableRow(row_label(row), tuple(tuple(cell_lines(row, cell, budgets)) for cell in row.cells))
        for row in comparison.rows
    )
    headings = ("Measurement", *(comparison.heading(column) for column in comparison.columns))
    table = SectionTable("", headings, rows, (comparison.legend or LEGEND,))
    part = Part("measurements", "Measurements", tables=(table,))
    return Document("comparison", comparison.title_text(), (*columns, *comparison.notes), (part,))
