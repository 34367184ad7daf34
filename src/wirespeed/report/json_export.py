"""The report as versioned JSON: the table, the notes and every trial with its intervals.

The format is documented in docs/json-format.md. Readers check "format" and "version";
a change that could break a reader (a renamed or removed key, a changed unit) raises the
version, an added key does not.

Version history:
  1  first version: run, columns, table, notes, trials with flows, streams and intervals.
  2  a cell's flows gain `statistics` (median, mean, sd, CV, min, max, the bootstrap
     interval of the median, outliers, a stability verdict) and `trials`; notes gain the
     codes `unstable` and `outlier`, which concern a cell's repetitions together.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from wirespeed.analysis.ceiling import Ceiling
from wirespeed.analysis.stats import ConfidenceInterval, Summary
from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    Measurement,
    StreamResult,
    UdpStats,
)
from wirespeed.report.model import Cell, Report, TrialDetail
from wirespeed.store.codec import encode_spec

FORMAT = "wirespeed-report"
VERSION = 2


def _measurement(m: Measurement | None) -> dict[str, Any] | None:
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


def _interval(i: Interval) -> dict[str, Any]:
    return {
        "start": i.start,
        "end": i.end,
        "bytes": i.bytes,
        "bits_per_second": i.bits_per_second,
        "retransmits": i.retransmits,
        "jitter_ms": i.jitter_ms,
        "lost": i.lost,
        "packets": i.packets,
    }


def _stream(s: StreamResult) -> dict[str, Any]:
    return {
        "id": s.id,
        "sent": _measurement(s.sent),
        "received": _measurement(s.received),
        "retransmits": s.retransmits,
        "udp": _udp(s.udp),
        "intervals": [_interval(i) for i in s.intervals],
    }


def _flow(flow: Flow, d: DirectionResult | None) -> dict[str, Any]:
    if d is None:
        return {"flow": flow.value, "measured": False}
    source = d.goodput_source
    return {
        "flow": flow.value,
        "measured": True,
        "goodput_bps": d.goodput_bps,
        "goodput_source": None if source is None else source.value,
        "sent": _measurement(d.sent),
        "received": _measurement(d.received),
        "retransmits": d.retransmits,
        "udp": _udp(d.udp),
        "intervals": [_interval(i) for i in d.intervals],
        "streams": [_stream(s) for s in d.streams],
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


def _trial(detail: TrialDetail) -> dict[str, Any]:
    outcome = detail.outcome
    trial, result = outcome.trial, outcome.result
    path, link = trial.path, trial.path.link
    return {
        "key": trial.key,
        "test": {
            "id": trial.test.id,
            "name": trial.test.name,
            "tool": trial.test.tool.value,
            "spec": encode_spec(trial.test.spec),  # the same shape the store keeps
        },
        "path": {
            "name": path.name,
            "topology": path.topology.value,
            "client": path.client,
            "server": path.server,
            "dut": path.dut,
            "link": None
            if link is None
            else {"name": link.name, "rate_bps": link.rate_bps, "mtu": link.mtu},
        },
        "variant": trial.variant,
        "repetition": trial.repetition,
        "status": outcome.status.value,
        "reason": outcome.reason,
        "started_at": outcome.started_at,
        "finished_at": outcome.finished_at,
        "ceiling": _ceiling(detail.ceiling),
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
        "flows": [_flow(flow, detail.direction(flow)) for flow in flows_of(detail)],
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


def _cell(label: str, cell: Cell | None) -> dict[str, Any] | None:
    if cell is None:
        return None
    return {
        "column": label,
        "trials_ok": cell.trials_ok,
        "trials_failed": cell.trials_failed,
        "notes": list(cell.notes),
        # The DUT's busiest core over the cell's trials (null: no device samples).
        "device": None if cell.device is None else dataclasses.asdict(cell.device),
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
            }
            for f in cell.flows
        ],
    }


def report_to_dict(report: Report) -> dict[str, Any]:
    info = report.info
    return {
        "format": FORMAT,
        "version": VERSION,
        "run": {
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
        },
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
                    _cell(column.label, cell)
                    for column, cell in zip(report.columns, row.cells, strict=True)
                ],
            }
            for row in report.rows
        ],
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
        "trials": [_trial(d) for d in report.trials],
    }


# Beyond this many trials the JSON is written compact: indenting a run of 10,000 trials
# (130 MB) took longer than building its report, and nobody reads that much by eye.
INDENT_UP_TO_TRIALS = 1000


def render_json(report: Report) -> str:
    # allow_nan=False: NaN is not JSON, and no figure of ours should ever be one.
    if len(report.trials) > INDENT_UP_TO_TRIALS:
        return json.dumps(
            report_to_dict(report), separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    return json.dumps(report_to_dict(report), indent=2, ensure_ascii=False, allow_nan=False)
