"""The data the HTML report's plots draw, as one JSON-ready dict.

Rates are rounded to what a plot can show (0.01 Mbit/s), so the numbers read the same as
in the tables (ceilings rounded once, as the tables round them: text.ceiling_mbit): in
Mbit/s for the bars, and in the interval series (hundreds of thousands of values in a
large run) as whole numbers of 10 kbit/s, beside times in whole milliseconds: integers
are written several times faster than floats and take fewer bytes. The page's script
scales them back. The JSON export (run_json.py) is the place for full precision.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from wirespeed.model import DirectionResult, Interval
from wirespeed.report.content import Report, flows_of
from wirespeed.report.html_monitor import DeviceSamples
from wirespeed.report.text import ceiling_mbit
from wirespeed.store.gc_pause import gc_paused
from wirespeed.store.records import PackedDirection, series_rows, unpack_series


def _mbit(bits_per_second: float | None) -> float | None:
    return None if bits_per_second is None else round(bits_per_second / 1e6, 2)


# A series as the report has it: the outcome's own intervals (never empty here), or as
# the store keeps them (Report.packed_series).
Source = tuple[Interval, ...] | bytes


def _series(source: Source) -> dict[str, Any]:
    """Each interval's rate (10 kbit/s) at its middle (ms), where a line through the
    rates belongs. Evenly spaced times, as iperf's intervals usually are, are given as
    the first and the step ("t0", "dt") instead of a list of them."""
    records = series_rows(source) if isinstance(source, bytes) else None
    if records is not None:  # packed without optional fields: no object per interval
        t = [round((start + end) * 500) for start, end, _, _ in records]
        v = [round(bps / 1e4) for _, _, _, bps in records]
    else:
        intervals = unpack_series(source) if isinstance(source, bytes) else source
        t = [round((i.start + i.end) * 500) for i in intervals]
        v = [round(i.bits_per_second / 1e4) for i in intervals]
    if len(t) > 1 and (step := t[1] - t[0]) > 0 and t == list(range(t[0], t[-1] + 1, step)):
        return {"t0": t[0], "dt": step, "v": v}
    return {"t": t, "v": v}


def _sources(
    direction: DirectionResult, packed: PackedDirection | None
) -> tuple[Source | None, list[tuple[int, Source]]]:
    """A direction's sum series and its streams' (id and series), those it has."""
    if packed is None:
        drawn: list[tuple[int, Source]] = [
            (s.id, s.intervals) for s in direction.streams if s.intervals
        ]
        return direction.intervals or None, drawn
    pairs = zip(direction.streams, packed[1], strict=True)
    return packed[0], [(s.id, blob) for s, blob in pairs if blob is not None]


def _trial(report: Report, index: int) -> dict[str, Any]:
    detail = report.trials[index]
    outcome = detail.outcome
    trial = outcome.trial
    flows: list[dict[str, Any]] = []
    # A kind with options of its own (a benchmark, a bounceback) yields measurements:
    # no flow to show a goodput of.
    for flow in flows_of(detail) if trial.test.bench is None else ():
        direction = detail.direction(flow)
        if direction is None:
            flows.append({"flow": flow.value, "goodput": None, "sum": None, "streams": []})
            continue
        own, drawn = _sources(direction, report.packed_series(index, direction))
        # A single stream's own series is the sum: draw it once, as the sum.
        if own is None and len(drawn) == 1:
            own = drawn[0][1]
        streams = [{"id": i, **_series(series)} for i, series in drawn] if len(drawn) > 1 else []
        flows.append(
            {
                "flow": flow.value,
                "goodput": _mbit(direction.goodput_bps),
                "sum": None if own is None else _series(own),
                "streams": streams,
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
        "ceiling": None if detail.ceiling is None else ceiling_mbit(detail.ceiling),
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
                        "ceiling": None if figure.ceiling is None else ceiling_mbit(figure.ceiling),
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
        # As device_samples() gives them, from sampling.summary.cpu_timeline: rounded
        # there once, when the trial was stored (a million values in 10,000 trials).
        "t": list(samples.t),
        "cores": [
            {
                "cpu": core.cpu,
                "user": list(core.user),
                "system": list(core.system),
                "softirq": list(core.softirq),
            }
            for core in samples.cores
        ],
        "irqs": [
            {"irq": line.irq, "name": line.name, "rates": [round(v, 1) for v in line.per_cpu_per_s]}
            for line in samples.interrupts
        ],
    }


@gc_paused
def report_data(report: Report, samples: Sequence[DeviceSamples] = ()) -> dict[str, Any]:
    """Everything the page's script needs; labels travel as data, never as markup."""
    # A resumed run may hold a key twice: samples belong to its last attempt.
    trial_index = {d.outcome.trial.key: i for i, d in enumerate(report.trials)}
    return {
        "columns": [c.label for c in report.columns],
        "bars": _bars(report),
        "trials": [_trial(report, index) for index in range(len(report.trials))],
        "monitor": [_monitor(s, trial_index) for s in samples],
    }
