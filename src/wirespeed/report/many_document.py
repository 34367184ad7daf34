"""A comparison (`wirespeed compare`: runs, a run's paths or variants, soaks) as a result
document (report/document.py): its columns and notes under the title, then its table of
measurements, each cell its median and its change against the first column's; its data
the comparison's JSON and CSV (report/compare_many_render.py). Every format writes it:
the terminal, Markdown and HTML its words, JSON and CSV its data."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from wirespeed.analysis.compare_many import ManyCell, ManyComparison, ManyRow, Verdict
from wirespeed.model import Better
from wirespeed.report.budgets import Budget
from wirespeed.report.compare_many_render import render_many_csv, render_many_json
from wirespeed.report.document import (
    Document,
    DocumentData,
    Part,
    SectionTable,
    TableRow,
    Tone,
)
from wirespeed.report.many_text import LEGEND, cell_lines, row_label


def comparison_rows(
    rows: Iterable[ManyRow], budgets: tuple[Budget, ...] = ()
) -> tuple[TableRow, ...]:
    """Each row's label, then its cells' lines: its median and change per column."""
    return tuple(
        TableRow(row_label(row), tuple(tuple(cell_lines(row, cell, budgets)) for cell in row.cells))
        for row in rows
    )


def cell_tone(row: ManyRow, cell: ManyCell | None) -> Tone | None:
    """Whether the cell's figure is better or worse than the first column's, by its
    test's verdict; None in the first column and where no test was possible."""
    first = row.cells[0]
    if cell is None or first is None or cell is first:
        return None
    if cell.verdict is Verdict.NOT_SIGNIFICANT:
        return Tone.SAME
    if cell.verdict is not Verdict.SIGNIFICANT or cell.summary.median == first.summary.median:
        return None
    higher = cell.summary.median > first.summary.median
    return Tone.BETTER if higher == (row.better is Better.HIGHER) else Tone.WORSE


def comparison_headings(comparison: ManyComparison) -> tuple[str, ...]:
    return ("Measurement", *(comparison.heading(column) for column in comparison.columns))


def comparison_document(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> Document:
    """The comparison in words and, as its data, its figures; `budgets` (`--as`) say each
    goodput again as the applications' needs, in both."""
    columns = tuple(
        column.label + (f" \N{EM DASH} {column.title}" if column.title else "")
        for column in comparison.columns
    )
    rows = tuple(
        dataclasses.replace(shown, tones=tuple(cell_tone(row, cell) for cell in row.cells))
        for shown, row in zip(
            comparison_rows(comparison.rows, budgets), comparison.rows, strict=True
        )
    )
    table = SectionTable("", comparison_headings(comparison), rows, (comparison.legend or LEGEND,))
    # Its key the page's element id: `#compare-runs` (or `-soaks`), as a script finds it.
    part = Part(f"compare-{comparison.noun}s", "Measurements", tables=(table,))
    data = DocumentData(
        json=lambda: render_many_json(comparison, budgets),
        csv=lambda: render_many_csv(comparison, budgets),
    )
    return Document(
        "comparison", comparison.title_text(), (*columns, *comparison.notes), (part,), data
    )
