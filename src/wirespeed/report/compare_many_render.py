"""`wirespeed compare` as a table of runs (or of one run's paths or variants, or of soaks):
terminal, Markdown, CSV, JSON, HTML.

Rows are measurements, columns runs; each cell its median in the measurement's unit and,
from the second column on, its change against the first in % with a mark: * the
repetitions show a difference, ~ they cannot tell it from noise, nothing when a side has
one repetition (no test is possible). The shape of the seeds' kernel and board tables.
"""

from __future__ import annotations

import html
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from wirespeed.analysis.compare_many import ManyCell, ManyComparison
from wirespeed.report import json_text
from wirespeed.report.budgets import Budget
from wirespeed.report.csv_text import tidy_csv
from wirespeed.report.json_values import (
    interval_to_dict,
    measured_summary_to_dict,
    measurement_to_dict,
)
from wirespeed.report.many_text import LEGEND, cell_lines, percent_text, row_label, said_as
from wirespeed.report.static_page import static_page
from wirespeed.report.text import markdown_table_safe, markdown_text, terminal_safe

# Said by the card's tuned part and the site's pages, which take them from here.
__all__ = [
    "FORMAT",
    "LEGEND",
    "VERSION",
    "many_to_dict",
    "percent_text",
    "render_many_csv",
    "render_many_html",
    "render_many_json",
    "render_many_markdown",
    "render_many_terminal",
]

FORMAT = "wirespeed-compare-runs"
VERSION = 1


def render_many_terminal(
    comparison: ManyComparison, console: Console, budgets: tuple[Budget, ...] = ()
) -> None:
    console.print(Text(terminal_safe(comparison.title_text()), style="bold"))
    for column in comparison.columns:
        title = f" \N{EM DASH} {column.title}" if column.title else ""
        console.print(Text(terminal_safe(f"  {column.label}{title}")))
    for note in comparison.notes:
        console.print(Text(terminal_safe(f"  {note}")))
    table = Table(caption=Text(comparison.legend or LEGEND), caption_justify="left")
    table.add_column("Measurement")
    for column in comparison.columns:
        table.add_column(Text(terminal_safe(comparison.heading(column))), justify="right")
    for row in comparison.rows:
        cells = [Text(terminal_safe(row_label(row)))]
        for cell in row.cells:
            # Each line made safe on its own: the line break between them is ours.
            lines = cell_lines(row, cell, budgets)
            cells.append(Text("\n".join(terminal_safe(line) for line in lines)))
        table.add_row(*cells)
    console.print(table)


