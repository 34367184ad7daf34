"""A comparison as versioned JSON and as tidy CSV (one row per compared cell).

The JSON format is documented in docs/json-format.md ("wirespeed-compare"). Readers
check "format" and "version"; a change that could break a reader raises the version, an
added key does not.

Version history:
  1  first version: by, a, b, method, cells with both sides' statistics, the ratio with
     its interval, the permutation test and the verdict. Added since: the test's
     "method" (and the CSV's test_method), since large groups are tested with Welch's
     t-test; method "welch_from_repetitions".
"""

from __future__ import annotations

from typing import Any

from wirespeed.analysis.compare import ComparedCell, Comparison, SideInfo
from wirespeed.analysis.stats import (
    CONFIDENCE,
    EXACT_PERMUTATION_LIMIT,
    LARGE_GROUP,
    RANDOM_PERMUTATIONS,
    RESAMPLES,
    SEED,
)
from wirespeed.report import json_text
from wirespeed.report.budgets import Budget
from wirespeed.report.csv_export import tidy_csv
from wirespeed.report.json_export import (
    interval_to_dict,
    measured_summary_to_dict,
    summary_to_dict,
)

FORMAT = "wirespeed-compare"
VERSION = 1

CSV_COLUMNS = (
    "by",
    "a",
    "b",
    "a_run_id",
    "b_run_id",
    "test_id",
    "test_name",
    "path",
    "variant",
    "flow",
    "a_n",
    "a_median_bps",
    "a_ci_low_bps",
    "a_ci_high_bps",
    "a_cv",
    "b_n",
    "b_median_bps",
    "b_ci_low_bps",
    "b_ci_high_bps",
    "b_cv",
    "ratio",
    "ratio_ci_low",
    "ratio_ci_high",
    "test_method",
    "p_value",
    "exact",
    "verdict",
)

MEASURE_COLUMNS = (
    "measurement",
    "unit",
    "better",
    "a_median",
    "a_ci_low",
    "a_ci_high",
    "b_median",
    "b_ci_low",
    "b_ci_high",
)


def _side(side: SideInfo) -> dict[str, Any]:
    return {
        "label": side.label,
        "run_id": side.run_id,
        "run_title": side.run_title,
        "started_at": side.started_at,
        "path": side.path,
        "variant": side.variant,
    }


def _as(budgets: tuple[Budget, ...], cell: ComparedCell) -> dict[str, Any]:
    """`--as`: each side's median in each budget's unit; no keys at all without it."""
    if not budgets:
        return {}
    return {
        f"{side}_as": None
        if summary is None
        else {b.name: b.value(summary.median) for b in budgets}
        for side, summary in (("a", cell.a), ("b", cell.b))
    }


def _cell(cell: ComparedCell, budgets: tuple[Budget, ...] = ()) -> dict[str, Any]:
    found = _goodput_cell(cell, budgets)
    measure = cell.measure
    if measure is None:
        return found
    # A latency figure: its values in its own unit, so without the _bps of goodput's keys.
    test = found["test"]
    return found | {
        "measurement": {
            "name": measure.name,
            "labels": dict(measure.labels),
            "unit": measure.unit,
            "better": measure.better.value,
        },
        "a": measured_summary_to_dict(cell.a, cell.a_trials),
        "b": measured_summary_to_dict(cell.b, cell.b_trials),
        "test": None if test is None else {k.removesuffix("_bps"): v for k, v in test.items()},
    }


def _goodput_cell(cell: ComparedCell, budgets: tuple[Budget, ...] = ()) -> dict[str, Any]:
    test = cell.test
    return {
        "test_id": cell.test_id,
        "test_name": cell.test_name,
        "path": cell.path,
        "variant": cell.variant,
        "flow": cell.flow.value,
        "a": summary_to_dict(cell.a, cell.a_trials),
        "b": summary_to_dict(cell.b, cell.b_trials),
        "a_trials": list(cell.a_trials),
        "b_trials": list(cell.b_trials),
        "ratio": cell.ratio,
        "ratio_interval": interval_to_dict(cell.ratio_interval),
        "test": None
        if test is None
        else {
            "method": test.method,
            "p_value": test.p_value,
            "observed_difference_bps": test.observed_difference,
            "exact": test.exact,
            "permutations": test.permutations,
            "smallest_p_value": test.smallest_p_value,
        },
        "verdict": cell.verdict.value,
        **_as(budgets, cell),
    }


