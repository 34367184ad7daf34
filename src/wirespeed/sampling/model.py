"""What the sampler saw on a host: snapshots of counters, as frozen dataclasses.

Counters are kept as the kernel gives them (cumulative, in its units): deltas, rates and
percentages are computed by series.py and summary.py, so a snapshot can always be
compared with any other. Times are seconds on the device's own uptime clock, counted
from the sampler's start.

CPU times are in USER_HZ ticks (100 per second on every Linux of note); nothing here
needs the value, because shares are taken of the total ticks that passed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

# /proc/interrupts has one parser, shared with the facts: its IrqLine and InterruptTable
# live below both, in wirespeed.procfs_interrupts.
from wirespeed.procfs_interrupts import InterruptTable


@dataclass(frozen=True)
class CpuTimes:
    """One line of /proc/stat: ticks spent in each state since boot."""

    user: int = 0
    nice: int = 0
    system: int = 0
    idle: int = 0
    iowait: int = 0
    irq: int = 0
    softirq: int = 0
    steal: int = 0

    @property
    def total(self) -> int:
        return (
            self.user
            + self.nice
            + self.system
            + self.idle
            + self.iowait
            + self.irq
            + self.softirq
            + self.steal
        )

    @property
    def busy(self) -> int:
        """Ticks not idle: waiting for I/O is idle too, the CPU could have run."""
        return self.total - self.idle - self.iowait


@dataclass(frozen=True)
class SoftirqTable:
    cpus: tuple[int, ...]
    counts: Mapping[str, tuple[int, ...]]  # "NET_RX" -> per CPU column

    def per_cpu(self, kind: str) -> dict[int, int]:
        return dict(zip(self.cpus, self.counts.get(kind, ()), strict=False))


@dataclass(frozen=True)
class NetDevCounters:
    """One interface of /proc/net/dev."""

    rx_bytes: int
    rx_packets: int
    rx_errors: int
    rx_dropped: int
    tx_bytes: int
    tx_packets: int
    tx_errors: int
    tx_dropped: int


@dataclass(frozen=True)
class SoftnetCounters:
    """One CPU's line of /proc/net/softnet_stat."""

    cpu: int
    processed: int
    dropped: int  # the backlog queue was full (netdev_max_backlog)
    time_squeeze: int  # the NAPI budget or time ran out with work left


@dataclass(frozen=True)
class CpuFreq:
    """One cpufreq policy's clock in kHz: the current value and the limits now."""

    cur_khz: int | None = None
    min_khz: int | None = None
    max_khz: int | None = None


@dataclass(frozen=True)
class ProcessTicks:
    """CPU ticks (user + system) one process used since the previous process scan."""

    pid: int
    comm: str
    ticks: int


@dataclass(frozen=True)
class Snapshot:
    """Everything read at one tick.

    A short interval reads /proc/stat every tick and the rest about once a second: None
    (or an empty mapping, for the gauges) is a source not read at this tick, not a zero.
    """

    seq: int
    t: float  # seconds since the sampler started, device uptime clock
    cpu_total: CpuTimes | None = None
    cpus: Mapping[int, CpuTimes] = field(default_factory=dict)
    interrupts: InterruptTable | None = None
    softirqs: SoftirqTable | None = None
    netdev: Mapping[str, NetDevCounters] | None = None
    softnet: tuple[SoftnetCounters, ...] | None = None
    memory: Mapping[str, int] = field(default_factory=dict)  # meminfo key -> bytes
    load: tuple[float, float, float] | None = None
    temperatures: Mapping[str, float] = field(default_factory=dict)  # zone -> deg C
    cpufreq: Mapping[str, CpuFreq] = field(default_factory=dict)  # "policy4" -> clock
    hwmon: Mapping[str, float] = field(default_factory=dict)  # "hwmon0/power1" -> W, A, V, C
    processes: tuple[ProcessTicks, ...] | None = None  # None: no scan at this tick
    # vcgencmd get_throttled's bits (sampling/power.py); None: not read at this tick
    throttled: int | None = None


@dataclass(frozen=True)
class ThermalZone:
    name: str  # "thermal_zone0"
    type: str  # "soc-thermal"
    trips: tuple[tuple[str, float], ...] = ()  # (type, deg C): ("passive", 70.0)


@dataclass(frozen=True)
class CpufreqPolicy:
    name: str  # "policy4"
    cpus: tuple[int, ...]
    hardware_min_khz: int | None = None
    hardware_max_khz: int | None = None


@dataclass(frozen=True)
class DeviceInfo:
    """What the sampler read once, at its start: names and limits."""

    thermal_zones: tuple[ThermalZone, ...] = ()
    policies: tuple[CpufreqPolicy, ...] = ()
    hwmon_names: Mapping[str, str] = field(default_factory=dict)  # "hwmon0" -> "ina219"
    hwmon_labels: Mapping[str, str] = field(default_factory=dict)  # "hwmon0/in1" -> "vdd"


@dataclass(frozen=True)
class KernelLine:
    """A kernel log record written while the sampler ran."""

    t: float  # seconds since the sampler started (the kernel's monotonic clock)
    level: int  # 0 emerg ... 7 debug
    message: str
    event: str | None = None  # a known event (events.py), or None


@dataclass(frozen=True)
class SampleSet:
    """A sampler's whole output for one trial.

    partial: the stream ended before it was stopped (the host or the sampler died, or
    the sampler reached its max runtime), or it never produced a tick; `reason` says
    which. The raw text is kept so that parsing can be redone.

    interval is the one the sampler kept; requested_interval the one asked for, where
    the host could not keep it (busybox without fractional sleep samples every whole
    second), else None.
    """

    host: str
    interval: float
    start_uptime: float  # the device's /proc/uptime when the sampler started
    device_epoch: int | None  # the device's wall clock then (may be wrong: no RTC, no NTP)
    info: DeviceInfo
    snapshots: tuple[Snapshot, ...]
    kernel: tuple[KernelLine, ...] = ()
    partial: bool = False
    reason: str | None = None
    raw: str = ""
    requested_interval: float | None = None

    @property
    def interval_raised(self) -> bool:
        return self.requested_interval is not None and self.requested_interval < self.interval

    @property
    def duration(self) -> float:
        if len(self.snapshots) < 2:
            return 0.0
        return self.snapshots[-1].t - self.snapshots[0].t
