"""The report as versioned JSON: the table, the notes and every trial with its intervals.

report_to_dict defines the format, and orjson writes it (json_text: byte for byte what
json.dumps writes). A report of more than INDENT_UP_TO_TRIALS trials is written compact,
each distinct interval series (json_series, straight from the store's packed records),
test, path and ceiling written once and put in as text.
The format is documented in docs/json-format.md. Readers check "format" and "version";
a change that could break a reader (a renamed or removed key, a changed unit) raises the
version, an added key does not.

Version history:
  1  first version: run, columns, table, notes, trials with flows, streams and intervals.
  2  a cell's flows gain `statistics` (median, mean, sd, CV, min, max, the bootstrap
     interval of the median, outliers, a stability verdict) and `trials`; notes gain the
     codes `unstable` and `outlier`, which concern a cell's repetitions together.
  (2, keys added) cells gain `expectations`, the report `expectations` (a verdict and
     counts), notes the kind `expectation`: what the plan's `expect:` asked, met or not.
  (2, keys added) a trial's path gains `tunnel` (kind, ends, proto, inner_mtu and the
     options set) when its traffic went through a VPN tunnel.
  (2, keys added) `forwarding`, in a run with forwarding-rate searches: their tables,
     each cell's figures and its searches' bounds and trials; notes gain the codes
     `generator-limited`, `not-converged`, `no-throughput`, `unreadable-search-log`.
  (2, keys added) a cell's expectation gains `labels` and `unit`, and names any
     measurement (`flow` null for one of no flow); `measured_expectations`, in a run
     whose plan expects figures of benchmarks or searches: their judgements.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

from wirespeed.analysis.ceiling import Ceiling
from wirespeed.analysis.expectations import Judgement, Verdict
from wirespeed.analysis.latency import GRADE_UNIT, grade
from wirespeed.analysis.stats import ConfidenceInterval, Summary
from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    Measurement,
    PathSpec,
    Result,
    StreamResult,
    TestCase,
    Transfer,
    TunnelSpec,
    UdpStats,
)
from wirespeed.report import json_text
from wirespeed.report.budgets import Budget
from wirespeed.report.json_series import SeriesWriter, interval_entry
from wirespeed.report.model import Cell, Report, TrialDetail
from wirespeed.report.power_json import power_entry
from wirespeed.report.power_summary import power_summary_entry
from wirespeed.store.gc_pause import gc_paused
from wirespeed.store.records import PackedDirection, bench_fields, spec_fields, unpack_series

FORMAT = "wirespeed-report"
VERSION = 2


def _measurement(m: Transfer | None) -> dict[str, Any] | None:
    if m is None:
        return None
    return {"bytes": m.bytes, "seconds": m.seconds, "bits_per_second": m.bits_per_second}


def _udp(udp: UdpStats | None) -> dict[str, Any] | None:
    if udp is None:
        return None
    return {
        "jitter_ms": udp.jitter_ms,
        "lost": udp.lost,
        "packets": udp.packets,
        "loss_percent": udp.loss_percent,
        "out_of_order": udp.out_of_order,
    }


# A series to its JSON value: Interval objects, or a series as the store packs it.
Series = Callable[[tuple[Interval, ...] | bytes | None], Any]


def _interval_dicts(series: tuple[Interval, ...] | bytes | None) -> list[dict[str, Any]]:
    intervals = series if isinstance(series, tuple) else _unpacked(series)
    return [interval_entry(i) for i in intervals]


def _unpacked(blob: bytes | None) -> tuple[Interval, ...]:
    return () if blob is None else unpack_series(blob)


def _stream(s: StreamResult, intervals: Any) -> dict[str, Any]:
    return {
        "id": s.id,
        "sent": _measurement(s.sent),
        "received": _measurement(s.received),
        "retransmits": s.retransmits,
        "udp": _udp(s.udp),
        "intervals": intervals,
    }


def _flow(
    flow: Flow,
    d: DirectionResult | None,
    packed: PackedDirection | None,
    series: Series = _interval_dicts,
) -> dict[str, Any]:
    """A flow, with its series packed if it has them (Report.packed_series); `series`
    writes each series' value."""
    if d is None:
        return {"flow": flow.value, "measured": False}
    source = d.goodput_source
    total: tuple[Interval, ...] | bytes | None
    streams: tuple[tuple[Interval, ...] | bytes | None, ...]
    if packed is None:
        total, streams = d.intervals, tuple(s.intervals for s in d.streams)
    else:
        total, streams = packed
    return {
        "flow": flow.value,
        "measured": True,
        "goodput_bps": d.goodput_bps,
        "goodput_source": None if source is None else source.value,
        "sent": _measurement(d.sent),
        "received": _measurement(d.received),
        "retransmits": d.retransmits,
        "udp": _udp(d.udp),
        "intervals": series(total),
        "streams": [_stream(s, series(t)) for s, t in zip(d.streams, streams, strict=True)],
    }


