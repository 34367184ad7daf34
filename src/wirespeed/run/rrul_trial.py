"""Run one RRUL trial: two iperf3 servers, the idle probes, both directions' clients at
once with the loaded probes beside them, collect, stop.

The steps are run_trial's (run/trial.py), doubled: a server and a client per direction
(tools/rrul.py says why two processes). Whatever happens, every process started here is
stopped before live_trial (run/trial_life.py) returns or raises, and the raw outputs of
all four ends and of the probes are kept: each client's before its server's, up before
down.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Process
from wirespeed.model import (
    Finding,
    FindingKind,
    Flow,
    Proto,
    RawOutput,
    Result,
    Side,
    Trial,
    TrialOutcome,
)
from wirespeed.run.iperf_results import parse_ends
from wirespeed.run.probes import END_MARGIN_SECONDS, MIN_LOADED_SECONDS, LatencyProbes
from wirespeed.run.traffic_outcome import TrafficTrial, latency_probes, with_latency
from wirespeed.run.trial import CLIENT_MARGIN, Endpoints, TrialFailure, wait_server_report
from wirespeed.run.trial_life import (
    TrialLife,
    check_port_free,
    raw_output,
    wait_listening,
)
from wirespeed.sampling.procfs import parse_net_dev
from wirespeed.tools import iperf3, rrul

if TYPE_CHECKING:
    from wirespeed.run.traffic_outcome import TrafficOptions

TICK = 0.05


Key = tuple[int, Flow]  # (stage, direction): a stage is `parallel` streams each way


@dataclass
class Load:
    """The iperf3 processes of an RRUL trial, stage by stage, and how long each stage's
    clients were asked to run."""

    trial: Trial
    endpoints: Endpoints
    first_port: int
    servers: dict[Key, Process] = field(default_factory=dict)
    clients: dict[Key, Process] = field(default_factory=dict)
    seconds: dict[int, float] = field(default_factory=dict)
    offsets: dict[int, float] = field(default_factory=dict)  # start after stage 0's
    _started: float | None = None

    @property
    def stages(self) -> int:
        return len(self.seconds)

    def serve(self, stage: int) -> None:
        """The stage's two servers, listening."""
        spec, server = self.trial.test.spec, self.endpoints.server
        ports = rrul.ports(self.first_port, stage)
        for flow in rrul.FLOWS:
            check_port_free(server, ports[flow], Proto.TCP)
        for flow in rrul.FLOWS:
            self.servers[stage, flow] = server.start(rrul.server_argv(spec, flow, ports[flow]))
        for flow in rrul.FLOWS:
            wait_listening(server, self.servers[stage, flow], ports[flow], Proto.TCP)

    def load(self, stage: int, seconds: float) -> None:
        """The stage's two clients at once: both directions from their first second."""
        spec = dataclasses.replace(self.trial.test.spec, duration=seconds)
        ports = rrul.ports(self.first_port, stage)
        for flow in rrul.FLOWS:
            argv = rrul.client_argv(spec, flow, self.endpoints.target, ports[flow])
            self.clients[stage, flow] = self.endpoints.client.start(argv)
        self.seconds[stage] = max(1, math.ceil(seconds))  # iperf3's -t is whole seconds
        now = time.monotonic()
        self._started = self._started if self._started is not None else now
        self.offsets[stage] = now - self._started

    def moved_bytes(self) -> int | None:
        """Bytes in and out of the client's network namespace so far (its first client's
        /proc/PID/net/dev, every interface but loopback); None where it cannot be read."""
        client = self.clients.get((0, Flow.UP))
        if client is None:
            return None
        try:
            text = self.endpoints.client.read_file(f"/proc/{client.pid}/net/dev")
        except (FileNotFoundError, WirespeedError):
            return None
        counters = parse_net_dev(text)
        return sum(c.rx_bytes + c.tx_bytes for name, c in counters.items() if name != "lo")


