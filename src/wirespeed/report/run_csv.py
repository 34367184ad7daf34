"""The run's report as tidy CSV: one row per trial and flow, every figure in base units
(the run's document's data, report/run_document.py).

Rates in bit/s, sizes in bytes, times in unix seconds: a spreadsheet or pandas can pivot
it into any table. Empty fields are unknown values, never zeros.

By design it does not render the report's sections (report/sections.py): it is a flat
export of every trial's flows and measurements (a benchmark's, a probe's, a search's, the
board's power, any kind's), one row each, from which every section's table can be
pivoted; a new section needs nothing here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet
from typing import Any

from wirespeed.analysis.stats import Summary
from wirespeed.model import Flow
from wirespeed.report.content import FlowFigure, Report, TrialDetail, flows_of
from wirespeed.report.csv_text import tidy_csv
from wirespeed.report.latency_table import FIGURES as LATENCY_FIGURES
from wirespeed.report.latency_table import trial_latency
from wirespeed.report.measured import MeasuredCell

COLUMNS = (
    "run_id",
    "trial",
    "test_id",
    "test_name",
    "tool",
    "protocol",
    "direction",
    "path",
    "topology",
    "variant",
    "repetition",
    "status",
    "reason",
    "flow",
    "goodput_bps",
    "goodput_source",
    "sent_bytes",
    "sent_seconds",
    "sent_bps",
    "received_bytes",
    "received_seconds",
    "received_bps",
    "retransmits",
    "jitter_ms",
    "lost",
    "packets",
    "loss_percent",
    "out_of_order",
    "streams",
    "ceiling_bps",
    "link",
    "link_rate_bps",
    "mtu",
    "warnings",
    "notes",
    "started_at",
    "finished_at",
    # The statistics of the trial's group (same test, path, variant and flow), repeated on
    # each of its rows so a pivot needs no second table; at the end, so that readers by
    # position keep working.
    "group_n",
    "group_median_bps",
    "group_mean_bps",
    "group_stdev_bps",
    "group_cv",
    "group_ci_low_bps",
    "group_ci_high_bps",
    "group_stability",
    "outlier",
)


def _trial_columns(report: Report, detail: TrialDetail) -> dict[str, Any]:
    """What every row of a trial says of it, a flow's and a measurement's alike (the
    writer puts each in its column, whatever the order here)."""
    outcome = detail.outcome
    trial, result = outcome.trial, outcome.result
    return {
        "run_id": report.run_id,
        "trial": trial.key,
        "test_id": trial.test.id,
        "test_name": trial.test.name,
        "tool": str(trial.test.tool),
        "path": trial.path.name,
        "topology": trial.path.topology.value,
        "variant": trial.variant,
        "repetition": trial.repetition,
        "status": outcome.status.value,
        "reason": outcome.reason,
        "warnings": "" if result is None else ";".join(w.kind.value for w in result.warnings),
        "notes": ";".join(str(n) for n in detail.notes),
        "started_at": outcome.started_at,
        "finished_at": outcome.finished_at,
    }


def _row(report: Report, detail: TrialDetail, flow: Flow) -> dict[str, Any]:
    spec, link = detail.outcome.trial.test.spec, detail.outcome.trial.path.link
    row = _trial_columns(report, detail) | {
        "protocol": spec.protocol.value,
        "direction": spec.direction.value,
        "flow": flow.value,
        "ceiling_bps": None if detail.ceiling is None else detail.ceiling.bits_per_second,
        "link": None if link is None else link.name,
        "link_rate_bps": None if link is None else link.rate_bps,
        "mtu": spec.mtu if spec.mtu is not None else (None if link is None else link.mtu),
    }
    direction = detail.direction(flow)
    if direction is None:
        return row
    source = direction.goodput_source
    row |= {
        "goodput_bps": direction.goodput_bps,
        "goodput_source": None if source is None else source.value,
        "retransmits": direction.retransmits,
        "streams": len(direction.streams),
    }
    for prefix, m in (("sent", direction.sent), ("received", direction.received)):
        if m is not None:
            row |= {
                f"{prefix}_bytes": m.bytes,
                f"{prefix}_seconds": m.seconds,
                f"{prefix}_bps": m.bits_per_second,
            }
    if direction.udp is not None:
        udp = direction.udp
        row |= {
            "jitter_ms": udp.jitter_ms,
            "lost": udp.lost,
            "packets": udp.packets,
            "loss_percent": udp.loss_percent,
            "out_of_order": udp.out_of_order,
        }
    return row


def _group_figures(report: Report) -> dict[tuple[str, str, str, Flow], FlowFigure]:
    """Each cell's flow figure by (test id, path, variant, flow): the trial's group."""
    figures = {}
    for row in report.rows:
        for column, cell in zip(report.columns, row.cells, strict=True):
            for figure in () if cell is None else cell.flows:
                figures[(row.test_id, column.path, column.variant, figure.flow)] = figure
    return figures


def _group_statistics(summary: Summary, outlier: bool, unit: str = "") -> dict[str, Any]:
    """The statistics of a trial's group, and whether the trial is its outlier; `unit`
    ends the names of the columns of figures in the measurement's unit (goodput's _bps)."""
    interval = summary.interval
    return {
        "group_n": summary.n,
        f"group_median{unit}": summary.median,
        "group_cv": summary.cv,
        f"group_ci_low{unit}": None if interval is None else interval.low,
        f"group_ci_high{unit}": None if interval is None else interval.high,
        "group_stability": summary.stability.value,
        "outlier": "yes" if outlier else "no",
    }


def _group_columns(figure: FlowFigure | None, trial: str) -> dict[str, Any]:
    summary = None if figure is None else figure.summary
    if figure is None or summary is None or trial not in figure.trials:
        return {}
    outlier = trial in figure.outlier_trials
    return _group_statistics(summary, outlier, "_bps") | {
        "group_mean_bps": summary.mean,
        "group_stdev_bps": summary.stdev,
    }


# After the others, in a run with benchmarks only: a traffic run's CSV is as it was.
MEASUREMENT_COLUMNS = (
    "measurement",
    "labels",
    "unit",
    "better",
    "value",
    "group_median",
    "group_ci_low",
    "group_ci_high",
)


def _measured_cells(report: Report) -> dict[tuple[str, str, str, str, str], MeasuredCell]:
    """Each benchmark cell by (test id, path, variant, measurement, labels as text)."""
    cells = {}
    for row in report.measured:
        labels = _labels_text(row.labels)
        for place, cell in zip(report.measured_columns, row.cells, strict=True):
            if cell is not None:
                cells[(row.test_id, place.path, place.variant, row.name, labels)] = cell
    for table in report.forwarding:  # the searches' figures, over their repetitions
        place = table.place
        for searched in table.cells:
            labels = _labels_text(searched.labels)
            for name, cell in searched.figures:
                cells[(table.test_id, place.path, place.variant, name, labels)] = cell
    return cells


# In a run with forwarding searches: "at least" beside a goal's figure that is a lower
# bound only (the search could go no higher: max_rate, the generator), as "≥" reads in
# the tables.
BOUND_COLUMN = "bound"
AT_LEAST = "at least"


def _lower_bounds(report: Report) -> set[tuple[str, str, str]]:
    """(trial, labels as text, measurement name) of every figure that is a lower bound."""
    found: set[tuple[str, str, str]] = set()
    for table in report.forwarding:
        for searched in table.cells:
            labels = _labels_text(searched.labels)
            for run in searched.searches:
                for result in run.log.result.goals:
                    if run.log.at_least(result):
                        name = result.goal.name
                        for figure in (name, f"{name} L2", f"{name} L1", f"{name} of ceiling"):
                            found.add((run.trial, labels, figure))
    return found


def _labels_text(labels: tuple[tuple[str, str], ...]) -> str:
    return ";".join(f"{key}={value}" for key, value in labels)


def _measurement_rows(
    report: Report,
    detail: TrialDetail,
    cells: Mapping[tuple[str, str, str, str, str], MeasuredCell],
    lower_bounds: AbstractSet[tuple[str, str, str]] = frozenset(),
) -> Iterable[dict[str, Any]]:
    """A benchmark trial's rows: one per measurement (one without, when it failed)."""
    trial, result = detail.outcome.trial, detail.outcome.result
    base = _trial_columns(report, detail)
    if result is None or not result.measurements:
        yield base
        return
    for m in result.measurements:
        labels = _labels_text(m.labels)
        row = base | {
            "measurement": m.name,
            "labels": labels,
            "unit": m.unit,
            "better": m.better.value,
            "value": m.value,
        }
        if report.forwarding:
            bound = (trial.key, labels, m.name) in lower_bounds
            row[BOUND_COLUMN] = AT_LEAST if bound else ""
        cell = cells.get((trial.test.id, trial.path.name, trial.variant, m.name, labels))
        summary = None if cell is None else cell.summary
        if cell is not None and summary is not None and trial.key in cell.trials:
            row |= _group_statistics(summary, trial.key in cell.outlier_trials)
        yield row


