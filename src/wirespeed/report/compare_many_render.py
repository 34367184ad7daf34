"""A comparison's figures in full for a script (`wirespeed compare`: runs, one run's
paths or variants, soaks): its JSON (`wirespeed-compare-runs`, `wirespeed-compare-soaks`,
docs/json-format.md) and its tidy CSV. A comparison's document (report/many_document.py)
carries them as its data; its words (terminal, Markdown, HTML) are the document's.

Rows are measurements, columns runs; each cell its median and, from the second column on,
its ratio to the first's with the test's verdict.
"""

from __future__ import annotations

from typing import Any

from wirespeed.analysis.compare_many import ManyCell, ManyComparison
from wirespeed.report import json_text
from wirespeed.report.budgets import Budget
from wirespeed.report.csv_text import tidy_csv
from wirespeed.report.json_values import (
    interval_to_dict,
    measured_summary_to_dict,
    measurement_to_dict,
)
from wirespeed.report.many_text import LEGEND, percent_text, said_as

# LEGEND and percent_text: said by the card's tuned part, which takes them from here.
__all__ = [
    "FORMAT",
    "LEGEND",
    "VERSION",
    "many_to_dict",
    "percent_text",
    "render_many_csv",
    "render_many_json",
]

FORMAT = "wirespeed-compare-runs"
VERSION = 1


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