@dataclass
class Ramp:
    """until_stable: every step the goodput through the client's interfaces; another
    stage of streams until it is stable (tools/rrul.py), then the loaded probes."""

    load: Load
    probes: LatencyProbes | None
    duration: float
    rates: list[float] = field(default_factory=list)
    stable_at: float | None = None
    gave_up: str | None = None
    _last: tuple[float, int] | None = None

    def tick(self, elapsed: float) -> None:
        if self.stable_at is not None or self.gave_up is not None:
            return
        if self._last is not None and elapsed - self._last[0] < rrul.STEP_SECONDS:
            return
        moved = self.load.moved_bytes()
        if moved is None:
            self._probe_now(elapsed, "the client's byte counters could not be read")
            return
        if self._last is not None:
            self.rates.append((moved - self._last[1]) * 8 / (elapsed - self._last[0]))
        self._last = (elapsed, moved)
        if rrul.stable(self.rates):
            self.stable_at = elapsed
            self._start_probes(elapsed)
        elif elapsed >= self.duration / 2:
            self._probe_now(elapsed, f"not stable after half of the test ({elapsed:.0f} s)")
        elif self.load.stages < rrul.MAX_STAGES and len(self.rates) >= 2 * rrul.STABLE_STEPS:
            stage = self.load.stages
            self.load.serve(stage)
            self.load.load(stage, self.duration - elapsed)
            self.rates.clear()  # the new streams' slow start is not the old goodput
            self._last = None

    def _probe_now(self, elapsed: float, why: str) -> None:
        self.gave_up = why
        self._start_probes(elapsed)

    def _start_probes(self, elapsed: float) -> None:
        if self.probes is not None:
            seconds = self.duration - elapsed - END_MARGIN_SECONDS
            self.probes.start_loaded(max(seconds, MIN_LOADED_SECONDS))

    def finding(self, streams: int) -> Finding:
        """What the ramp did, beside the figures: RPM-like, and not the draft's test."""
        each = f"{self.load.stages * streams} streams each way"
        if self.stable_at is not None:
            said = f"goodput stable after {self.stable_at:.0f} s with {each}"
        else:
            said = f"goodput {self.gave_up or 'not judged'}, with {each}"
        return Finding(
            FindingKind.PROBES,
            f"RPM-like: {said}; then the loaded probes (the IETF responsiveness draft's "
            "ramp, not its test: its probes are HTTP/2 and TLS exchanges)",
        )


def rrul_body(trial: Trial, endpoints: Endpoints, options: TrafficOptions) -> RrulTrial:
    """An RRUL trial's own steps, for live_trial (run/kind_runs.py): failures become a
    FAILED outcome there, never an exception (but KeyboardInterrupt and SIGTERM pass
    through, after the processes are stopped)."""
    spec = trial.test.spec
    load = Load(trial, endpoints, options.port or rrul.DEFAULT_PORT)
    probes = latency_probes(spec, endpoints, options.notice)
    ramp = Ramp(load, probes, spec.duration) if spec.until_stable else None
    return RrulTrial(
        load=load, ramp=ramp, on_tick=options.on_tick, power=options.power, probes=probes
    )


@dataclass(kw_only=True)
class RrulTrial(TrafficTrial):
    """An RRUL trial's own steps: its load stage by stage (ramped up until stable, where
    asked), every process's output read into one result."""

    load: Load
    ramp: Ramp | None
    statuses: dict[tuple[int, Flow, Side], int | None] = field(default_factory=dict)

    def run(self, life: TrialLife) -> None:
        load, ramp = self.load, self.ramp
        spec = load.trial.test.spec
        load.serve(0)
        self.before_load(life)
        load.load(0, spec.duration)
        ticks = self.ticks() if ramp is None else _with_ramp(self.on_tick, ramp)
        _wait_clients(load.clients, spec.duration + CLIENT_MARGIN, ticks)
        if all(wait_server_report(iperf3, server, spec) for server in load.servers.values()):
            self.server_grace = 0.0
        self.completed = True

    def stop(self) -> None:
        self.stop_probes()
        for (stage, flow), process in self.load.clients.items():
            self.statuses[stage, flow, Side.CLIENT] = process.stop()
        for (stage, flow), process in self.load.servers.items():
            self.statuses[stage, flow, Side.SERVER] = process.stop(grace=self.server_grace)

    def outcome(self, life: TrialLife) -> TrialOutcome:
        load, probes, ramp, latency = self.load, self.probes, self.ramp, self.latency
        endpoints, trial = load.endpoints, load.trial
        raw: list[RawOutput] = []
        by_stage: list[dict[Flow, list[RawOutput]]] = []
        for stage in range(max(load.stages, 1 if load.servers else 0)):
            by_flow: dict[Flow, list[RawOutput]] = {}
            for flow in rrul.FLOWS:
                ends = [
                    raw_output(
                        host,
                        side,
                        process,
                        self.statuses.get((stage, flow, side)),
                        iperf3.OUTPUT_FORMAT,
                    )
                    for side, host, process in (
                        (Side.CLIENT, endpoints.client, load.clients.get((stage, flow))),
                        (Side.SERVER, endpoints.server, load.servers.get((stage, flow))),
                    )
                    if process is not None
                ]
                by_flow[flow] = ends
                raw.extend(ends)
            by_stage.append(by_flow)
        if probes is not None:
            raw.extend(probes.raw)
        result: Result | None = None
        if life.reason is None:
            result, life.reason = parse_stages(by_stage, trial, load.seconds, load.offsets)
        result = with_latency(result, latency)
        if result is not None and latency and ramp is not None:
            result = _with_responsiveness(result)
        streams = trial.test.spec.parallel
        ramped = [ramp.finding(streams)] if ramp is not None and load.stages else []
        return self.judged(life, result, raw, more_findings=ramped)


