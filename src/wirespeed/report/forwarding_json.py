"""The forwarding tables in the JSON report (key `forwarding`, docs/json-format.md): each
cell's figures with their statistics, and what its searches' logs hold: the goals'
bounds, every trial (intended, offered, received, loss), the generator's ceiling."""

from __future__ import annotations

from typing import Any

from wirespeed.report.forwarding import ForwardingCell, ForwardingTable, SearchRun
from wirespeed.report.forwarding_text import FRAME_CONVENTION
from wirespeed.report.json_values import link_to_dict, measured_summary_to_dict
from wirespeed.search.log import Counters, InterfaceCounts, SearchLog
from wirespeed.search.model import GoalResult, TrialResult


def _goal(result: GoalResult, log: SearchLog) -> dict[str, Any]:
    goal = result.goal
    return {
        "name": goal.name,
        "loss_ratio": goal.loss_ratio,
        "exceed_ratio": goal.exceed_ratio,
        "final_duration": goal.final_duration,
        "width_goal": goal.width,
        "lower_pps": result.lower,
        "upper_pps": result.upper,
        "conditional_throughput_pps": result.conditional_throughput,
        "generator_limited": result.generator_limited,
        # lower_pps is a lower bound only: the search could go no higher (max_rate, the
        # generator) though the link carries more.
        "at_least": log.at_least(result),
        "converged": result.converged,
    }


def _trial(
    trial: TrialResult, counted: Counters | None, wire: InterfaceCounts | None
) -> dict[str, Any]:
    return {
        "intended_pps": trial.intended,
        "offered_pps": trial.offered,
        "duration": trial.duration,
        "offered_duration": trial.sending_seconds,
        "legs": trial.legs,
        "sent": trial.sent,
        "received": trial.received,
        "forwarding_rate_pps": trial.forwarding_rate,
        "loss_ratio": trial.loss_ratio,
        "generator_limited": trial.generator_limited,
        "udp_counters": None
        if counted is None
        else {"sent": counted.tx, "arrived": counted.rx, "socket_drops": counted.socket_drops},
        "interface_packets": None if wire is None else {"sent": wire.tx, "arrived": wire.rx},
    }


def _search(run: SearchRun) -> dict[str, Any]:
    log, result = run.log, run.log.result
    return {
        "trial": run.trial,
        "repetition": run.repetition,
        "algorithm": result.algorithm,
        "link_rate_bps": log.link_rate_bps,
        "ceiling_pps": log.ceiling_pps,
        "generator_ceiling_pps": result.generator_ceiling,
        "stopped": result.stopped,
        "seconds_of_traffic": result.seconds_of_traffic,
        "goals": [_goal(goal, log) for goal in result.goals],
        "trials": [_trial(trial, counted, wire) for trial, counted, wire in log.trials_counted()],
    }


def _cell(cell: ForwardingCell | None) -> dict[str, Any] | None:
    if cell is None:
        return None
    return {
        "frame": cell.frame,
        "direction": cell.direction,
        "labels": dict(cell.labels),
        "notes": list(cell.notes),
        "measurements": {
            name: {
                "n": figure.n,
                "values": list(figure.values),
                "trials": list(figure.trials),
                "summary": measured_summary_to_dict(figure.summary, figure.trials),
            }
            for name, figure in cell.figures
        },
        "searches": [_search(run) for run in cell.searches],
    }


def _table(table: ForwardingTable) -> dict[str, Any]:
    return {
        "test_id": table.test_id,
        "test_name": table.test_name,
        "label": table.place.label,
        "path": table.place.path,
        "variant": table.place.variant,
        "link": link_to_dict(table.link),
        "goals": list(table.goals),
        "directions": list(table.directions),
        "frame_convention": FRAME_CONVENTION,
        "trials_ok": table.trials_ok,
        "trials_failed": table.trials_failed,
        "notes": list(table.notes),
        "rows": [
            {
                "frame": row.frame,
                "cells": [_cell(cell) for cell in row.cells],
            }
            for row in table.rows
        ],
    }


def forwarding_to_dict(tables: tuple[ForwardingTable, ...]) -> dict[str, Any]:
    """The report's `forwarding` key; nothing at all in a run without searches, whose
    JSON is as it was."""
    if not tables:
        return {}
    return {"forwarding": [_table(table) for table in tables]}
