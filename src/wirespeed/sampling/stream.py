"""The sampler's output stream, parsed into snapshots.

The format (version 3), one record per line; lines that start with "@@" are markers,
every other line belongs to the file named by the last "@@file" or "@@diff":

    @@wirespeed-sampler 3                     the format version
    @@start UPTIME EPOCH INTERVAL MAX_RUNTIME REQUESTED WAIT
                                              device clocks at the start; INTERVAL is the
                                              one kept, REQUESTED the one asked for (a
                                              host that cannot wait a fraction of a
                                              second ticks every whole second), WAIT how
                                              it waits: "read" (read -t) or "sleep"
    @@file /sys/class/thermal/thermal_zone0/type    files read once (names, limits)
    soc-thermal
    @@ready                                   the header is complete, and the sampler's
                                              shell has set its signal traps: a
                                              controller may signal it from here
    @@tick SEQ UPTIME                         every interval
    @@file /proc/stat                         a file whole: its first reading, or its
    cpu  68662 0 76548 ...                    number of lines changed (/proc/stat and
                                              /proc/meminfo are cut to the lines used)
    @@diff /proc/interrupts                   only what changed since its last reading:
    @@same 12                                 12 lines as they were,
     36:      0     859510 PCI-MSIX ...       a changed line; the lines after the last
                                              one written are as they were
    @@procs                                   every few seconds: processes that ran
    PID TICKS COMM                            since the last scan, ticks of user+system
    @@throttled 0x50005                       every few seconds and in the last tick,
                                              where `vcgencmd` exists (Raspberry Pi):
                                              the firmware's throttling bits
    @@end SEQ                                 the tick is complete
    @@kmsg SEQ USEC LEVEL MESSAGE             a kernel log record, whenever written
    @@exit REASON                             "stopped" (SIGTERM: the last tick read
                                              everything), "max-runtime" or "feed-ended"

/proc/stat is in every tick; the other counters (interrupts, softirqs, net/dev,
softnet_stat) and the gauges (meminfo, loadavg, thermal, cpufreq, hwmon) about once a
second and in the first and last ticks; the processes every few seconds and in the
last tick. A snapshot without a source did not read it then: not a zero.

Version 2 streams have no "@@throttled" (version 3 adds it); they parse the same way.
Version 1 streams (every file whole and in every tick, the processes about once a
second, no REQUESTED nor WAIT) parse the same way: they never use "@@diff".

A tick without its "@@end" (the sampler was stopped while writing) is dropped.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from wirespeed.sampling import procfs, sysfs
from wirespeed.sampling.events import classify
from wirespeed.sampling.model import DeviceInfo, KernelLine, ProcessTicks, Snapshot
from wirespeed.sampling.power import parse_throttled

FORMAT_VERSION = 3


@dataclass(frozen=True)
class ParsedStream:
    version: int | None = None
    start_uptime: float | None = None
    device_epoch: int | None = None
    interval: float | None = None  # the interval kept
    requested_interval: float | None = None  # the one asked for (version 2 on)
    wait: str | None = None  # how the sampler waited: "read" or "sleep" (version 2 on)
    info: DeviceInfo = field(default_factory=DeviceInfo)
    snapshots: tuple[Snapshot, ...] = ()
    kernel: tuple[KernelLine, ...] = ()
    ready: bool = False  # the header was complete
    exit_reason: str | None = None  # the sampler's own reason to stop, if it gave one

    @property
    def interval_raised(self) -> bool:
        """The host could not keep the interval asked for and sampled less often."""
        return (
            self.interval is not None
            and self.requested_interval is not None
            and self.interval > self.requested_interval
        )


def snapshot_from_files(
    seq: int,
    t: float,
    files: dict[str, str],
    processes: tuple[ProcessTicks, ...] | None = None,
    throttled: int | None = None,
) -> Snapshot:
    """A snapshot from the files read at one tick, keyed by their path on the device."""
    total, cpus = procfs.parse_stat(files.get("/proc/stat", ""))
    interrupts = files.get("/proc/interrupts")
    softirqs = files.get("/proc/softirqs")
    netdev = files.get("/proc/net/dev")
    softnet = files.get("/proc/net/softnet_stat")
    return Snapshot(
        seq=seq,
        t=t,
        cpu_total=total,
        cpus=cpus,
        interrupts=procfs.parse_interrupts(interrupts) if interrupts is not None else None,
        softirqs=procfs.parse_softirqs(softirqs) if softirqs is not None else None,
        netdev=procfs.parse_net_dev(netdev) if netdev is not None else None,
        softnet=procfs.parse_softnet_stat(softnet) if softnet is not None else None,
        memory=procfs.parse_meminfo(files.get("/proc/meminfo", "")),
        load=procfs.parse_loadavg(files.get("/proc/loadavg", "")),
        temperatures=sysfs.temperatures(files),
        cpufreq=sysfs.clocks(files),
        hwmon=sysfs.hwmon_readings(files),
        processes=processes,
        throttled=throttled,
    )


def _process_line(line: str) -> ProcessTicks | None:
    pid, _, rest = line.partition(" ")
    ticks, _, comm = rest.partition(" ")
    if not pid.isdigit() or not ticks.lstrip("-").isdigit():
        return None
    return ProcessTicks(int(pid), comm, int(ticks))


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


@dataclass
class _Reading:
    """One file as a tick wrote it: whole, or as a diff of its last reading. A diff's
    items are changed lines (str) and runs of unchanged ones (int)."""

    whole: bool
    items: list[str | int] = field(default_factory=list)

    def lines(self, last: list[str]) -> list[str]:
        if self.whole:
            return [item for item in self.items if isinstance(item, str)]
        result: list[str] = []
        for item in self.items:
            if isinstance(item, int):
                result += last[len(result) : len(result) + item]
            else:
                result.append(item)
        return result + last[len(result) :]


class _Reader:
    """Walks the stream once, line by line."""

    def __init__(self) -> None:
        self.version: int | None = None
        self.start_uptime: float | None = None
        self.device_epoch: int | None = None
        self.interval: float | None = None
        self.requested_interval: float | None = None
        self.wait: str | None = None
        self.once: dict[str, str] = {}
        self.ready = False
        self.exit_reason: str | None = None
        self.snapshots: list[Snapshot] = []
        self.kernel: list[KernelLine] = []
        # Each file's lines at its last reading: the base of its next diff.
        self.last: dict[str, list[str]] = {}
        # the tick being read
        self.tick: tuple[int, float] | None = None
        self.files: dict[str, _Reading] = {}
        self.processes: list[ProcessTicks] | None = None
        self.throttled: int | None = None
        self.current: _Reading | None = None  # the file being read
        self._handlers: dict[str, Callable[[str], None]] = {
            "wirespeed-sampler": self._on_version,
            "start": self._on_start,
            "file": self._on_file,
            "diff": self._on_diff,
            "same": self._on_same,
            "ready": self._on_ready,
            "tick": self._on_tick,
            "procs": self._on_procs,
            "end": self._on_end,
            "kmsg": self._on_kmsg,
            "throttled": self._on_throttled,
            "exit": self._on_exit,
        }

    def feed(self, line: str) -> None:
        if not line.startswith("@@"):
            if self.current is not None:
                self.current.items.append(line)
            elif self.processes is not None:
                process = _process_line(line)
                if process is not None:
                    self.processes.append(process)
            return
        marker, _, rest = line[2:].partition(" ")
        handler = self._handlers.get(marker)
        if handler is not None:
            handler(rest)

    def _on_version(self, rest: str) -> None:
        self.version = int(rest) if rest.strip().isdigit() else None

    def _on_start(self, rest: str) -> None:
        values = rest.split()
        self.start_uptime = float(values[0])
        self.device_epoch = int(values[1]) if len(values) > 1 and values[1].isdigit() else None
        self.interval = _float(values[2]) if len(values) > 2 else None
        self.requested_interval = _float(values[4]) if len(values) > 4 else None
        self.wait = values[5] if len(values) > 5 else None
        self.files = {}

    def _on_file(self, rest: str) -> None:
        self.current = self.files[rest] = _Reading(whole=True)

    def _on_diff(self, rest: str) -> None:
        self.current = self.files[rest] = _Reading(whole=False)

    def _on_same(self, rest: str) -> None:
        if self.current is not None and rest.strip().isdigit():
            self.current.items.append(int(rest))

    def _resolved(self) -> dict[str, str]:
        """The files of the tick (or header) just read, whole; each becomes the base of
        its next diff."""
        files: dict[str, str] = {}
        for path, reading in self.files.items():
            lines = reading.lines(self.last.get(path, []))
            self.last[path] = lines
            files[path] = "\n".join(lines)
        return files

    def _on_ready(self, _: str) -> None:
        self.once = self._resolved()
        self.ready = True
        self.files = {}
        self.current = None

    def _on_tick(self, rest: str) -> None:
        seq, _, uptime = rest.partition(" ")
        self._begin_tick((int(seq), float(uptime)))

    def _on_procs(self, _: str) -> None:
        self.current = None
        self.processes = []

    def _on_end(self, rest: str) -> None:
        if self.tick is not None and rest.strip() == str(self.tick[0]):
            seq, uptime = self.tick
            start = self.start_uptime if self.start_uptime is not None else uptime
            processes = tuple(self.processes) if self.processes is not None else None
            self.snapshots.append(
                snapshot_from_files(
                    seq, uptime - start, self._resolved(), processes, self.throttled
                )
            )
        self._begin_tick(None)

    def _begin_tick(self, tick: tuple[int, float] | None) -> None:
        """Forget what the last tick read: each tick's files, processes and throttling
        bits belong to that tick's snapshot only."""
        self.tick = tick
        self.files = {}
        self.processes = None
        self.throttled = None
        self.current = None

    def _on_throttled(self, rest: str) -> None:
        self.current = None
        self.throttled = parse_throttled(f"throttled={rest.strip()}")

    def _on_kmsg(self, rest: str) -> None:
        parts = rest.split(" ", 3)
        if len(parts) < 4:
            return
        _, usec, level, message = parts
        start = self.start_uptime or 0.0
        self.kernel.append(
            KernelLine(int(usec) / 1e6 - start, int(level), message, classify(message))
        )

    def _on_exit(self, rest: str) -> None:
        self.exit_reason = rest.strip() or None

    def result(self) -> ParsedStream:
        return ParsedStream(
            version=self.version,
            start_uptime=self.start_uptime,
            device_epoch=self.device_epoch,
            interval=self.interval,
            requested_interval=self.requested_interval,
            wait=self.wait,
            info=sysfs.device_info(self.once),
            snapshots=tuple(self.snapshots),
            kernel=tuple(self.kernel),
            ready=self.ready,
            exit_reason=self.exit_reason,
        )


def parse_stream(text: str | Iterable[str]) -> ParsedStream:
    """Parse the sampler's whole output (a string, or its lines)."""
    lines = text.splitlines() if isinstance(text, str) else text
    reader = _Reader()
    for line in lines:
        reader.feed(line.rstrip("\n"))
    return reader.result()
