"""One trial's samples in a few numbers: who was busy, with what, and what went wrong.

Shares of a core are percentages of that core's time (100 % = one core fully busy);
rates are per second over the sampled span (first to last snapshot).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from wirespeed.sampling import codec
from wirespeed.sampling.model import SampleSet, Snapshot, ThermalZone
from wirespeed.sampling.power import during
from wirespeed.sampling.series import CPU_STATES, CpuShare, core_series, cpu_share, grown
from wirespeed.sampling.timelines import (
    ClockTimeline,
    CpuTimeline,
    PowerTimeline,
    ThrottleTimeline,
    clock_timeline,
    cpu_timeline,
    power_timeline,
    throttle_timeline,
)

# 2: adds cpu_timeline (version 1 summaries decode with None there).
# 3: adds power_timeline and throttled (older summaries decode with None and ()).
# 4: adds clock_timeline and throttle_timeline (older summaries decode with None).
SUMMARY_VERSION = 4

Ends = tuple[Snapshot, Snapshot]


@dataclass(frozen=True)
class CoreLoad:
    cpu: int
    busy_pct: float
    user_pct: float
    nice_pct: float
    system_pct: float
    irq_pct: float
    softirq_pct: float
    iowait_pct: float
    steal_pct: float
    peak_busy_pct: float  # the busiest single interval
    interrupts_per_s: float  # numbered (device) IRQs handled on this CPU
    net_rx_per_s: float  # NET_RX softirqs run on this CPU


@dataclass(frozen=True)
class IrqOnCore:
    irq: str
    name: str
    per_s: float


@dataclass(frozen=True)
class BusiestCore:
    cpu: int
    busy_pct: float
    dominant: str  # the state that took most of it: "softirq", "system", "user", ...
    dominant_pct: float
    irqs: tuple[IrqOnCore, ...]  # device IRQs that fired on it, most frequent first


@dataclass(frozen=True)
class IrqRate:
    irq: str
    name: str
    chip: str
    per_cpu_per_s: tuple[float, ...]  # in the order of MonitorSummary.cpus
    per_s: float


@dataclass(frozen=True)
class NicInterrupts:
    interface: str
    irqs: tuple[IrqRate, ...]
    per_cpu_per_s: tuple[float, ...]  # all its IRQs, in the order of MonitorSummary.cpus


@dataclass(frozen=True)
class InterfaceTraffic:
    name: str
    rx_bytes: int
    tx_bytes: int
    rx_packets: int
    tx_packets: int
    rx_errors: int
    tx_errors: int
    rx_dropped: int
    tx_dropped: int
    rx_bits_per_s: float
    tx_bits_per_s: float


@dataclass(frozen=True)
class SoftnetCpu:
    cpu: int
    processed: int
    dropped: int
    time_squeeze: int


@dataclass(frozen=True)
class ZoneTemperature:
    zone: str
    type: str
    max_c: float
    first_trip_c: float | None  # the lowest trip point: where throttling starts


@dataclass(frozen=True)
class ClockRange:
    policy: str
    cpus: tuple[int, ...]
    min_khz: int  # lowest clock seen
    max_khz: int  # highest clock seen
    hardware_max_khz: int | None  # what the policy could reach (cpuinfo_max_freq)


@dataclass(frozen=True)
class SensorRange:
    sensor: str  # "hwmon0/power1"
    label: str  # "ina219 vdd" where the driver names it
    min: float
    max: float
    mean: float


@dataclass(frozen=True)
class ProcessLoad:
    pid: int
    comm: str
    core_pct: float  # percent of one core over the sampled span


@dataclass(frozen=True)
class KernelEvent:
    t: float
    event: str | None
    level: int
    message: str


@dataclass(frozen=True)
class MonitorSummary:
    host: str
    duration_s: float
    ticks: int
    interval_s: float
    partial: bool
    reason: str | None
    cpus: tuple[int, ...]
    cores: tuple[CoreLoad, ...]
    busiest: BusiestCore | None
    net_rx_share_pct: tuple[float, ...]  # of all NET_RX softirqs, per CPU (cpus' order)
    net_tx_share_pct: tuple[float, ...]
    nics: tuple[NicInterrupts, ...]
    interfaces: tuple[InterfaceTraffic, ...]
    softnet: tuple[SoftnetCpu, ...]
    temperature_max_c: float | None
    thermal: tuple[ZoneTemperature, ...]
    clocks: tuple[ClockRange, ...]
    sensors: tuple[SensorRange, ...]
    memory_available_min_bytes: int | None
    load_max: float | None
    processes: tuple[ProcessLoad, ...]
    events: tuple[KernelEvent, ...]
    version: int = SUMMARY_VERSION
    # The interval asked for where the host could not keep it (interval_s is the one
    # kept): busybox without fractional sleep samples every whole second.
    requested_interval_s: float | None = None
    cpu_timeline: CpuTimeline | None = None
    power_timeline: PowerTimeline | None = None
    # What a Raspberry Pi's firmware reported during the trial (vcgencmd get_throttled):
    # "under-voltage", "arm frequency capped", "throttled", "soft temperature limit".
    throttled: tuple[str, ...] = ()
    clock_timeline: ClockTimeline | None = None
    throttle_timeline: ThrottleTimeline | None = None

    def to_json(self) -> str:
        return codec.dumps(self)

    @classmethod
    def from_json(cls, text: str) -> MonitorSummary:
        return codec.loads(cls, text)

    def core(self, cpu: int) -> CoreLoad | None:
        return next((core for core in self.cores if core.cpu == cpu), None)

    def nic(self, interface: str) -> NicInterrupts | None:
        return next((nic for nic in self.nics if nic.interface == interface), None)


def _ends(snapshots: Sequence[Snapshot], has: Callable[[Snapshot], bool]) -> Ends | None:
    """The first and the last snapshot that read a source: a short interval reads only
    /proc/stat every tick, so each counter spans its own readings (the sampler's first
    and last ticks read everything)."""
    having = [snapshot for snapshot in snapshots if has(snapshot)]
    return (having[0], having[-1]) if having else None


def _seconds(ends: Ends | None) -> float:
    return ends[1].t - ends[0].t if ends is not None else 0.0


def _irq_rates(ends: Ends | None, cpus: Sequence[int]) -> dict[str, IrqRate]:
    """Per-CPU rates of every per-CPU interrupt line between two snapshots."""
    seconds = _seconds(ends)
    if ends is None or seconds <= 0:
        return {}
    first, last = ends[0].interrupts, ends[1].interrupts
    if first is None or last is None:
        return {}
    rates: dict[str, IrqRate] = {}
    for line in last.lines:
        before = first.line(line.irq)
        if before is None:
            continue
        now = last.per_cpu(line)
        then = first.per_cpu(before)
        if not now:
            continue  # ERR:, MIS: count for the whole machine
        per_cpu = tuple(grown(then.get(cpu, 0), now.get(cpu, 0)) / seconds for cpu in cpus)
        rates[line.irq] = IrqRate(line.irq, line.name, line.chip, per_cpu, sum(per_cpu))
    return rates


def _nic_irqs(
    interfaces: Sequence[str],
    rates: Mapping[str, IrqRate],
    mapping: Mapping[str, Sequence[str]] | None,
    cpus: Sequence[int],
) -> tuple[NicInterrupts, ...]:
    """Each interface's IRQs: from the mapping, else those whose handler names it
    ("eth0", "eth0-rx-0", but not "eth01")."""
    result = []
    for interface in interfaces:
        if mapping is not None and interface in mapping:
            irqs = [rates[irq] for irq in mapping[interface] if irq in rates]
        else:
            pattern = re.compile(rf"(?<![\w.]){re.escape(interface)}(?![\w])")
            irqs = [
                rate
                for rate in rates.values()
                if rate.irq.isdigit() and pattern.search(rate.name) is not None
            ]
        if irqs:
            per_cpu = tuple(sum(rate.per_cpu_per_s[i] for rate in irqs) for i in range(len(cpus)))
            result.append(NicInterrupts(interface, tuple(irqs), per_cpu))
    return tuple(result)


def _shares(counts: Sequence[int]) -> tuple[float, ...]:
    total = sum(counts)
    return tuple(100.0 * count / total if total else 0.0 for count in counts)


def _softirq_deltas(ends: Ends | None, kind: str, cpus: Sequence[int]) -> list[int]:
    first = ends[0].softirqs if ends is not None else None
    last = ends[1].softirqs if ends is not None else None
    if first is None or last is None:
        return [0 for _ in cpus]
    before = first.per_cpu(kind)
    after = last.per_cpu(kind)
    return [grown(before.get(cpu, 0), after.get(cpu, 0)) for cpu in cpus]


def _user_hz(ends: Ends | None) -> float:
    """Ticks per second per CPU as /proc/stat counted them (USER_HZ, 100 nearly always)."""
    if ends is None:
        return 100.0
    first, last = ends
    seconds = last.t - first.t
    if first.cpu_total is None or last.cpu_total is None or seconds <= 0 or not last.cpus:
        return 100.0
    measured = grown(first.cpu_total.total, last.cpu_total.total) / len(last.cpus) / seconds
    return measured if measured > 0 else 100.0


def _processes(
    snapshots: Sequence[Snapshot], hz: float, threshold_pct: float
) -> tuple[ProcessLoad, ...]:
    scans = [snapshot for snapshot in snapshots if snapshot.processes is not None]
    if len(scans) < 2:
        return ()
    seconds = scans[-1].t - scans[0].t
    if seconds <= 0:
        return ()
    ticks: dict[int, int] = {}
    names: dict[int, str] = {}
    for scan in scans[1:]:  # the first scan's ticks were spent before the span began
        for process in scan.processes or ():
            ticks[process.pid] = ticks.get(process.pid, 0) + process.ticks
            names[process.pid] = process.comm
    loads = [
        ProcessLoad(pid, names[pid], 100.0 * used / hz / seconds) for pid, used in ticks.items()
    ]
    return tuple(
        sorted(
            (load for load in loads if load.core_pct >= threshold_pct),
            key=lambda load: -load.core_pct,
        )
    )


def _cores(
    snapshots: Sequence[Snapshot],
    cpus: Sequence[int],
    rates: Mapping[str, IrqRate],
    softirqs: Ends | None,
) -> list[CoreLoad]:
    first, last = snapshots[0], snapshots[-1]
    series = {item.cpu: item for item in core_series(snapshots)}
    net_rx = _softirq_deltas(softirqs, "NET_RX", cpus)
    seconds = _seconds(softirqs)
    cores = []
    for index, cpu in enumerate(cpus):
        share: CpuShare | None = None
        if cpu in first.cpus and cpu in last.cpus:
            share = cpu_share(first.cpus[cpu], last.cpus[cpu])
        if share is None:
            continue
        device_irqs = sum(
            rate.per_cpu_per_s[index] for rate in rates.values() if rate.irq.isdigit()
        )
        cores.append(
            CoreLoad(
                cpu=cpu,
                busy_pct=share.busy,
                user_pct=share.user,
                nice_pct=share.nice,
                system_pct=share.system,
                irq_pct=share.irq,
                softirq_pct=share.softirq,
                iowait_pct=share.iowait,
                steal_pct=share.steal,
                peak_busy_pct=max(series[cpu].busy, default=share.busy),
                interrupts_per_s=device_irqs,
                net_rx_per_s=net_rx[index] / seconds if seconds > 0 else 0.0,
            )
        )
    return cores


def _busiest(
    cores: Sequence[CoreLoad], cpus: Sequence[int], rates: Mapping[str, IrqRate]
) -> BusiestCore | None:
    if not cores:
        return None
    top = max(cores, key=lambda core: core.busy_pct)
    share_of = {state: getattr(top, f"{state}_pct") for state in CPU_STATES}
    dominant = max(share_of, key=lambda state: share_of[state])
    index = cpus.index(top.cpu)
    on_core = sorted(
        (
            IrqOnCore(rate.irq, rate.name, rate.per_cpu_per_s[index])
            for rate in rates.values()
            if rate.irq.isdigit() and rate.per_cpu_per_s[index] > 0
        ),
        key=lambda irq: -irq.per_s,
    )
    return BusiestCore(top.cpu, top.busy_pct, dominant, share_of[dominant], tuple(on_core))


def _interfaces(ends: Ends | None) -> list[InterfaceTraffic]:
    first = ends[0].netdev if ends is not None else None
    last = ends[1].netdev if ends is not None else None
    if first is None or last is None:
        return []
    seconds = _seconds(ends)
    interfaces = []
    for name, after in last.items():
        before = first.get(name)
        if before is None or name == "lo":
            continue
        rx_bytes = grown(before.rx_bytes, after.rx_bytes)
        tx_bytes = grown(before.tx_bytes, after.tx_bytes)
        interfaces.append(
            InterfaceTraffic(
                name=name,
                rx_bytes=rx_bytes,
                tx_bytes=tx_bytes,
                rx_packets=grown(before.rx_packets, after.rx_packets),
                tx_packets=grown(before.tx_packets, after.tx_packets),
                rx_errors=grown(before.rx_errors, after.rx_errors),
                tx_errors=grown(before.tx_errors, after.tx_errors),
                rx_dropped=grown(before.rx_dropped, after.rx_dropped),
                tx_dropped=grown(before.tx_dropped, after.tx_dropped),
                rx_bits_per_s=8.0 * rx_bytes / seconds if seconds > 0 else 0.0,
                tx_bits_per_s=8.0 * tx_bytes / seconds if seconds > 0 else 0.0,
            )
        )
    return interfaces


def _softnet(ends: Ends | None) -> list[SoftnetCpu]:
    first = ends[0].softnet if ends is not None else None
    last = ends[1].softnet if ends is not None else None
    if first is None or last is None:
        return []
    before_by_cpu = {counters.cpu: counters for counters in first}
    softnet = []
    for now in last:
        was = before_by_cpu.get(now.cpu)
        if was is not None:
            softnet.append(
                SoftnetCpu(
                    now.cpu,
                    grown(was.processed, now.processed),
                    grown(was.dropped, now.dropped),
                    grown(was.time_squeeze, now.time_squeeze),
                )
            )
    return softnet


def _thermal(samples: SampleSet) -> list[ZoneTemperature]:
    snapshots = samples.snapshots
    thermal = []
    for zone in samples.info.thermal_zones or tuple(
        _unnamed_zone(name) for name in sorted({z for s in snapshots for z in s.temperatures})
    ):
        readings = [s.temperatures[zone.name] for s in snapshots if zone.name in s.temperatures]
        if readings:
            trip = min((temperature for _, temperature in zone.trips), default=None)
            thermal.append(ZoneTemperature(zone.name, zone.type, max(readings), trip))
    return thermal


def _clocks(samples: SampleSet) -> list[ClockRange]:
    snapshots = samples.snapshots
    clocks = []
    hardware = {policy.name: policy for policy in samples.info.policies}
    for policy in sorted({p for s in snapshots for p in s.cpufreq}):
        seen = [
            s.cpufreq[policy].cur_khz
            for s in snapshots
            if policy in s.cpufreq and s.cpufreq[policy].cur_khz is not None
        ]
        values = [value for value in seen if value is not None]
        if values:
            known = hardware.get(policy)
            clocks.append(
                ClockRange(
                    policy,
                    known.cpus if known else (),
                    min(values),
                    max(values),
                    known.hardware_max_khz if known else None,
                )
            )
    return clocks


def _sensors(samples: SampleSet) -> list[SensorRange]:
    snapshots = samples.snapshots
    sensors = []
    for sensor in sorted({key for s in snapshots for key in s.hwmon}):
        measured = [s.hwmon[sensor] for s in snapshots if sensor in s.hwmon]
        device = samples.info.hwmon_names.get(sensor.partition("/")[0], "")
        label = " ".join(
            part for part in (device, samples.info.hwmon_labels.get(sensor, "")) if part
        )
        sensors.append(
            SensorRange(sensor, label, min(measured), max(measured), sum(measured) / len(measured))
        )
    return sensors


def summarize(
    samples: SampleSet,
    *,
    nic_irqs: Mapping[str, Sequence[str]] | None = None,
    process_threshold_pct: float = 2.0,
) -> MonitorSummary:
    """Summarize a trial's samples.

    nic_irqs maps an interface to its IRQ numbers where the handler names do not say
    (a USB NIC behind "xhci-hcd:usb4"); without it IRQs are matched by name. Shares of
    a core span the first and last snapshots; each counter (interrupts, softirqs,
    interfaces, softnet) spans the first and last snapshots that read it.
    """
    snapshots = samples.snapshots
    # /proc/stat lists online CPUs; /proc/interrupts too, and is enough on its own.
    cpus = tuple(
        sorted(
            {cpu for snapshot in snapshots for cpu in snapshot.cpus}
            | {cpu for s in snapshots if s.interrupts is not None for cpu in s.interrupts.cpus}
        )
    )
    span = (snapshots[0], snapshots[-1]) if snapshots else None
    softirqs = _ends(snapshots, lambda s: s.softirqs is not None)
    rates = _irq_rates(_ends(snapshots, lambda s: s.interrupts is not None), cpus)
    cores = _cores(snapshots, cpus, rates, softirqs) if snapshots else []
    interfaces = _interfaces(_ends(snapshots, lambda s: s.netdev is not None))
    thermal = _thermal(samples)
    last_names = {interface.name for interface in interfaces}
    available = [s.memory["MemAvailable"] for s in snapshots if "MemAvailable" in s.memory]
    loads = [s.load[0] for s in snapshots if s.load is not None]
    return MonitorSummary(
        host=samples.host,
        duration_s=_seconds(span),
        ticks=len(snapshots),
        interval_s=samples.interval,
        partial=samples.partial,
        reason=samples.reason,
        cpus=cpus,
        cores=tuple(cores),
        busiest=_busiest(cores, cpus, rates),
        net_rx_share_pct=_shares(_softirq_deltas(softirqs, "NET_RX", cpus) if span else []),
        net_tx_share_pct=_shares(_softirq_deltas(softirqs, "NET_TX", cpus) if span else []),
        nics=_nic_irqs(
            [i.name for i in interfaces] + [n for n in nic_irqs or {} if n not in last_names],
            rates,
            nic_irqs,
            cpus,
        ),
        interfaces=tuple(interfaces),
        softnet=tuple(_softnet(_ends(snapshots, lambda s: s.softnet is not None))),
        temperature_max_c=max((zone.max_c for zone in thermal), default=None),
        thermal=tuple(thermal),
        clocks=tuple(_clocks(samples)),
        sensors=tuple(_sensors(samples)),
        memory_available_min_bytes=min(available, default=None),
        load_max=max(loads, default=None),
        processes=_processes(snapshots, _user_hz(span), process_threshold_pct),
        events=tuple(
            KernelEvent(line.t, line.event, line.level, line.message) for line in samples.kernel
        ),
        requested_interval_s=samples.requested_interval,
        cpu_timeline=cpu_timeline(snapshots),
        power_timeline=power_timeline(samples),
        throttled=_throttled(snapshots),
        clock_timeline=clock_timeline(snapshots),
        throttle_timeline=throttle_timeline(snapshots),
    )


def _throttled(snapshots: Sequence[Snapshot]) -> tuple[str, ...]:
    readings = [s.throttled for s in snapshots if s.throttled is not None]
    return during(readings[0], readings) if readings else ()


def _unnamed_zone(name: str) -> ThermalZone:
    """A zone whose type file was not readable: known by its directory's name."""
    return ThermalZone(name, "")
