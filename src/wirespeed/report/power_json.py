"""A trial's power and temperature over time, as the JSON report and the HTML report's
device section show them: the meter's readings (from its log, a raw output of the
trial) and each sampled host's board power, hottest zone and firmware throttling (from
its summary's power_timeline)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wirespeed.model import TrialOutcome
from wirespeed.report.stored_summary import summary_fields
from wirespeed.sampling.meter import METER_FORMAT, parse_meter_log

__all__ = ["METER_FORMAT", "PowerSeries", "power_entry", "power_series"]


@dataclass(frozen=True)
class PowerSeries:
    """One line of a trial's power chart: t in seconds since its samples began."""

    source: str  # "power meter", or the sampled host's name
    t: tuple[float, ...]
    power_w: tuple[float | None, ...]
    temperature_c: tuple[float | None, ...] = ()
    load_start: float | None = None  # the meter's: when the traffic began
    load_end: float | None = None
    throttled: tuple[str, ...] = ()


def power_series(outcome: TrialOutcome) -> list[PowerSeries]:
    found: list[PowerSeries] = []
    for raw in outcome.raw:
        if raw.format == METER_FORMAT and raw.text:
            log = parse_meter_log(raw.text)
            found.append(
                PowerSeries(
                    raw.host,
                    tuple(t for t, _ in log.readings),
                    tuple(w for _, w in log.readings),
                    load_start=log.load_start,
                    load_end=log.load_end,
                )
            )
    for monitor in outcome.monitors:
        if not monitor.summary or '"power_timeline"' not in monitor.summary:
            continue
        fields = summary_fields(monitor.summary)
        timeline = fields.get("power_timeline")
        throttled = tuple(fields.get("throttled") or ())
        if timeline is None and not throttled:
            continue
        timeline = timeline or {"t": [], "power_w": [], "temperature_c": []}
        found.append(
            PowerSeries(
                monitor.host,
                tuple(timeline["t"]),
                tuple(timeline["power_w"]),
                tuple(timeline["temperature_c"]),
                throttled=throttled,
            )
        )
    return found


def power_entry(outcome: TrialOutcome) -> dict[str, Any]:
    """{"power": [...]} for a trial with any power or temperature series, else {}."""
    series = power_series(outcome)
    if not series:
        return {}
    return {
        "power": [
            {
                "source": s.source,
                "t": list(s.t),
                "power_w": list(s.power_w),
                "temperature_c": list(s.temperature_c),
                "load_start": s.load_start,
                "load_end": s.load_end,
                "throttled": list(s.throttled),
            }
            for s in series
        ]
    }
