"""The statistics and the verdicts of the reports' JSON as JSON values: a summary of
repetitions, its confidence interval, a judgement of the plan's `expect:`. The run's
report, a comparison, a trend and a soak write them alike (docs/json-format.md).
"""

from __future__ import annotations

from typing import Any, Protocol

from wirespeed.analysis.expectations import Judgement, Verdict
from wirespeed.analysis.stats import ConfidenceInterval, Summary
from wirespeed.model import Better, LinkModel
from wirespeed.record_fields import fields, fields_or_none
from wirespeed.report.content import Report

# The figures of an interval estimate every format of ours writes, before how it was made.
INTERVAL_FIGURES = ("statistic", "low", "high", "confidence")


def link_to_dict(link: LinkModel | None) -> dict[str, Any] | None:
    """A link as the reports' JSON says it: its name, rate and MTU."""
    return fields_or_none(link, ("name", "rate_bps", "mtu"))


class MeasurementRow(Protocol):
    """A row of one measurement (a run's benchmarks table, a comparison's rows)."""

    @property
    def name(self) -> str: ...
    @property
    def labels(self) -> tuple[tuple[str, str], ...]: ...
    @property
    def item(self) -> str: ...
    @property
    def unit(self) -> str: ...
    @property
    def better(self) -> Better: ...


def measurement_to_dict(row: MeasurementRow) -> dict[str, Any]:
    """What a row measures: its name, labels, the two said as one item, unit and which
    way is better."""
    return {
        "name": row.name,
        "labels": dict(row.labels),
        "item": row.item,
        "unit": row.unit,
        "better": row.better.value,
    }


def interval_to_dict(interval: ConfidenceInterval | None) -> dict[str, Any] | None:
    if interval is None:
        return None
    return {
        **fields(interval, INTERVAL_FIGURES),
        # An exact interval (the median's) was computed from the whole bootstrap
        # distribution: no resamples, no seed.
        "method": "bootstrap percentile"
        if interval.resamples is not None
        else "exact bootstrap percentile",
        "resamples": interval.resamples,
        "seed": interval.seed,
    }


def measured_summary_to_dict(
    summary: Summary | None, trials: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    """summary_to_dict of a measurement: its figures in the measurement's own unit, so
    without the _bps of goodput's keys."""
    found = summary_to_dict(summary, trials)
    if found is None:
        return None
    return {key.removesuffix("_bps"): value for key, value in found.items()}


def summary_to_dict(summary: Summary | None, trials: tuple[str, ...] = ()) -> dict[str, Any] | None:
    """A group of repetitions' statistics; `outliers` by trial key when keys are given."""
    if summary is None:
        return None
    outliers: list[Any] = (
        [trials[i] for i in summary.outliers] if trials else list(summary.outliers)
    )
    return {
        "n": summary.n,
        "median_bps": summary.median,
        "mean_bps": summary.mean,
        "stdev_bps": summary.stdev,
        "cv": summary.cv,
        "min_bps": summary.minimum,
        "max_bps": summary.maximum,
        "interval": interval_to_dict(summary.interval),
        "outliers": outliers,
        "stability": summary.stability.value,
    }


def judgement_to_dict(judgement: Judgement) -> dict[str, Any]:
    expectation = judgement.expectation
    flow = judgement.flow
    return {
        "measurement": expectation.name,
        "flow": None if flow is None else flow.value,
        "labels": dict(judgement.labels),
        "unit": expectation.unit,
        "comparison": expectation.comparison.value,
        "expected": expectation.value,
        "written": expectation.written,
        "measured": judgement.measured,
        "n": judgement.n,
        "verdict": judgement.verdict.value,
    }


def expectations_summary(report: Report) -> dict[str, Any]:
    """The run's verdict on its plan's `expect:` and how many were met, not met or not
    measured (the report's `expectations`, and `run --json`'s)."""
    verdicts = [j.verdict for j in report.judgements]
    verdict = report.verdict
    return {
        "verdict": None if verdict is None else verdict.value,
        **{v.value.replace(" ", "_"): verdicts.count(v) for v in Verdict},
    }
