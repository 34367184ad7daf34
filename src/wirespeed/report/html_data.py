"""The data the HTML report's plots draw, as one JSON-ready dict.

Rates are in Mbit/s rounded to what a plot can show (0.01 Mbit/s), times in seconds:
the page stays small and the numbers read the same as in the tables. The JSON export
(json_export.py) is the place for full precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wirespeed.model import Interval
from wirespeed.report.html_monitor import DeviceSamples
from wirespeed.report.json_export import flows_of
from wirespeed.report.model import Report, TrialDetail


def _mbit(bits_per_second: float | None) -> float | None:
    return None if bits_per_second is None else round(bits_per_second / 1e6, 2)


def _series(intervals: Sequence[Interval]) -> dict[str, list[float]]:
    """Each interval's rate at its middle, where a line through the rates belongs."""
    return {
        "t": [round((i.start + i.end) / 2, 3) for i in intervals],
        "v": [round(i.bits_per_second / 1e6, 2) for i in intervals],
    }


def _trial(detail: TrialDetail) -> dict[str, Any]:
    outcome = detail.outcome
    trial = outcome.trial
    flows: list[dict[str, Any]] = []
    for flow in flows_of(detail):
        direction = detail.direction(flow)
        if direction is None:
            flows.append({"flow": flow.value, "goodput": None, "sum": None, "streams": []})
            continue
        streams: list[dict[str, Any]] = [
            {"id": s.id, **_series(s.intervals)} for s in direction.streams if s.intervals
        ]
        # A single stream's own series is the sum: draw it once.
        total: dict[str, Any] | None = _series(direction.intervals) if direction.intervals else None
        if total is None and len(streams) == 1:
            total = {"t": streams[0]["t"], "v": streams[0]["v"]}
        flows.append(
            {
                "flow": flow.value,
                "goodput": _mbit(direction.goodput_bps),
                "sum": total,
                "streams": streams if len(streams) > 1 else [],
            }
        )
    return {
        "key": trial.key,
        "test": f"{trial.test.id} {trial.test.name}",
        "path": trial.path.name,
        "variant": trial.variant,
        "rep": trial.repetition,
        "duration": trial.test.spec.duration,
        "status": outcome.status.value,
        "reason": outcome.reason,
        "ceiling": None if detail.ceiling is None else _mbit(detail.ceiling.bits_per_second),
        "notes": list(detail.notes),
        "flows": flows,
    }


def _bars(report: Report) -> list[dict[str, Any]]:
    groups = []
    for row in report.rows:
        bars = []
        for index, cell in enumerate(row.cells):
            if cell is None:
                continue
            for figure in cell.flows:
                summary = figure.summary
                interval = None if summary is None else summary.interval
                bars.append(
                    {
                        "column": index,
                        "flow": figure.flow.value,
                        "median": None if summary is None else _mbit(summary.median),
                        "low": None if interval is None else _mbit(interval.low),
                        "high": None if interval is None else _mbit(interval.high),
                        "n": figure.n,
                        "values": [_mbit(v) for v in figure.values_bps],
                        "ceiling": None
                        if figure.ceiling is None
                        else _mbit(figure.ceiling.bits_per_second),
                        "failed": cell.trials_failed,
                    }
                )
        groups.append({"test": f"{row.test_id} {row.test_name}", "bars": bars})
    return groups


def _monitor(samples: DeviceSamples, trial_index: dict[str, int]) -> dict[str, Any]:
    return {
        "trial": trial_index.get(samples.trial),
        "host": samples.host,
        "role": samples.role,
        "cpus": list(samples.cpus),
        "t": [round(t, 3) for t in samples.t],
        "cores": [
            {
                "cpu": core.cpu,
                "user": [round(v, 1) for v in core.user],
                "system": [round(v, 1) for v in core.system],
                "softirq": [round(v, 1) for v in core.softirq],
            }
            for core in samples.cores
        ],
        "irqs": [
            {"irq": line.irq, "name": line.name, "rates": [round(v, 1) for v in line.per_cpu_per_s]}
            for line in samples.interrupts
        ],
    }


def report_data(report: Report, samples: Sequence[DeviceSamples] = ()) -> dict[str, Any]:
    """Everything the page's script needs; labels travel as data, never as markup."""
    # A resumed run may hold a key twice: samples belong to its last attempt.
    trial_index = {d.outcome.trial.key: i for i, d in enumerate(report.trials)}
    return {
        "columns": [c.label for c in report.columns],
        "bars": _bars(report),
        "trials": [_trial(d) for d in report.trials],
        "monitor": [_monitor(s, trial_index) for s in samples],
    }
