"""A trial's power and heat in one line: idle and load power and the energy per Mbit
(the trial's own measurements, analysis/power.py), the hottest any sampled host ran, and
whether it was throttled, for the JSON report ("power_summary") and a Markdown table.

Throttled is yes where the firmware said so (under-voltage, a capped clock: vcgencmd) or
a finding did (a clock below its hardware maximum while busy, a zone past its trip
point); no where something could have told (a clock, a thermal zone or the firmware was
read); unknown (None) where nothing could.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wirespeed.analysis.power import ENERGY, IDLE, LOAD
from wirespeed.model import FindingKind, TrialOutcome
from wirespeed.report.stored_summary import summary_fields

__all__ = ["PowerSummary", "power_summary", "power_summary_entry", "power_summary_rows"]

_THROTTLING = (FindingKind.THROTTLED, FindingKind.UNDER_VOLTAGE)


@dataclass(frozen=True)
class PowerSummary:
    idle_w: float | None
    load_w: float | None
    energy_mj_per_mbit: float | None
    source: str | None  # where the power came from: "meter", "hwmon"
    temperature_max_c: float | None
    throttled: bool | None
    conditions: tuple[str, ...]  # the firmware's words, and "clock" or "thermal" findings


def power_summary(outcome: TrialOutcome) -> PowerSummary | None:
    """The trial's summary; None where it has no power, temperature or throttling to say."""
    figures: dict[str, float] = {}
    source = None
    if outcome.result is not None:
        for m in outcome.result.measurements:
            if m.name in (IDLE, LOAD, ENERGY) and m.name not in figures:
                figures[m.name] = m.value
                source = dict(m.labels).get("source", source)
    temperatures: list[float] = []
    conditions: dict[str, None] = {}
    could_tell = False
    for monitor in outcome.monitors:
        if not monitor.summary:
            continue
        fields = summary_fields(monitor.summary)
        if fields.get("temperature_max_c") is not None:
            temperatures.append(fields["temperature_max_c"])
        for name in fields.get("throttled") or ():
            conditions.setdefault(name)
        could_tell = could_tell or bool(
            fields.get("clocks") or fields.get("thermal") or fields.get("throttle_timeline")
        )
    for finding in outcome.findings:
        if finding.kind in _THROTTLING:
            conditions.setdefault(finding.kind.value)
    if not figures and not temperatures and not conditions:
        return None
    throttled = True if conditions else (False if could_tell else None)
    return PowerSummary(
        idle_w=figures.get(IDLE),
        load_w=figures.get(LOAD),
        energy_mj_per_mbit=figures.get(ENERGY),
        source=source,
        temperature_max_c=max(temperatures) if temperatures else None,
        throttled=throttled,
        conditions=tuple(conditions),
    )


def power_summary_entry(outcome: TrialOutcome) -> dict[str, Any]:
    """{"power_summary": {...}} for a trial with one, else {}."""
    found = power_summary(outcome)
    if found is None:
        return {}
    return {
        "power_summary": {
            "idle_w": found.idle_w,
            "load_w": found.load_w,
            "energy_mj_per_mbit": found.energy_mj_per_mbit,
            "source": found.source,
            "temperature_max_c": found.temperature_max_c,
            "throttled": found.throttled,
            "conditions": list(found.conditions),
        }
    }


def _number(value: float | None, digits: int) -> str:
    return "\N{EN DASH}" if value is None else f"{value:.{digits}f}"


def power_summary_rows(outcomes: Sequence[TrialOutcome]) -> list[tuple[str, list[str]]]:
    """Per trial with a summary: its key, and the cells idle W, load W, energy mJ/Mbit,
    max °C, throttled."""
    rows = []
    for outcome in outcomes:
        found = power_summary(outcome)
        if found is None:
            continue
        throttled = {True: "yes", False: "no", None: "\N{EN DASH}"}[found.throttled]
        if found.conditions:
            throttled += f" ({', '.join(found.conditions)})"
        rows.append(
            (
                outcome.trial.key,
                [
                    _number(found.idle_w, 2),
                    _number(found.load_w, 2),
                    _number(found.energy_mj_per_mbit, 2),
                    _number(found.temperature_max_c, 1),
                    throttled,
                ],
            )
        )
    return rows