def _ceiling(c: Ceiling | None) -> dict[str, Any] | None:
    if c is None:
        return None
    return {
        "bits_per_second": c.bits_per_second,
        "formula": c.formula,
        "link_rate_bps": c.link_rate_bps,
        "mtu": c.mtu,
        "payload_bytes": c.payload_bytes,
        "wire_bytes": c.wire_bytes,
        "fragments": c.fragments,
    }


def flows_of(detail: TrialDetail) -> tuple[Flow, ...]:
    """The flows the test asked for, then any other the result holds."""
    wanted = detail.outcome.trial.test.spec.flows
    result = detail.outcome.result
    extra = () if result is None else tuple(d.flow for d in result.directions)
    return tuple(dict.fromkeys(wanted + extra))


def _test(test: TestCase) -> dict[str, Any]:
    return {
        "id": test.id,
        "name": test.name,
        "tool": test.tool.value,
        "spec": spec_fields(test.spec),  # the same shape the store keeps
        **({"bench": bench_fields(test.bench)} if test.bench is not None else {}),
        **({"search": bench_fields(test.search)} if test.search is not None else {}),
    }


def _path(path: PathSpec) -> dict[str, Any]:
    link = path.link
    return {
        "name": path.name,
        "topology": path.topology.value,
        "client": path.client,
        "server": path.server,
        "dut": path.dut,
        "link": None
        if link is None
        else {"name": link.name, "rate_bps": link.rate_bps, "mtu": link.mtu},
        **({"tunnel": _tunnel(path.tunnel)} if path.tunnel is not None else {}),
    }


def _tunnel(tunnel: TunnelSpec) -> dict[str, Any]:
    """The tunnel as the plan's `tunnel:` says it, with the MTU inside it."""
    from wirespeed.tools.tunnels import inner_mtu

    return {
        "kind": tunnel.kind.value,
        "ends": tunnel.ends.value,
        "proto": tunnel.proto.value,
        "inner_mtu": inner_mtu(tunnel),
        **{
            key: value
            for key, value in (
                ("tun_mtu", tunnel.tun_mtu),
                ("fragment", tunnel.fragment),
                ("mssfix", tunnel.mssfix),
                ("cipher", tunnel.cipher),
            )
            if value is not None
        },
    }


def _directions(
    report: Report, trial: int
) -> list[tuple[Flow, DirectionResult | None, PackedDirection | None]]:
    """The flows of trial number `trial`, each with its direction (as
    TrialDetail.direction finds it: the first of that flow) and packed series."""
    detail = report.trials[trial]
    result = detail.outcome.result
    if result is None:
        return [(flow, None, None) for flow in flows_of(detail)]
    packed = None if report.packed is None else report.packed[trial]
    first: dict[Flow, int] = {}
    for number, direction in enumerate(result.directions):
        first.setdefault(direction.flow, number)
    found: list[tuple[Flow, DirectionResult | None, PackedDirection | None]] = []
    for flow in flows_of(detail):
        at = first.get(flow)
        if at is None:
            found.append((flow, None, None))
        else:
            found.append((flow, result.directions[at], None if packed is None else packed[at]))
    return found


