"""Run a soak: the probe stream chunk after chunk, the DUT's kernel log and counters
beside it, faults and load bursts on their schedules; each chunk committed as it ends.

The loop, per chunk: start the next chunk's irtt as this one sends its last probe (or
keep trying while the path is down: stream.start_when_up); then wait for this chunk's
irtt to end, parse it, and commit it with what the DUT's follower (soak/device.py) saw
meanwhile: kernel lines, `ethtool -S` counters, the device not answering or
restarting. The follower runs in a thread of its own: nothing in this loop waits for
the DUT's management plane, so a device that freezes never holds the stream up.

On Ctrl-C, SIGTERM or an error every process is stopped, every fault undone, the
committed chunks kept; the chunk in progress is lost (irtt writes its JSON only at its
end), so a chunk's length is what an interruption costs.
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.lab.lab import Lab
from wirespeed.soak import memory, records
from wirespeed.soak.chunk import ChunkProbes, blind_chunk, parse_chunk
from wirespeed.soak.device import DeviceFollower, Taken
from wirespeed.soak.faults import Fault, FaultSchedule
from wirespeed.soak.outages import Outage, find_outages
from wirespeed.soak.plan import SoakEntry
from wirespeed.soak.stream import (
    IrttServer,
    Started,
    discard,
    output_path,
    start_chunk,
    start_when_up,
    wait_held,
)
from wirespeed.store import Store

__all__ = ["Progress", "SoakHosts", "ethtool_counters", "run_soak", "softnet_dropped"]

# irtt waits for late answers after its last probe: three times the largest round trip,
# or 1 s without any answer; and then writes 2.4 MB of JSON per minute of probes.
FINISH_MARGIN = 15.0
COUNTER_PATTERN = re.compile(r"timeout|restart|reset|hang|link|err|drop|miss|fifo|carrier")
NO_PROBES = ChunkProbes(None, None, 0, 0, 0, 0, ())
# How long a chunk's commit waits for the DUT's follower to have read the chunk's kernel
# lines and counters: the next chunk's stream runs meanwhile; a silent device is never
# waited for longer.
ROTATION_WAIT = 3.0


@dataclass
class SoakHosts:
    client: Host
    server: Host
    target: str  # the address the client's probes go to
    dut: Host | None  # whose kernel log and counters are followed
    fault_host: Host | None = None  # the lab DUT's namespace, where faults are injected
    lab: str | None = None
    built_lab: Lab | None = None  # the lab itself, whose links a variant sets
    fault_interface: str = "wan"
    fault_family: str = "ip"
    burst_target: str | None = None
    # Lab names passed over because live processes held them, with their owners.
    passed_over: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class Progress:
    watched: float
    duration: float
    outages: Sequence[Outage]
    chunks: int


@dataclass
class _Bursts:
    """iperf3 load from client to server every `every` s for `duration` s, from a thread."""

    hosts: SoakHosts
    every: float
    duration: float
    parallel: int
    origin: float
    done: list[tuple[float, float]] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._server = self.hosts.server.start(["iperf3", "-s"])
        self._thread = threading.Thread(target=self._run, name="soak-bursts", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        target = self.hosts.burst_target or self.hosts.target
        at = self.every
        while not self._stop.wait(max(0.0, self.origin + at - time.time())):
            start = time.time()
            process = self.hosts.client.start(
                ["iperf3", "-c", target, "-t", f"{self.duration:g}", "-P", str(self.parallel)]
            )
            while process.poll() is None and not self._stop.wait(0.2):
                pass
            if process.poll() is None:
                process.stop(grace=0.5)
            elif process.poll() != 0:
                self.errors.append(f"a load burst failed: {process.stderr().strip()[-200:]}")
            self.done.append((start, time.time()))
            at += self.every

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        self._server.stop(grace=0.5)


def ethtool_counters(text: str) -> dict[str, int]:
    found: dict[str, int] = {}
    for line in text.splitlines():
        name, _, value = line.strip().rpartition(": ")
        if name and value.strip().lstrip("-").isdigit():
            found[name.strip()] = int(value)
    return found


def softnet_dropped(text: str) -> int:
    """/proc/net/softnet_stat -> packets dropped because a CPU's backlog was full (the
    second column, hex, summed over the CPUs): loss inside the DUT that no interface
    counts."""
    return sum(int(line.split()[1], 16) for line in text.splitlines() if len(line.split()) > 1)


class _Counters:
    """`ethtool -S` of the DUT's interfaces: what changed since the last read; and the
    DUT's softnet backlog drops (as "softnet": {"dropped": N})."""

    def __init__(self, host: Host | None, interfaces: Sequence[str]) -> None:
        self.host = host if host is not None and host.which("ethtool") else None
        self.interfaces = list(interfaces)
        self.last: dict[str, dict[str, int]] = {}
        self.softnet_host = host
        self.softnet = self._softnet()
        self.read()

    def _softnet(self) -> int | None:
        if self.softnet_host is None:
            return None
        try:
            return softnet_dropped(self.softnet_host.read_file("/proc/net/softnet_stat"))
        except Exception:
            return None

    def read(self) -> dict[str, dict[str, int]]:
        deltas: dict[str, dict[str, int]] = {}
        softnet = self._softnet()
        if softnet is not None and self.softnet is not None and softnet > self.softnet:
            deltas["softnet"] = {"dropped": softnet - self.softnet}
        self.softnet = softnet if softnet is not None else self.softnet
        if self.host is None:
            return deltas
        for interface in self.interfaces:
            try:
                result = self.host.run(["ethtool", "-S", interface], timeout=10)
            except Exception:  # noqa: S112 - a counter read never stops a soak
                continue
            if result.returncode != 0:
                continue
            now = ethtool_counters(result.stdout)
            before = self.last.get(interface)
            self.last[interface] = now
            if before is None:
                continue
            changed = {
                name: now[name] - before.get(name, 0)
                for name in now
                if COUNTER_PATTERN.search(name) and now[name] != before.get(name, 0)
            }
            if changed:
                deltas[interface] = changed
        return deltas


