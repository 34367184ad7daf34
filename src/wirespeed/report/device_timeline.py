"""The HTML report's "Device over time": per trial a timeline (report/timeline.py) of the
board's power, temperature and CPU clocks, its firmware's throttling as shaded
intervals, and the kernel's log lines as instants, where the trial has any of these.

Everything comes from what the store keeps of a trial: each sampled host's summary
(sampling.summary: power_timeline, clock_timeline, throttle_timeline, events; a summary
stored before a timeline existed simply has none of it) and the power meter's log, a raw
output of the trial (loaded by `wirespeed report` where the run has one). The samplers'
clock starts at their first tick, the meter's at its first reading: both at the start of
the trial's idle baseline, within about a second of each other, so they share one axis.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from wirespeed.analysis.findings import emulated
from wirespeed.model import MonitorRecord, TrialOutcome
from wirespeed.report.content import Report
from wirespeed.report.stored_summary import summary_fields
from wirespeed.report.timeline import (
    Lane,
    Mark,
    Series,
    Span,
    timeline_assets,
    timeline_data,
    timeline_figure,
)
from wirespeed.sampling.meter import METER_FORMAT, METER_HOST, parse_meter_log
from wirespeed.sampling.power import THROTTLE_BITS
from wirespeed.store.records import series_rows, unpack_series

# A summary with something to draw, told from its JSON text without parsing it (a run of
# 10,000 trials has as many summaries): a timeline that is not null (codec.dumps writes
# `"key": value`), or a named kernel event (an unnamed one is `"event": null`).
_TIMELINES = ('"power_timeline": {', '"clock_timeline": {', '"throttle_timeline": {')
_NAMED_EVENT = '"event": "'


def _drawn(monitor: MonitorRecord) -> bool:
    """Whether a host's summary has something to draw. A lab's namespace reads the whole
    machine's kernel log (other labs' links going up and down): its events are drawn
    beside its gauges, never alone."""
    text = monitor.summary
    if not text:
        return False
    if any(field in text for field in _TIMELINES):
        return True
    return _NAMED_EVENT in text and not emulated(monitor.host)


@dataclass(frozen=True)
class TrialTimeline:
    """One trial's device timeline, ready for timeline_data."""

    trial: str  # Trial.key
    lanes: tuple[Lane, ...]
    intervals: tuple[Span, ...]
    instants: tuple[Mark, ...]


def _label(host: str, what: str, hosts: int) -> str:
    return what if hosts == 1 else f"{host} {what}".strip()


def throttle_spans(host: str, t: Sequence[float], bits: Sequence[int]) -> list[Span]:
    """Each condition the firmware reported now (under-voltage, throttled, ...) as the
    stretches it held: from the reading that first said it to the first that did not,
    or to the last reading (a condition seen once is a stretch of no length)."""
    spans: list[Span] = []
    for bit, name in THROTTLE_BITS.items():
        began: float | None = None
        for time, value in zip(t, bits, strict=True):
            on = bool(value >> bit & 1)
            if on and began is None:
                began = time
            elif not on and began is not None:
                spans.append(Span(began, time, f"{host}: {name}", name))
                began = None
        if began is not None:
            spans.append(Span(began, t[-1], f"{host}: {name}", name))
    return spans


def traffic_series(report: Report, index: int) -> list[Series]:
    """Trial number `index`'s goodput per direction, Mbit/s at each interval's end, in
    seconds since its traffic began: its own intervals, or as the store packed them."""
    result = report.trials[index].outcome.result
    found: list[Series] = []
    for direction in () if result is None else result.directions:
        packed = report.packed_series(index, direction)
        blob = None if packed is None else packed[0]
        rows: list[tuple[float, float]]
        if blob is not None:
            plain = series_rows(blob)
            intervals = unpack_series(blob) if plain is None else ()
            rows = [(end, bps) for _, end, _, bps in plain or ()]
            rows += [(i.end, i.bits_per_second) for i in intervals]
        else:
            rows = [(i.end, i.bits_per_second) for i in direction.intervals]
        if rows:
            found.append(
                Series(
                    f"{direction.flow.value}",
                    [end for end, _ in rows],
                    [bps / 1e6 for _, bps in rows],
                )
            )
    return found


