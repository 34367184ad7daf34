"""What reports read of a stored device summary (sampling.MonitorSummary's JSON).

MonitorSummary.from_json rebuilds every dataclass of a summary by its type hints: about
1.6 ms each, 16 s for a run of 10,000 trials. A report reads a handful of fields, which
orjson gives in about 10 us (json.loads: 30-45 us). The field names are the summary's own
(versioned by SUMMARY_VERSION); a field a version lacks is absent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import orjson


def summary_fields(text: str) -> dict[str, Any]:
    try:
        fields: dict[str, Any] = orjson.loads(text)
    except orjson.JSONDecodeError:
        # What json.dumps writes and orjson refuses: NaN, Infinity, integers beyond 64 bits.
        fields = json.loads(text)
    return fields


@dataclass(frozen=True)
class BusiestCoreLoad:
    cpu: int
    busy_pct: float
    softirq_pct: float  # of that core's time
    temperature_max_c: float | None  # the device's, over the trial


def busiest_core_load(text: str) -> BusiestCoreLoad | None:
    """The busiest core of a summary, and the device's highest temperature; None
    without a busiest core (no CPU time was sampled)."""
    fields = summary_fields(text)
    busiest = fields.get("busiest")
    if busiest is None:
        return None
    cpu = busiest["cpu"]
    softirq = next((core["softirq_pct"] for core in fields["cores"] if core["cpu"] == cpu), 0.0)
    return BusiestCoreLoad(cpu, busiest["busy_pct"], softirq, fields.get("temperature_max_c"))
