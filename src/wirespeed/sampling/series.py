"""Deltas between snapshots: CPU shares per core over time, counter rates.

Counters only grow, except when they wrap (32-bit counters on old kernels) or a
device is removed and comes back: a negative delta counts as zero instead of as a
huge jump.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.sampling.model import CpuTimes, Snapshot

CPU_STATES = ("user", "nice", "system", "irq", "softirq", "iowait", "steal")


def grown(before: int, after: int) -> int:
    return max(after - before, 0)


@dataclass(frozen=True)
class CpuShare:
    """Percent of one interval a CPU spent in each state; busy excludes idle and iowait."""

    busy: float
    user: float
    nice: float
    system: float
    irq: float
    softirq: float
    iowait: float
    steal: float

    def state(self, name: str) -> float:
        values = {
            "user": self.user,
            "nice": self.nice,
            "system": self.system,
            "irq": self.irq,
            "softirq": self.softirq,
            "iowait": self.iowait,
            "steal": self.steal,
        }
        return values[name]


def cpu_share(before: CpuTimes, after: CpuTimes) -> CpuShare | None:
    """The share of each state between two readings; None if no time passed."""
    elapsed = grown(before.total, after.total)
    if elapsed == 0:
        return None

    def percent(field: str) -> float:
        return 100.0 * grown(getattr(before, field), getattr(after, field)) / elapsed

    busy = 100.0 * grown(before.busy, after.busy) / elapsed
    return CpuShare(
        busy=min(busy, 100.0),
        user=percent("user"),
        nice=percent("nice"),
        system=percent("system"),
        irq=percent("irq"),
        softirq=percent("softirq"),
        iowait=percent("iowait"),
        steal=percent("steal"),
    )


@dataclass(frozen=True)
class CoreSeries:
    """One CPU's shares per interval; t is each interval's end."""

    cpu: int
    t: tuple[float, ...]
    shares: tuple[CpuShare, ...]

    @property
    def busy(self) -> tuple[float, ...]:
        return tuple(share.busy for share in self.shares)

    @property
    def softirq(self) -> tuple[float, ...]:
        return tuple(share.softirq for share in self.shares)


def core_series(snapshots: Sequence[Snapshot]) -> tuple[CoreSeries, ...]:
    """Per-core CPU shares between consecutive snapshots."""
    cpus = sorted({cpu for snapshot in snapshots for cpu in snapshot.cpus})
    result = []
    for cpu in cpus:
        times: list[float] = []
        shares: list[CpuShare] = []
        for before, after in itertools.pairwise(snapshots):
            if cpu not in before.cpus or cpu not in after.cpus:
                continue  # offline for a while: hotplug or a frozen core
            share = cpu_share(before.cpus[cpu], after.cpus[cpu])
            if share is not None:
                times.append(after.t)
                shares.append(share)
        result.append(CoreSeries(cpu, tuple(times), tuple(shares)))
    return tuple(result)


@dataclass(frozen=True)
class RateSeries:
    """A counter's rate per second per interval; t is each interval's end."""

    name: str
    t: tuple[float, ...]
    per_second: tuple[float, ...]


def interface_rx_bits(snapshots: Sequence[Snapshot], interface: str) -> RateSeries:
    """Received bit/s of one interface, between the snapshots that read /proc/net/dev."""
    times: list[float] = []
    rates: list[float] = []
    read = [snapshot for snapshot in snapshots if snapshot.netdev is not None]
    for before, after in itertools.pairwise(read):
        first = before.netdev.get(interface) if before.netdev is not None else None
        last = after.netdev.get(interface) if after.netdev is not None else None
        seconds = after.t - before.t
        if first is None or last is None or seconds <= 0:
            continue
        times.append(after.t)
        rates.append(8.0 * grown(first.rx_bytes, last.rx_bytes) / seconds)
    return RateSeries(interface, tuple(times), tuple(rates))