def render_many_markdown(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    lines = [f"# {markdown_text(comparison.title_text())}", ""]
    for column in comparison.columns:
        title = f" \N{EM DASH} {column.title}" if column.title else ""
        lines.append(f"- {markdown_text(column.label + title)}")
    lines += [f"- {markdown_text(note)}" for note in comparison.notes]
    lines.append("")
    header = ["Measurement", *(markdown_text(comparison.heading(c)) for c in comparison.columns)]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("| " + " | ".join(["---"] + ["--:"] * len(comparison.columns)) + " |")
    for row in comparison.rows:
        cells = [markdown_text(row_label(row))]
        cells += [
            "<br>".join(markdown_table_safe(line) for line in cell_lines(row, cell, budgets))
            for cell in row.cells
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", comparison.legend or LEGEND]
    return "\n".join(lines) + "\n"


def many_to_dict(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> dict[str, Any]:
    noun = comparison.noun
    return {
        "format": f"wirespeed-compare-{noun}s",
        "version": VERSION,
        "alpha": comparison.alpha,
        "columns": [
            {
                f"{noun}_id": c.run_id,
                "title": c.title,
                "started_at": c.started_at,
                "devices": list(c.devices),
                "kernels": list(c.kernels),
                "label": c.label,
                "path": c.path,
                "variant": c.variant,
            }
            for c in comparison.columns
        ],
        "rows": [
            {
                "test_id": row.test_id,
                "test_name": row.test_name,
                "path": row.path,
                "variant": row.variant or None,  # None: the columns are variants
                **measurement_to_dict(row),
                "cells": [
                    _cell_dict(cell, budgets if said_as(row, budgets) else ()) for cell in row.cells
                ],
            }
            for row in comparison.rows
        ],
        # Only where there are any: a table of one store's runs is as it always was.
        **({"notes": list(comparison.notes)} if comparison.notes else {}),
    }


def _cell_dict(cell: ManyCell | None, budgets: tuple[Budget, ...]) -> dict[str, Any] | None:
    if cell is None:
        return None
    # `--as`: the median in each budget's unit; no key at all without it.
    said = {"as": {b.name: b.value(cell.summary.median) for b in budgets}} if budgets else {}
    return {
        "summary": measured_summary_to_dict(cell.summary, cell.trials),
        "trials": list(cell.trials),
        "ratio": cell.ratio,
        "percent": cell.percent,
        "ratio_interval": interval_to_dict(cell.ratio_interval),
        "p_value": None if cell.test is None else cell.test.p_value,
        "verdict": None if cell.verdict is None else cell.verdict.value,
        **said,
        **({"not_comparable": cell.not_comparable} if cell.not_comparable else {}),
    }


def render_many_json(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    """Written by orjson as json.dumps(indent=2, ensure_ascii=False, allow_nan=False)
    writes it (json_text): NaN is not JSON, and no figure of ours should ever be one."""
    return json_text.indented(many_to_dict(comparison, budgets)) + "\n"


CSV_COLUMNS = (
    "test_id",
    "test_name",
    "path",
    "variant",
    "measurement",
    "labels",
    "unit",
    "better",
    "run_id",
    "run_label",
    "n",
    "median",
    "ci_low",
    "ci_high",
    "cv",
    "ratio",
    "percent",
    "ratio_ci_low",
    "ratio_ci_high",
    "p_value",
    "verdict",
)


def render_many_csv(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    """Tidy: one line per measurement and run (or soak: soak_id, soak_label); with `--as`
    a column per budget at the end, filled on goodput's lines."""
    noun = comparison.noun
    rows = []
    for row in comparison.rows:
        for column, cell in zip(comparison.columns, row.cells, strict=True):
            if cell is None:
                continue
            interval = cell.summary.interval
            ratio_interval = cell.ratio_interval
            rows.append(
                {
                    "test_id": row.test_id,
                    "test_name": row.test_name,
                    "path": row.path,
                    "variant": row.variant or None,  # None: the columns are variants
                    "measurement": row.name,
                    "labels": ";".join(f"{k}={v}" for k, v in row.labels),
                    "unit": row.unit,
                    "better": row.better.value,
                    f"{noun}_id": column.run_id,
                    f"{noun}_label": column.label,
                    "n": cell.summary.n,
                    "median": cell.summary.median,
                    "ci_low": None if interval is None else interval.low,
                    "ci_high": None if interval is None else interval.high,
                    "cv": cell.summary.cv,
                    "ratio": cell.ratio,
                    "percent": cell.percent,
                    "ratio_ci_low": None if ratio_interval is None else ratio_interval.low,
                    "ratio_ci_high": None if ratio_interval is None else ratio_interval.high,
                    "p_value": None if cell.test is None else cell.test.p_value,
                    # Without a verdict (across stores, no ratio): why not.
                    "verdict": cell.verdict.value
                    if cell.verdict is not None
                    else f"not comparable: {cell.not_comparable}"
                    if cell.not_comparable
                    else None,
                }
                | {
                    f"as {b.name}": b.value(cell.summary.median)
                    for b in (budgets if said_as(row, budgets) else ())
                }
            )
    names = tuple(name.replace("run_", f"{noun}_", 1) for name in CSV_COLUMNS)
    return tidy_csv((*names, *(f"as {b.name}" for b in budgets)), rows)


def render_many_html(comparison: ManyComparison, budgets: tuple[Budget, ...] = ()) -> str:
    """A page of its own, with no script and nothing fetched: the table and its legend."""

    def e(text: object) -> str:
        return html.escape(str(text), quote=True)

    head = "<tr><th>Measurement</th>" + "".join(
        f'<th class="num">{e(c.label)}</th>' for c in comparison.columns
    )
    body = []
    for row in comparison.rows:
        cells = [f"<td>{e(row_label(row))}</td>"]
        for cell in row.cells:
            lines = cell_lines(row, cell, budgets)
            cells.append('<td class="num">' + "<br>".join(e(line) for line in lines) + "</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    title = comparison.title_text()
    runs = "".join(
        "<li>" + e(c.label) + (f" \N{EM DASH} {e(c.title)}" if c.title else "") + "</li>"
        for c in comparison.columns
    ) + "".join(f"<li>{e(note)}</li>" for note in comparison.notes)
    return static_page(
        title,
        "body{font:14px system-ui,sans-serif;margin:2em;color:#1e293b}"
        "table{border-collapse:collapse}th,td{border-bottom:1px solid #e2e8f0;"
        "padding:.3em .7em;vertical-align:top}.num{text-align:right;"
        "font-variant-numeric:tabular-nums}p{max-width:60em;color:#475569}",
        f"<h1>{e(title)}</h1><ul>{runs}</ul>"
        f'<table id="compare-{comparison.noun}s"><thead>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table>"
        f"<p>{e(comparison.legend or LEGEND)}</p>",
    )
