"""The forwarding-rate section of the HTML page: each table as markup, and per cell a
chart of every search trial's loss against its offered load, drawn by
assets/forwarding.js from the JSON block #ws-forwarding.

A run of 7 frame sizes x 2 directions x 3 repetitions has some 1,500 trials: each is
three numbers (offered load to 0.1 frame/s, loss ratio to 4 significant digits,
full-length or not), so the page stays a few hundred kB; the JSON report has the rest.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from wirespeed.report import forwarding_text
from wirespeed.report.content import Report
from wirespeed.report.forwarding import ForwardingCell, ForwardingTable

LEAD = (
    "Per frame size and direction, the highest load the device forwarded within each "
    "goal's loss. Each chart shows every trial of the cell's searches: its loss against "
    "the load the generator offered, both on log scales (loads span from the device's "
    "limit to the link's, losses from one frame in a million to all), zero loss on its "
    "own line at the foot; filled: full-length trials, which decide the bounds; hollow: "
    "the short ones that find them. Solid lines: each repetition's bound (the figure), "
    "dotted: the load above it that lost too much; dashed: the link's frame-rate ceiling "
    "and the generator's."
)


def _e(text: object) -> str:
    return escape(str(text), quote=True)


def _loss(ratio: float) -> float:
    return float(f"{ratio:.4g}")


def _cell_data(table: ForwardingTable, cell: ForwardingCell) -> dict[str, Any]:
    finals = [goal.final_duration for goal in table.goal_specs]
    full = min(finals) if finals else None
    ceilings = [run.log.ceiling_pps for run in cell.searches if run.log.ceiling_pps]
    generators = [
        run.log.result.generator_ceiling
        for run in cell.searches
        if run.log.result.generator_ceiling is not None
    ]
    return {
        "frame": cell.frame,
        "direction": cell.direction,
        "title": _title(cell.frame, cell.direction),
        "ceiling": round(max(ceilings), 1) if ceilings else None,
        "generator": round(max(generators), 1) if generators else None,
        "goals": [[goal.name, goal.loss_ratio] for goal in table.goal_specs],
        "reps": [
            {
                "rep": run.repetition,
                "bounds": [
                    [
                        result.goal.name,
                        None if result.lower is None else round(result.lower, 1),
                        None if result.upper is None else round(result.upper, 1),
                    ]
                    for result in run.log.result.goals
                ],
                # offered frames/s, loss ratio, 1 for a full-length trial
                "t": [
                    [
                        round(trial.offered, 1),
                        _loss(trial.loss_ratio),
                        int(full is not None and trial.duration >= full - 1e-9),
                    ]
                    for trial in run.log.result.trials
                ],
            }
            for run in cell.searches
        ],
    }


def forwarding_data(report: Report) -> list[dict[str, Any]]:
    """Per table the cells the charts draw: those whose searches' logs were loaded."""
    return [
        {
            "table": index,
            "cells": [
                _cell_data(table, cell)
                for row in table.rows
                for cell in row.cells
                if cell is not None and cell.searches
            ],
        }
        for index, table in enumerate(report.forwarding)
    ]


def forwarding_section(tables: Sequence[str]) -> str:
    """The section: each table's markup (its title, table and legend) with the place
    assets/forwarding.js draws its cells' charts in; "" without tables."""
    if not tables:
        return ""
    parts = "".join(
        f'<div class="fwd-table" id="forwarding-{index}">{markup}'
        f'<div class="fwd-charts" id="forwarding-charts-{index}"></div></div>'
        for index, markup in enumerate(tables)
    )
    return (
        '<section class="card" id="forwarding"><h2>Forwarding rate</h2>'
        f'<p class="lead">{_e(LEAD)}</p>{parts}</section>'
    )


def _title(frame: int, direction: str) -> str:
    """ "64 B ↑ up", or "64 B in" where the direction has no arrow (in, out)."""
    arrow = forwarding_text.direction_text(direction)
    return f"{frame} B {direction}" if arrow == direction else f"{frame} B {arrow} {direction}"
