"""The report's sections in the JSON report (docs/json-format.md): the traffic table,
the benchmarks' table, the notes with the run's verdict on its plan's `expect:`. Each is a
dict of top-level keys; run_json puts them in the order of format 2.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from wirespeed.report.budgets import Budget
from wirespeed.report.content import Cell, Report
from wirespeed.report.json_values import (
    expectations_summary,
    judgement_to_dict,
    link_to_dict,
    measured_summary_to_dict,
    measurement_to_dict,
    summary_to_dict,
)


def measured_part(report: Report) -> dict[str, Any]:
    """The benchmarks' table: rows of measurements, a cell per place with its summary;
    only in a run with any (docs/json-format.md): a traffic run's JSON is as it was."""
    if not report.measured:
        return {}
    return {
        "measured_columns": [
            {"label": p.label, "path": p.path, "variant": p.variant}
            for p in report.measured_columns
        ],
        "measured": [
            {
                "test_id": row.test_id,
                "test_name": row.test_name,
                "tool": str(row.tool),
                **measurement_to_dict(row),
                "cells": [
                    None
                    if cell is None
                    else {
                        "label": place.label,
                        "n": cell.n,
                        "trials_failed": cell.trials_failed,
                        "values": list(cell.values),
                        "summary": measured_summary_to_dict(cell.summary, cell.trials),
                        "notes": list(cell.notes),
                    }
                    for place, cell in zip(report.measured_columns, row.cells, strict=True)
                ],
            }
            for row in report.measured
        ],
    }


def _measured_expectations(report: Report) -> dict[str, Any]:
    """The benchmarks' and searches' judgements, which have no table cell; only in a run
    whose plan expects anything of them."""
    if not report.measured_judgements:
        return {}
    return {
        "measured_expectations": [
            {"place": j.place, **judgement_to_dict(j)} for j in report.measured_judgements
        ]
    }


def _as(budgets: tuple[Budget, ...], goodput_bps: float | None) -> dict[str, Any]:
    """`--as`: the flow's median in each budget's unit; no key at all without it."""
    if not budgets:
        return {}
    return {"as": {b.name: None if goodput_bps is None else b.value(goodput_bps) for b in budgets}}


def _cell(label: str, cell: Cell | None, budgets: tuple[Budget, ...] = ()) -> dict[str, Any] | None:
    if cell is None:
        return None
    return {
        "column": label,
        "trials_ok": cell.trials_ok,
        "trials_failed": cell.trials_failed,
        "notes": list(cell.notes),
        # The DUT's busiest core over the cell's trials (null: no device samples).
        "device": None if cell.device is None else dataclasses.asdict(cell.device),
        "expectations": [judgement_to_dict(j) for j in cell.judgements],
        "flows": [
            {
                "flow": f.flow.value,
                "goodput_bps": f.goodput_bps,
                "n": f.n,
                "values_bps": list(f.values_bps),
                "loss_percent": f.loss_percent,
                "ceiling_bps": None if f.ceiling is None else f.ceiling.bits_per_second,
                "trials": list(f.trials),
                "statistics": summary_to_dict(f.summary, f.trials),
                **_as(budgets, f.goodput_bps),
            }
            for f in cell.flows
        ],
    }


def traffic_part(report: Report) -> dict[str, Any]:
    """The traffic tests' table: its columns and rows."""
    return {
        "columns": [
            {
                "label": c.label,
                "path": c.path,
                "variant": c.variant,
                "link": link_to_dict(c.link),
            }
            for c in report.columns
        ],
        "table": [
            {
                "test_id": row.test_id,
                "test_name": row.test_name,
                "tool": str(row.tool),
                "protocol": row.protocol.value,
                "direction": row.direction.value,
                "cells": [
                    _cell(column.label, cell, report.budgets)
                    for column, cell in zip(report.columns, row.cells, strict=True)
                ],
            }
            for row in report.rows
        ],
    }


def notes_part(report: Report) -> dict[str, Any]:
    """The notes, the run's verdict on its plan's `expect:`, and the benchmarks' and
    searches' judgements where it has any."""
    return {
        "notes": [
            {
                "number": n.number,
                "kind": n.kind.value,
                "code": n.code,
                "text": n.text,
                "details": list(n.details),
                "trials": list(n.trials),
            }
            for n in report.notes
        ],
        "expectations": expectations_summary(report),
        **_measured_expectations(report),
    }