def _with_ramp(on_tick: Callable[[float], None] | None, ramp: Ramp) -> Callable[[float], None]:
    def tick(elapsed: float) -> None:
        ramp.tick(elapsed)
        if on_tick is not None:
            on_tick(elapsed)

    return tick


def _with_responsiveness(result: Result) -> Result:
    """The loaded median round trip also as round trips per minute (RPM-like)."""
    loaded = next(
        (
            m.value
            for m in result.measurements
            if m.name == "rtt" and m.labels == (("load", "loaded"), ("statistic", "p50"))
        ),
        None,
    )
    if loaded is None or loaded <= 0:
        return result
    added = rrul.responsiveness(loaded)
    return dataclasses.replace(result, measurements=(*result.measurements, added))


def parse_stages(
    by_stage: Sequence[dict[Flow, list[RawOutput]]],
    trial: Trial,
    seconds: dict[int, float],
    offsets: dict[int, float] | None = None,
) -> tuple[Result | None, str | None]:
    """Each stage's processes read as parse_flows reads them (a stage at the seconds
    its clients were asked for), then the stages as one result."""
    results = []
    for stage, by_flow in enumerate(by_stage):
        duration = seconds.get(stage, trial.test.spec.duration)
        at_length = dataclasses.replace(
            trial,
            test=dataclasses.replace(
                trial.test, spec=dataclasses.replace(trial.test.spec, duration=duration)
            ),
        )
        result, reason = parse_flows(by_flow, at_length)
        if reason is not None:
            where = f"stage {stage + 1}: " if len(by_stage) > 1 else ""
            return None, where + reason
        assert result is not None
        results.append(result)
    if not results:
        return None, "no iperf3 client ran"
    starts = [(offsets or {}).get(stage, 0.0) for stage in range(len(results))]
    return rrul.combine_stages(results, starts), None


def parse_flows(
    by_flow: dict[Flow, list[RawOutput]], trial: Trial
) -> tuple[Result | None, str | None]:
    """Each direction's process read as an iperf3 test of its own (the same checks: an
    error, a flow cut short), then both as one RRUL result. A direction that failed
    fails the trial, with the direction named."""
    results: dict[Flow, Result] = {}
    for flow in rrul.FLOWS:
        one_way = rrul.one_way(trial.test.spec, flow)
        result, reason = parse_ends(iperf3, by_flow.get(flow, []), one_way)
        if reason is not None:
            return None, f"the {flow.value} flow: {reason}"
        if result is not None:
            results[flow] = result
    return rrul.combine(results), None


def _wait_clients(
    clients: dict[Key, Process], timeout: float, on_tick: Callable[[float], None] | None
) -> None:
    """Until every client ends (a ramp may add some meanwhile); a client that outlives
    the test's time is hung."""
    start = time.monotonic()
    while any(process.poll() is None for process in list(clients.values())):
        elapsed = time.monotonic() - start
        if elapsed > timeout:
            hung = sorted({flow.value for (_, flow), p in clients.items() if p.poll() is None})
            raise TrialFailure(
                f"the iperf3 client of the {' and '.join(hung)} flow did not finish within "
                f"{timeout:.0f} s and was stopped (hung, or the server is unreachable)"
            )
        if on_tick is not None:
            on_tick(elapsed)
        time.sleep(TICK)


__all__ = ["Load", "Ramp", "parse_flows", "parse_stages", "rrul_body"]