def trial_timeline(outcome: TrialOutcome, traffic: Sequence[Series] = ()) -> TrialTimeline | None:
    """The trial's device timeline; None where it has nothing to draw over time.

    traffic: the trial's throughput (traffic_series), drawn where a power meter marked
    when the traffic began (the samplers' clock has no such mark)."""
    power: list[Series] = []
    temperature: list[Series] = []
    clocks: list[Series] = []
    spans: list[Span] = []
    marks: list[Mark] = []
    named_events: list[str | None] = []  # each mark's known event (sampling/events.py)
    throughput: list[Series] = []
    for raw in outcome.raw:
        if raw.format == METER_FORMAT and raw.text:
            log = parse_meter_log(raw.text)
            if log.readings:
                t = [time for time, _ in log.readings]
                power.append(Series(raw.host or METER_HOST, t, [w for _, w in log.readings]))
            if log.load_start is not None:
                end = log.load_end if log.load_end is not None else log.readings[-1][0]
                spans.append(Span(log.load_start, max(end, log.load_start), "traffic", "traffic"))
                began = log.load_start
                throughput = [Series(s.label, [began + t for t in s.t], s.v) for s in traffic]
    monitors = [m for m in outcome.monitors if _drawn(m)]
    hosts = len(monitors)
    for monitor in monitors:
        fields = summary_fields(monitor.summary)
        host = monitor.host
        timeline = fields.get("power_timeline")
        if timeline:
            if any(w is not None for w in timeline["power_w"]):
                power.append(
                    Series(_label(host, "board", hosts), timeline["t"], timeline["power_w"])
                )
            if any(c is not None for c in timeline["temperature_c"]):
                temperature.append(
                    Series(
                        _label(host, "hottest zone", hosts),
                        timeline["t"],
                        timeline["temperature_c"],
                    )
                )
        clock = fields.get("clock_timeline")
        if clock:
            for policy, mhz in zip(clock["policies"], clock["mhz"], strict=True):
                clocks.append(Series(_label(host, policy, 2), clock["t"], mhz))
        throttle = fields.get("throttle_timeline")
        if throttle and throttle["t"]:
            spans += throttle_spans(host, throttle["t"], throttle["bits"])
        for event in fields.get("events") or ():
            named_events.append(None if emulated(host) else event.get("event"))
            label = event.get("event") or "kernel"
            marks.append(
                Mark(event["t"], label if hosts == 1 else f"{host} {label}", event["message"])
            )
    lanes = [
        lane
        for lane in (
            Lane("throughput", "Mbit/s", tuple(throughput), digits=1),
            Lane("power", "W", tuple(power), digits=3),
            Lane("temperature", "°C", tuple(temperature), digits=1),
            Lane("CPU clock", "MHz", tuple(clocks), digits=0),
        )
        if lane.series
    ]
    # A meter's readings (with the traffic they mark) make a timeline, and so do
    # throttling or a device's known kernel event (a Tx hang, a link down); unnamed
    # kernel lines alone (a bridge port's state) or a lab's events alone do not.
    named = [m for m, event in zip(marks, named_events, strict=True) if event]
    if not lanes and not named and not [s for s in spans if s.kind != "traffic"]:
        return None
    return TrialTimeline(outcome.trial.key, tuple(lanes), tuple(spans), tuple(marks))


def device_timeline_data(timeline: TrialTimeline) -> dict[str, Any]:
    return timeline_data(timeline.lanes, timeline.intervals, timeline.instants)


def device_timeline_section(report: Report) -> str:
    """The section, or "" where no trial has anything to draw over time. One chart per
    trial, the first shown; the others are drawn when chosen (a run of many trials
    draws one at a time)."""
    found = []
    for index, detail in enumerate(report.trials):
        outcome = detail.outcome
        metered = any(raw.format == METER_FORMAT for raw in outcome.raw)
        timeline = trial_timeline(outcome, traffic_series(report, index) if metered else ())
        if timeline is not None:
            found.append(timeline)
    if not found:
        return ""
    options = "".join(
        f'<option value="{index}">{escape(t.trial)}</option>' for index, t in enumerate(found)
    )
    figures = "".join(
        f'<div class="ws-tl-choice"{"" if index == 0 else " hidden"}>'
        f"{timeline_figure(device_timeline_data(t), t.trial)}</div>"
        for index, t in enumerate(found)
    )
    picker = (
        '<div class="toolbar"><select class="ws-tl-pick" aria-label="trial">'
        f"{options}</select></div>"
        if len(found) > 1
        else ""
    )
    return (
        '<section class="card" id="device-timeline"><h2>Device over time</h2>'
        '<p class="lead">Per trial, the board\'s power (its own gauges, or the power meter), '
        "its hottest thermal zone and its CPU clocks, and the goodput where a meter marked "
        "when the traffic began; shaded: the traffic (where a meter "
        "marked it) and what the firmware reported (under-voltage, throttling); ticks: the "
        "kernel's log lines, hover for their text. Drag across the chart to zoom.</p>"
        f"{picker}{figures}{timeline_assets()}</section>"
    )
