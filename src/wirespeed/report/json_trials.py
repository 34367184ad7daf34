"""Each trial's record in the JSON report (its `trials`, docs/json-format.md): its test,
path and ceiling, every flow with its streams and interval series, its measurements, and
the latency and power figures of its kind.

trial_record writes one; its test, path, ceiling and flows go through `part`, so that the
compact writer (run_json) can write what hundreds of trials share once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wirespeed.analysis.ceiling import Ceiling
from wirespeed.analysis.latency import GRADE_UNIT, grade
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
from wirespeed.record_fields import fields_or_none
from wirespeed.report.content import Report, flows_of
from wirespeed.report.json_series import interval_entry
from wirespeed.report.json_values import link_to_dict
from wirespeed.report.latency_table import trial_latency
from wirespeed.report.power_json import power_entry
from wirespeed.report.power_summary import power_summary_entry
from wirespeed.store.records import (
    PackedDirection,
    bench_fields,
    outcome_fields,
    path_fields,
    spec_fields,
    unpack_series,
)


def _measurement(m: Transfer | None) -> dict[str, Any] | None:
    return fields_or_none(m, ("bytes", "seconds", "bits_per_second"))


def _udp(udp: UdpStats | None) -> dict[str, Any] | None:
    return fields_or_none(udp, ("jitter_ms", "lost", "packets", "loss_percent", "out_of_order"))


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


def flow_record(
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


CEILING_FIELDS = (
    "bits_per_second",
    "formula",
    "link_rate_bps",
    "mtu",
    "payload_bytes",
    "wire_bytes",
    "fragments",
)


def _ceiling(c: Ceiling | None) -> dict[str, Any] | None:
    return fields_or_none(c, CEILING_FIELDS)


def _test(test: TestCase) -> dict[str, Any]:
    return {
        "id": test.id,
        "name": test.name,
        "tool": str(test.tool),
        "spec": spec_fields(test.spec),  # the same shape the store keeps
        **({"bench": bench_fields(test.bench)} if test.bench is not None else {}),
        **({"search": bench_fields(test.search)} if test.search is not None else {}),
    }


def _path(path: PathSpec) -> dict[str, Any]:
    """The path's fields as the store keeps them, but for its link and tunnel."""
    return path_fields(path, link_to_dict, _tunnel)


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


def flow_directions(
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
    return [flow_record(*flow) for flow in flow_directions(*at)]


# The parts of a trial written by functions of their own: the compact writer writes each
# test, path and ceiling once, and the flows' series once (run_json._compact_text).
_PARTS: dict[str, Callable[[Any], Any]] = {
    "test": _test,
    "path": _path,
    "ceiling": _ceiling,
    "flows": _flows,
}


def whole_part(key: str, value: Any) -> Any:
    return _PARTS[key](value)


def trial_record(
    report: Report, index: int, part: Callable[[str, Any], Any] = whole_part
) -> dict[str, Any]:
    """Trial number `index`; `part` writes its test, path, ceiling and flows."""
    detail = report.trials[index]
    outcome = detail.outcome
    trial, result = outcome.trial, outcome.result
    return {
        **outcome_fields(outcome, part("test", trial.test), part("path", trial.path)),
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
