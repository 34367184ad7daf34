"""A comparison (`wirespeed compare`: runs, a run's paths or variants, soaks) as a result
document (report/document.py): its columns and notes under the title, then its table of
measurements, each cell its median and its change against the first column's."""

from __future__ import annotations

from wirespeed.analysis.compare_many import ManyComparison
from wirespeed.report.budgets import Budget
from wirespeed.report.document import Document, Part, SectionTable, TableRow
from wirespeed.report.many_text import LEGEND, cell_lines, row_label


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
