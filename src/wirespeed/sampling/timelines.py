"""A trial's device over time, as the report's timelines draw it: each core's CPU, the
board's power and temperature, the cpufreq clocks and the firmware's throttling bits,
each at the moments they were read. Kept in the trial's summary so that a report of
many trials need not parse their streams again."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.sampling.model import SampleSet, Snapshot
from wirespeed.sampling.power import board_power
from wirespeed.sampling.series import core_series


@dataclass(frozen=True)
class CpuTimeline:
    """Each core's CPU over the trial, as the HTML report draws it: the end of each
    interval (the device's uptime, s) and, per core in `cpus` order, the percent of it
    spent in user (+ nice), system (+ irq) and softirq. Kept in the summary so that a
    report of thousands of trials need not parse their streams again (3-4 ms each)."""

    t: tuple[float, ...]
    cpus: tuple[int, ...]
    user: tuple[tuple[float, ...], ...]
    system: tuple[tuple[float, ...], ...]
    softirq: tuple[tuple[float, ...], ...]


@dataclass(frozen=True)
class PowerTimeline:
    """The board's power and temperature at each reading of the gauges (about once a
    second): t is the device's uptime since the sampler started, s; power_w the board's
    watts from its hwmon channels (sampling/power.py board_power), None where none
    measures power; temperature_c the hottest thermal zone, None where none reads."""

    t: tuple[float, ...]
    power_w: tuple[float | None, ...]
    temperature_c: tuple[float | None, ...]


@dataclass(frozen=True)
class ClockTimeline:
    """Each cpufreq policy's clock at each reading (about once a second), as the HTML
    report's device timeline draws it: t as in PowerTimeline; mhz per policy in
    `policies` order, None where that policy was not read."""

    t: tuple[float, ...]
    policies: tuple[str, ...]
    mhz: tuple[tuple[float | None, ...], ...]


@dataclass(frozen=True)
class ThrottleTimeline:
    """The Raspberry Pi firmware's throttling bits (vcgencmd get_throttled,
    sampling/power.py) at each reading: when a condition began and ended."""

    t: tuple[float, ...]
    bits: tuple[int, ...]


def power_timeline(samples: SampleSet) -> PowerTimeline | None:
    """The gauges' readings over the trial; None where the host has neither a power
    channel nor a thermal zone."""
    info = samples.info
    times: list[float] = []
    watts: list[float | None] = []
    hottest: list[float | None] = []
    for snapshot in samples.snapshots:
        if not snapshot.hwmon and not snapshot.temperatures:
            continue  # a tick that read /proc/stat only
        power = board_power(snapshot.hwmon, info.hwmon_names, info.hwmon_labels)
        times.append(round(snapshot.t, 3))
        watts.append(None if power is None else round(power, 4))
        hottest.append(max(snapshot.temperatures.values(), default=None))
    if not times or (all(w is None for w in watts) and all(c is None for c in hottest)):
        return None
    return PowerTimeline(tuple(times), tuple(watts), tuple(hottest))


def clock_timeline(snapshots: Sequence[Snapshot]) -> ClockTimeline | None:
    """The policies' clocks over the trial; None where no clock was read."""
    policies = tuple(sorted({p for s in snapshots for p in s.cpufreq}))
    read = [s for s in snapshots if any(f.cur_khz is not None for f in s.cpufreq.values())]
    if not policies or not read:
        return None
    mhz = []
    for policy in policies:
        clocks = [s.cpufreq.get(policy) for s in read]
        mhz.append(
            tuple(None if c is None or c.cur_khz is None else c.cur_khz / 1000 for c in clocks)
        )
    return ClockTimeline(tuple(round(s.t, 3) for s in read), policies, tuple(mhz))


def throttle_timeline(snapshots: Sequence[Snapshot]) -> ThrottleTimeline | None:
    """The firmware's throttling bits over the trial; None where it was never read."""
    read = [s for s in snapshots if s.throttled is not None]
    if not read:
        return None
    return ThrottleTimeline(
        tuple(round(s.t, 3) for s in read), tuple(s.throttled or 0 for s in read)
    )


def cpu_timeline(snapshots: Sequence[Snapshot]) -> CpuTimeline | None:
    """The per-core series of the snapshots; None where there is none, or where the cores
    were not read at the same moments (they could not share one time axis)."""
    series = core_series(snapshots)
    if not series or not series[0].t or any(s.t != series[0].t for s in series):
        return None

    # Rounded as the HTML report draws them: 0.1 % is finer than a tick of CPU time (1 %
    # of a core over a second), and 1 ms finer than the sampler's clock.
    def percent(values: Sequence[float]) -> tuple[float, ...]:
        return tuple(round(value, 1) for value in values)

    return CpuTimeline(
        t=tuple(round(t, 3) for t in series[0].t),
        cpus=tuple(s.cpu for s in series),
        user=tuple(percent([x.user + x.nice for x in s.shares]) for s in series),
        system=tuple(percent([x.system + x.irq for x in s.shares]) for s in series),
        softirq=tuple(percent([x.softirq for x in s.shares]) for s in series),
    )