def _flows(at: tuple[Report, int]) -> list[dict[str, Any]]:
    return [_flow(*flow) for flow in _directions(*at)]


# The parts of a trial written by functions of their own: the compact writer writes each
# test, path and ceiling once, and the flows' series once (_compact_text).
_PARTS: dict[str, Callable[[Any], Any]] = {
    "test": _test,
    "path": _path,
    "ceiling": _ceiling,
    "flows": _flows,
}


def _whole(key: str, value: Any) -> Any:
    return _PARTS[key](value)


def _trial(report: Report, index: int, part: Callable[[str, Any], Any] = _whole) -> dict[str, Any]:
    """Trial number `index`; `part` writes its test, path, ceiling and flows."""
    detail = report.trials[index]
    outcome = detail.outcome
    trial, result = outcome.trial, outcome.result
    return {
        "key": trial.key,
        "test": part("test", trial.test),
        "path": part("path", trial.path),
        "variant": trial.variant,
        "repetition": trial.repetition,
        "status": outcome.status.value,
        "reason": outcome.reason,
        "started_at": outcome.started_at,
        "finished_at": outcome.finished_at,
        "ceiling": part("ceiling", detail.ceiling),
        "tool_version": None if result is None else result.tool_version,
        "warnings": []
        if result is None
        else [{"kind": w.kind.value, "message": w.message} for w in result.warnings],
        "notes": list(detail.notes),
        "commands": [
            {
                "host": raw.host,
                "side": raw.side.value,
                "argv": list(raw.argv),
                "format": raw.format,
                "exit_status": raw.exit_status,
            }
            for raw in outcome.raw
        ],
        "flows": part("flows", (report, index)),
        # A benchmark's measurements; a traffic test's figures are its flows, and its
        # measurements those it has beside them (latency probes, the board's power):
        # absent without any.
        **(
            {"measurements": [_measurement_dict(m) for m in result.measurements]}
            if result is not None and (trial.test.options is not None or result.measurements)
            else {}
        ),
        **power_entry(outcome),
        **_latency(result),
        **power_summary_entry(outcome),
    }


def _latency(result: Result | None) -> dict[str, Any]:
    """A probed trial's latency at a glance (docs/json-format.md); absent without probes."""
    from wirespeed.report.latency_table import trial_latency

    found = trial_latency(result)
    return {"latency": found} if found else {}


def _measurement_dict(m: Measurement) -> dict[str, Any]:
    return {
        "name": m.name,
        "labels": dict(m.labels),
        "unit": m.unit,
        "better": m.better.value,
        "value": m.value,
        # A grade's value is the latency increase in ms; its letter, for readers.
        **({"grade": grade(m.value)} if m.unit == GRADE_UNIT else {}),
    }


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
                "tool": row.tool.value,
                "name": row.name,
                "labels": dict(row.labels),
                "item": row.item,
                "unit": row.unit,
                "better": row.better.value,
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