def _remove(host: Host, path: str) -> None:
    with contextlib.suppress(Exception):
        host.run(["rm", "-f", path], timeout=10)


class _Soak:
    def __init__(
        self,
        store: Store,
        *,
        soak_id: int,
        settings: SoakEntry,
        hosts: SoakHosts,
        watched: float,
        position: int,
        progress: Callable[[Progress], None],
    ) -> None:
        self.store = store
        self.soak_id = soak_id
        self.settings = settings
        self.hosts = hosts
        self.watched = watched
        self.position = position
        self.progress = progress
        self.interval_ns = round(settings.interval * 1e9)
        self.kept: list[ChunkProbes] = []  # runs only: chunks without loss are NO_PROBES
        self.outages: list[Outage] = []
        self.faults_told = 0
        self.bursts_told = 0
        self.notes: list[str] = []
        self.blind_since: float | None = None
        self.schedule: FaultSchedule | None = None

    # -- the pieces of one chunk ------------------------------------------------------

    def _keep(self, chunk: records.ChunkRecord) -> None:
        records.add_chunk(self.store, self.soak_id, chunk)
        memory.trim()
        self.position += 1
        self.watched += chunk.watched
        self.kept.append(chunk.probes if chunk.probes.runs else NO_PROBES)
        # Outages so far: the pure detector over the runs (a few per chunk at most).
        self.outages = find_outages(self.kept, self.settings.outage)

    def _new_faults(self) -> tuple[dict[str, object], ...]:
        if self.schedule is None:
            return ()
        done = self.schedule.done[self.faults_told :]
        self.faults_told += len(done)
        return tuple(injected.to_dict() for injected in done)

    def _end_faults(self) -> None:
        """The soak's time is up: a fault still in force ends with it (undone now), so
        that the last chunk keeps it with the time it lasted."""
        if self.schedule is not None:
            self.schedule.stop()
            self.notes.extend(self.schedule.errors)
            self.schedule.errors.clear()

    def _new_bursts(self, bursts: _Bursts | None) -> tuple[tuple[float, float], ...]:
        if bursts is None:
            return ()
        done = bursts.done[self.bursts_told :]
        self.bursts_told += len(done)
        return tuple(done)

    # -- the loop -----------------------------------------------------------------------

    def run(self) -> None:
        settings, hosts = self.settings, self.hosts
        memory.limit_arenas()
        origin = time.time() - self.watched
        server = IrttServer(hosts.server, settings.port)
        bursts: _Bursts | None = None
        current: Started | None = None
        following: Started | None = None
        follower: DeviceFollower | None = None
        stopping = threading.Event()
        try:
            server.start()
            if settings.faults and hosts.fault_host is not None and hosts.lab is not None:
                faults = [
                    Fault(f.at, f.down, f.kind) for f in settings.faults if f.at >= self.watched
                ]
                built = hosts.built_lab
                self.schedule = FaultSchedule(
                    hosts.fault_host, faults, origin, lab=hosts.lab,
                    interface=hosts.fault_interface, family=hosts.fault_family,
                    device=built.ssh_device if built is not None else None,
                    dut_namespace=built.dut_namespace if built is not None else None,
                )  # fmt: skip
            if settings.bursts is not None:
                b = settings.bursts
                bursts = _Bursts(hosts, b.every, b.duration, b.parallel, origin)
                bursts.start()
            if hosts.dut is not None:
                counters = _Counters(hosts.dut, settings.ethtool or [])
                follower = DeviceFollower(hosts.dut, counters=counters, lab=hosts.lab)
                follower.start()
            if self.schedule is not None:
                self.schedule.start()
            first = self._attempt(min(settings.chunk, settings.duration - self.watched))
            current = self._held_or_retried(first, time.time(), stopping)
            while current is not None:
                self._wait_until(current.sending_ends, current)
                remaining = settings.duration - self.watched - current.seconds
                following = None
                if remaining > 0.5:
                    following = self._attempt(min(settings.chunk, remaining))
                else:
                    self._end_faults()
                    if follower is not None:
                        # The last chunk: what the follower still holds (a silence in
                        # progress until now) goes with it.
                        follower.stop()
                asked = time.time()
                # This chunk is committed before the next one is waited for: a path that
                # stays down keeps the next from starting, never this one from being kept.
                if follower is not None:
                    follower.rotate()
                self._finish(current, follower=follower, bursts=bursts)
                current = None
                if following is not None:
                    current = self._held_or_retried(following, asked, stopping)
        finally:
            stopping.set()
            self._end_faults()
            if self.blind_since is not None:
                # Interrupted while the path was down: the blind span so far is kept.
                with contextlib.suppress(Exception):
                    self._keep_blind(time.time())
            for running in (current, following):
                if running is not None:
                    if running.process.poll() is None:
                        running.process.stop(grace=0.2)
                    if running.output != "-":
                        _remove(hosts.client, running.output)
            if bursts is not None:
                bursts.stop()
                self.notes.extend(bursts.errors)
            if follower is not None:
                follower.stop()
            server.stop()

    def _attempt(self, seconds: float) -> Started:
        settings = self.settings
        return start_chunk(
            self.hosts.client, self.hosts.target, seconds, settings.interval, settings.port,
            output=output_path(time.time()),
        )  # fmt: skip

    def _held_or_retried(
        self, first: Started, asked: float, stopping: threading.Event
    ) -> Started | None:
        """`first` if its session opened; else attempts until the path is back (the
        time from `asked` until then kept as a blind chunk), or the soak's time is up."""
        if wait_held(first, lambda: not stopping.is_set()):
            return first
        discard(self.hosts.client, first)
        self.blind_since = asked
        deadline = asked + max(0.0, self.settings.duration - self.watched)
        started = start_when_up(
            self.hosts.client,
            target=self.hosts.target,
            seconds=first.seconds,
            interval=self.settings.interval,
            port=self.settings.port,
            keep_going=lambda: not stopping.is_set() and time.time() < deadline,
        )
        if started is None and not stopping.is_set():
            self._end_faults()  # the soak's time ran out while the path was down
        self._keep_blind(started.started_at if started is not None else time.time())
        return started

    def _keep_blind(self, until: float) -> None:
        """The blind span since self.blind_since, as a chunk of its own."""
        since, self.blind_since = self.blind_since, None
        if since is None:
            return
        blind = blind_chunk(round(since * 1e9), round(until * 1e9), self.interval_ns)
        self._keep(
            records.ChunkRecord(
                self.position,
                "blind",
                since,
                until,
                blind,
                faults=self._new_faults(),
                notes=("irtt could not reach its server: the path was down",),
            )
        )

    def _output(self, started: Started) -> str:
        """The chunk's JSON, read from its file (then removed) or irtt's stdout."""
        if started.output == "-":
            return started.process.stdout()
        client = self.hosts.client
        try:
            return client.read_file(started.output)
        except (WirespeedError, FileNotFoundError):
            return started.process.stdout()  # nothing written: irtt said why there
        finally:
            _remove(client, started.output)

    def _wait_until(self, when: float, current: Started) -> None:
        while (left := when - time.time()) > 0:
            time.sleep(min(1.0, left))
            self.progress(
                Progress(
                    self.watched + current.seconds - max(0.0, when - time.time()),
                    self.settings.duration,
                    self.outages,
                    self.position,
                )
            )

    def _finish(
        self,
        current: Started,
        *,
        follower: DeviceFollower | None,
        bursts: _Bursts | None,
    ) -> None:
        deadline = time.monotonic() + FINISH_MARGIN
        while current.process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if current.process.poll() is None:
            current.process.stop(grace=0.5)
        notes = list(self.notes)
        self.notes.clear()
        try:
            probes = parse_chunk(self._output(current), self.interval_ns)
        except ValueError as error:
            notes.append(f"irtt failed: {error}; {current.process.stderr().strip()[-200:]}")
            probes = blind_chunk(
                round(current.started_at * 1e9), round(current.sending_ends * 1e9),
                self.interval_ns,
            )  # fmt: skip
        seen = follower.take(wait=ROTATION_WAIT) if follower is not None else Taken()
        self._keep(
            records.ChunkRecord(
                position=self.position,
                kind="probes",
                started_at=current.started_at,
                ended_at=current.sending_ends,
                probes=probes,
                events=tuple(seen.kernel),
                counters=seen.counters,
                faults=self._new_faults(),
                bursts=self._new_bursts(bursts),
                notes=tuple(notes + seen.notes),
                device=tuple(seen.device),
            )
        )


def run_soak(
    store: Store,
    soak_id: int,
    settings: SoakEntry,
    hosts: SoakHosts,
    *,
    watched: float = 0.0,
    position: int = 0,
    progress: Callable[[Progress], None] = lambda _: None,
) -> None:
    """Run (or continue, from `watched` seconds and chunk `position`) soak `soak_id`."""
    _Soak(
        store,
        soak_id=soak_id,
        settings=settings,
        hosts=hosts,
        watched=watched,
        position=position,
        progress=progress,
    ).run()
