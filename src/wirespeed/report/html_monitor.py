"""What the HTML report draws of a device's samples during one trial.

A small, plotting-shaped view of sampling.series and sampling.summary: per-core CPU
shares over time and the interrupt rate of each IRQ line on each CPU. The report shows a
section for these when it is given any, and says there are none otherwise.

Shares are percent of one core's time (100 = the core fully busy), as in
sampling.series.CpuShare; interrupt rates are per second over the trial, as in
sampling.summary.IrqRate. The page writes the times and shares as given: rounded as
sampling.summary.cpu_timeline rounds them (1 ms, 0.1 %), they are short.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.model import ModelError


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise ModelError(message)


def _finite(values: Sequence[float], what: str) -> None:
    # map: a report of 10,000 trials checks a million values.
    _require(all(map(math.isfinite, values)), f"{what}: not every value is finite")


@dataclass(frozen=True)
class CoreLoadSeries:
    """One CPU's shares per sample interval, aligned with DeviceSamples.t."""

    cpu: int
    user: tuple[float, ...]
    system: tuple[float, ...]
    softirq: tuple[float, ...]

    def __post_init__(self) -> None:
        lengths = {len(self.user), len(self.system), len(self.softirq)}
        _require(len(lengths) == 1, f"cpu {self.cpu}: user, system and softirq differ in length")
        for name in ("user", "system", "softirq"):
            _finite(getattr(self, name), f"cpu {self.cpu} {name}")


@dataclass(frozen=True)
class IrqDistribution:
    """One IRQ line's rate on each CPU: the CPUs in the order of DeviceSamples.cpus."""

    irq: str  # "27", "LOC", "IPI0"
    name: str  # the handlers: "eth0", "xhci-hcd:usb1"
    per_cpu_per_s: tuple[float, ...]

    def __post_init__(self) -> None:
        _finite(self.per_cpu_per_s, f"irq {self.irq}")
        _require(all(v >= 0 for v in self.per_cpu_per_s), f"irq {self.irq}: a negative rate")


@dataclass(frozen=True)
class DeviceSamples:
    """What the sampler saw on one host during one trial, ready to plot.

    trial: the Trial.key of the trial it belongs to (TrialDetail.outcome.trial.key).
    t: seconds since the trial started, the end of each sample interval.
    """

    trial: str
    host: str
    cpus: tuple[int, ...]
    t: tuple[float, ...]
    cores: tuple[CoreLoadSeries, ...]
    interrupts: tuple[IrqDistribution, ...] = ()
    role: str | None = None  # "dut", "client", "server"

    def __post_init__(self) -> None:
        _finite(self.t, f"{self.host} t")
        _require(
            all(map(operator.le, self.t, self.t[1:])),
            f"{self.host}: sample times go backwards",
        )
        for core in self.cores:
            _require(core.cpu in self.cpus, f"{self.host}: cpu {core.cpu} not in cpus")
            _require(
                len(core.user) == len(self.t),
                f"{self.host} cpu {core.cpu}: {len(core.user)} shares for {len(self.t)} times",
            )
        for line in self.interrupts:
            _require(
                len(line.per_cpu_per_s) == len(self.cpus),
                f"{self.host} irq {line.irq}: {len(line.per_cpu_per_s)} rates "
                f"for {len(self.cpus)} cpus",
            )