def interval_to_dict(interval: ConfidenceInterval | None) -> dict[str, Any] | None:
    if interval is None:
        return None
    return {
        "statistic": interval.statistic,
        "low": interval.low,
        "high": interval.high,
        "confidence": interval.confidence,
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


def expectations_summary(report: Report) -> dict[str, Any]:
    """The run's verdict on its plan's `expect:` and how many were met, not met or not
    measured (the report's `expectations`, and `run --json`'s)."""
    verdicts = [j.verdict for j in report.judgements]
    verdict = report.verdict
    return {
        "verdict": None if verdict is None else verdict.value,
        **{v.value.replace(" ", "_"): verdicts.count(v) for v in Verdict},
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


# The order of the report's top-level keys in format 2, written before its parts were
# sections (report/sections.py): kept so that a report's JSON stays byte for byte. The
# keys of a section added since follow these, in the sections' order.
HEAD_KEYS = (
    "columns",
    "table",
    "notes",
    "expectations",
    "measured_expectations",
    "measured_columns",
    "measured",
    "forwarding",
)


def _report_head(report: Report) -> dict[str, Any]:
    """The report without its trials, which come last: the run, then each section's part."""
    from wirespeed.report.sections import SECTIONS  # they write their parts with this module

    parts: dict[str, Any] = {}
    for section in SECTIONS:
        parts.update(section.json(report))
    ordered = {key: parts.pop(key) for key in HEAD_KEYS if key in parts}
    return {"format": FORMAT, "version": VERSION, "run": _run(report), **ordered, **parts}


def _run(report: Report) -> dict[str, Any]:
    info = report.info
    return {
        "id": report.run_id,
        "title": report.title,
        "status": report.status.value,
        "started_at": info.started_at,
        "finished_at": report.finished_at,
        "wirespeed_version": info.wirespeed_version,
        "argv": list(info.argv),
        "plan_path": info.plan_path,
        "hosts": [
            {
                "name": h.name,
                "role": h.role,
                "os": h.os,
                "kernel": h.kernel,
                "machine": h.machine,
                "tools": dict(h.tools),
            }
            for h in info.hosts
        ],
        "provenance": dict(info.provenance),
    }


def traffic_part(report: Report) -> dict[str, Any]:
    """The traffic tests' table: its columns and rows."""
    return {
        "columns": [
            {
                "label": c.label,
                "path": c.path,
                "variant": c.variant,
                "link": None
                if c.link is None
                else {"name": c.link.name, "rate_bps": c.link.rate_bps, "mtu": c.link.mtu},
            }
            for c in report.columns
        ],
        "table": [
            {
                "test_id": row.test_id,
                "test_name": row.test_name,
                "tool": row.tool.value,
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


def report_to_dict(report: Report) -> dict[str, Any]:
    """The whole report as JSON values: what render_json writes."""
    trials = [_trial(report, index) for index in range(len(report.trials))]
    return {**_report_head(report), "trials": trials}


# Beyond this many trials the JSON is written compact: indenting a run of 10,000 trials
# (130 MB) took longer than building its report, and nobody reads that much by eye.
INDENT_UP_TO_TRIALS = 1000


@gc_paused
def render_json(report: Report) -> str:
    """The report's JSON, as json.dumps(report_to_dict(report), ensure_ascii=False,
    allow_nan=False) writes it: indented by 2, or compact beyond INDENT_UP_TO_TRIALS."""
    if len(report.trials) > INDENT_UP_TO_TRIALS:
        return _compact_text(report)
    return json_text.indented(report_to_dict(report))


def _compact_text(report: Report) -> str:
    """json_text.compact(report_to_dict(report)), the same text, written faster: each
    interval series is written once (SeriesWriter), straight from the store's packed
    records, and each test, path and ceiling, which hundreds of trials share, once."""
    series = SeriesWriter()
    shared: dict[int, json_text.Fragment] = {}  # by id(): the report keeps them alive

    def part(key: str, value: Any) -> Any:
        if key == "flows":
            return [_flow(*direction, series) for direction in _directions(*value)]
        if value is None:
            return None
        text = shared.get(id(value))
        if text is None:
            text = shared[id(value)] = json_text.Fragment(json_text.compact(_whole(key, value)))
        return text

    trials = [_trial(report, index, part) for index in range(len(report.trials))]
    try:
        return json_text.orjson_text({**_report_head(report), "trials": trials}).decode()
    except json_text.OrjsonRefused:  # what orjson refuses and json writes: json writes it
        return json_text.compact(report_to_dict(report))
