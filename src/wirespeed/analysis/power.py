"""A trial's power as measurements: the board idle before the traffic, under it, and
the energy each megabit of the traffic cost.

    energy per Mbit (mJ/Mbit) = (P_load - P_idle) / goodput (Mbit/s) x 1000

The difference is what the traffic added: the idle power is paid whether packets flow
or not. It is the energy of the goodput (what arrived), summed over both directions of
a bidirectional test, as an energy bill counts what was delivered.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import fmean

from wirespeed.model import Better, Measurement, Result
from wirespeed.sampling.timelines import PowerTimeline

IDLE = "power idle"
LOAD = "power load"
ENERGY = "energy per Mbit"


def power_measurements(
    idle_w: Sequence[float], load_w: Sequence[float], goodput_bps: float | None, source: str
) -> tuple[Measurement, ...]:
    """The means of the idle and load readings, and the energy per Mbit where both and a
    goodput are known; source ("meter", "hwmon") labels them."""
    labels = (("source", source),)
    found: list[Measurement] = []
    idle = fmean(idle_w) if idle_w else None
    load = fmean(load_w) if load_w else None
    if idle is not None:
        found.append(Measurement(IDLE, "W", Better.LOWER, idle, labels))
    if load is not None:
        found.append(Measurement(LOAD, "W", Better.LOWER, load, labels))
    if idle is not None and load is not None and goodput_bps:
        mbit_per_s = goodput_bps / 1e6
        found.append(
            Measurement(ENERGY, "mJ/Mbit", Better.LOWER, (load - idle) / mbit_per_s * 1000, labels)
        )
    return tuple(found)


def total_goodput(result: Result) -> float | None:
    """Every direction's goodput together, bit/s; None for a result without one."""
    rates = [d.goodput_bps for d in result.directions if d.goodput_bps is not None]
    return sum(rates) if rates else None


def split_timeline(timeline: PowerTimeline, load_from: float) -> tuple[list[float], list[float]]:
    """The hwmon watts read before `load_from` (s on the timeline's clock) and after."""
    idle: list[float] = []
    load: list[float] = []
    for t, watts in zip(timeline.t, timeline.power_w, strict=True):
        if watts is not None:
            (idle if t < load_from else load).append(watts)
    return idle, load