def _rows(report: Report) -> Iterable[dict[str, Any]]:
    groups = _group_figures(report)
    measured = _measured_cells(report)
    lower_bounds = _lower_bounds(report)
    for detail in report.trials:
        trial = detail.outcome.trial
        if trial.test.bench is not None or trial.test.search is not None:
            yield from _measurement_rows(report, detail, measured, lower_bounds)
            continue
        for flow in flows_of(detail):
            figure = groups.get((trial.test.id, trial.path.name, trial.variant, flow))
            row = _row(report, detail, flow) | _group_columns(figure, trial.key)
            row |= trial_latency(detail.outcome.result)  # a probed trial's, else nothing
            goodput = row.get("goodput_bps")
            for budget in report.budgets:  # `--as`: after every other column
                row[f"as {budget.name}"] = None if goodput is None else budget.value(goodput)
            yield row
        result = detail.outcome.result
        if result is not None and result.measurements:  # a traffic test's latency probes
            yield from _measurement_rows(report, detail, measured, lower_bounds)


def render_csv(report: Report) -> str:
    extra = MEASUREMENT_COLUMNS if report.measured or report.forwarding else ()
    if report.forwarding:
        extra = (*extra, BOUND_COLUMN)
    probed = any(
        trial_latency(d.outcome.result) for d in report.trials if d.outcome.trial.test.yields_flows
    )
    latency = tuple(f.key for f in LATENCY_FIGURES) if probed else ()
    budgets = tuple(f"as {b.name}" for b in report.budgets)
    return tidy_csv((*COLUMNS, *extra, *latency, *budgets), _rows(report))