def comparison_to_dict(comparison: Comparison, budgets: tuple[Budget, ...] = ()) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "by": comparison.by.value,
        "a": _side(comparison.a),
        "b": _side(comparison.b),
        "method": {
            "figure": "median goodput over repetitions, bit/s",
            "ratio": "median(B) / median(A)",
            "interval": "bootstrap percentile",
            "confidence": CONFIDENCE,
            "resamples": RESAMPLES,
            "seed": SEED,
            "test": "two-sided permutation test on the difference of means; Welch's "
            "t-test when both sides have welch_from_repetitions or more and the splits "
            "are too many to enumerate",
            "exact_up_to_splits": EXACT_PERMUTATION_LIMIT,
            "random_permutations": RANDOM_PERMUTATIONS,
            "welch_from_repetitions": LARGE_GROUP,
            "large_groups": "with welch_from_repetitions or more a side, each resample's "
            "median for the ratio is drawn from its exact bootstrap distribution",
            "alpha": comparison.alpha,
            "significant_when": "p < alpha and the ratio's interval excludes 1",
        },
        "cells": [_cell(c, budgets) for c in comparison.cells],
    }


def render_compare_json(comparison: Comparison, budgets: tuple[Budget, ...] = ()) -> str:
    """The comparison's JSON, written by orjson as json.dumps(indent=2, allow_nan=False)
    writes it (json_text): NaN is not JSON, and no figure of ours should ever be one."""
    return json_text.indented(comparison_to_dict(comparison, budgets))


def _csv_row(
    comparison: Comparison, cell: ComparedCell, budgets: tuple[Budget, ...] = ()
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "by": comparison.by.value,
        "a": comparison.a.label,
        "b": comparison.b.label,
        "a_run_id": comparison.a.run_id,
        "b_run_id": comparison.b.run_id,
        "test_id": cell.test_id,
        "test_name": cell.test_name,
        "path": cell.path,
        "variant": cell.variant,
        "flow": cell.flow.value,
        "ratio": cell.ratio,
        "verdict": cell.verdict.value,
    }
    # A latency figure's values go to the columns without _bps, with its unit beside.
    suffix = "_bps" if cell.measure is None else ""
    if cell.measure is not None:
        row |= {
            "measurement": cell.measure.item,
            "unit": cell.measure.unit,
            "better": cell.measure.better.value,
        }
    for prefix, summary in (("a", cell.a), ("b", cell.b)):
        if summary is None:
            continue
        interval = summary.interval
        row |= {
            f"{prefix}_n": summary.n,
            f"{prefix}_median{suffix}": summary.median,
            f"{prefix}_ci_low{suffix}": None if interval is None else interval.low,
            f"{prefix}_ci_high{suffix}": None if interval is None else interval.high,
            f"{prefix}_cv": summary.cv,
        }
        row |= {f"{prefix} as {b.name}": b.value(summary.median) for b in budgets}
    if cell.ratio_interval is not None:
        row |= {"ratio_ci_low": cell.ratio_interval.low, "ratio_ci_high": cell.ratio_interval.high}
    if cell.test is not None:
        row |= {
            "test_method": cell.test.method,
            "p_value": cell.test.p_value,
            "exact": "yes" if cell.test.exact else "no",
        }
    return row


def render_compare_csv(comparison: Comparison, budgets: tuple[Budget, ...] = ()) -> str:
    # `--as`: after every other column, A's then B's.
    extra = [f"{side} as {b.name}" for side in ("a", "b") for b in budgets]
    # Latency figures' columns, only where a probed test was compared (after the others,
    # so that readers by position keep working).
    measured = MEASURE_COLUMNS if any(c.measure for c in comparison.cells) else ()
    rows = (_csv_row(comparison, cell, budgets) for cell in comparison.cells)
    return tidy_csv((*CSV_COLUMNS, *measured, *extra), rows)
