"""Latency probes beside a traffic test: an idle baseline, then probes during the load.

The client's host probes the server's across the path, as the traffic goes: irtt (UDP,
one-way delays too) against an `irtt server` started on the server's host for the
trial, or ICMP ping where irtt is missing on either end (the run says so). The phases:

1. idle: IDLE_SECONDS of probes after the iperf server listens and before its client
   starts, the baseline of the path's own delay;
2. loaded: from WARMUP_SECONDS after the client started (the load has filled the
   queue by then: TCP's slow start doubles its window each round trip) until
   END_MARGIN_SECONDS before the test's end, so that no probe sees the link idle.

Raw outputs: both phases' outputs are kept as Side.PROBE, the idle phase first.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from wirespeed.analysis.latency import latency_measurements
from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.hosts.sockets import listening
from wirespeed.model import Measurement, Probes, Proto, RawOutput, Side, TestSpec
from wirespeed.tools import irtt, ping
from wirespeed.tools.probing import (
    END_MARGIN_SECONDS,
    IDLE_SECONDS,
    MIN_LOADED_SECONDS,
    WARMUP_SECONDS,
    ProbeSeries,
    loaded_window,
)

READY_TIMEOUT = 5.0
# Beyond a phase's duration, how long its prober may take to end: irtt waits for late
# answers (three times the largest round trip), ping for its deadline.
FINISH_MARGIN = 5.0


@dataclass(frozen=True)
class ProbeChoice:
    """Which prober runs, and what the run should be told about the choice."""

    tool: str | None  # "irtt", "ping"; None: none can run
    notice: str | None = None


def choose(probes: Probes, client: Host, server: Host) -> ProbeChoice:
    """irtt where both ends have it; otherwise ping from the client, said so."""
    if probes is Probes.IRTT:
        missing = [host.name for host in (client, server) if host.which(irtt.PROGRAM) is None]
        if not missing:
            return ProbeChoice(irtt.PROGRAM)
        said = f"irtt not found on {' and '.join(missing)}"
    else:
        said = None
    if client.which(ping.PROGRAM) is None:
        return ProbeChoice(
            None, f"{said or 'ping asked for'}; ping not found on {client.name}: no latency probes"
        )
    if said is None:
        return ProbeChoice(ping.PROGRAM)
    return ProbeChoice(ping.PROGRAM, f"{said}: latency by ping (round trips only)")


@dataclass
class LatencyProbes:
    """The probes of one trial: start() before the load, load_started_for() as it runs,
    finish() after it; every process it started is stopped by finish()."""

    spec: TestSpec
    client: Host
    server: Host
    target: str
    choice: ProbeChoice
    port: int = irtt.DEFAULT_PORT
    raw: list[RawOutput] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    _server: Process | None = None
    _loaded: Process | None = None
    _idle: ProbeSeries | None = None
    _loaded_seconds: float | None = None  # start_loaded's; else loaded_window's

    def start(self) -> None:
        """The prober's server (irtt), then the idle baseline, to its end."""
        if self.choice.tool is None:
            return
        try:
            if self.choice.tool == irtt.PROGRAM:
                self._start_irtt_server()
                if self._server is None:
                    return
            idle = self._run(self._argv(IDLE_SECONDS), IDLE_SECONDS)
        except WirespeedError as error:
            # The traffic test stands without its probes: said, not fatal.
            self.problems.append(f"the idle probes did not run: {error.message}")
            return
        self._idle = self._parse(idle, "idle")

    def load_started_for(self, elapsed: float) -> None:
        """Called as the load runs: starts the loaded probes once the warmup is over."""
        if self.choice.tool is None or self._loaded is not None or self._no_server:
            return
        warmup, seconds = loaded_window(self.spec.duration)
        if elapsed >= warmup:
            try:
                self._loaded = self.client.start(self._argv(seconds))
            except WirespeedError as error:
                self.problems.append(f"the loaded probes did not start: {error.message}")
                self.choice = ProbeChoice(None)

    def start_loaded(self, seconds: float) -> None:
        """Starts the loaded probes now, for `seconds`: for a load that tells itself
        when it is ready (RRUL's until_stable), instead of load_started_for's warmup."""
        if self.choice.tool is None or self._loaded is not None or self._no_server:
            return
        try:
            self._loaded = self.client.start(self._argv(seconds))
            self._loaded_seconds = seconds
        except WirespeedError as error:
            self.problems.append(f"the loaded probes did not start: {error.message}")
            self.choice = ProbeChoice(None)

    def finish(self, *, wait: bool = True) -> tuple[Measurement, ...]:
        """Wait for the loaded probes (unless the trial ended early), stop everything,
        and the measurements."""
        loaded: ProbeSeries | None = None
        try:
            if self._loaded is not None:
                seconds = self._loaded_seconds or loaded_window(self.spec.duration)[1]
                status = _wait(self._loaded, seconds + FINISH_MARGIN if wait else 0.0)
                self.raw.append(self._raw(self._loaded, status))
                loaded = self._parse(self.raw[-1], "loaded")
        finally:
            if self._loaded is not None and self._loaded.poll() is None:
                self._loaded.stop()
            if self._server is not None:
                self._server.stop(grace=0.5)
        if loaded is None:
            return ()
        return latency_measurements(self._idle, loaded)

    @property
    def _no_server(self) -> bool:
        return self.choice.tool == irtt.PROGRAM and self._server is None

    def _argv(self, seconds: float) -> list[str]:
        if self.choice.tool == irtt.PROGRAM:
            return irtt.client_argv(self.target, seconds, port=self.port)
        return ping.argv(self.target, seconds)

    def _start_irtt_server(self) -> None:
        if listening(self.server, None, self.port, Proto.UDP):
            self.problems.append(
                f"UDP port {self.port} is taken on {self.server.name} (an irtt server "
                "already running?): no latency probes"
            )
            return
        server = self.server.start(irtt.server_argv(self.port))
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if server.poll() is not None:
                said = (server.stderr() or server.stdout()).strip().splitlines()
                detail = f": {said[-1]}" if said else ""
                self.problems.append(
                    f"the irtt server on {self.server.name} exited at start{detail}"
                )
                return
            if listening(self.server, server.pid, self.port, Proto.UDP):
                self._server = server
                return
            time.sleep(0.01)
        server.stop()
        self.problems.append(f"the irtt server on {self.server.name} did not listen")

    def _run(self, argv: list[str], seconds: float) -> RawOutput:
        process = self.client.start(argv)
        try:
            status = _wait(process, seconds + FINISH_MARGIN)
        finally:
            if process.poll() is None:
                process.stop()
        self.raw.append(self._raw(process, status))
        return self.raw[-1]

    def _raw(self, process: Process, status: int | None) -> RawOutput:
        return RawOutput(
            host=self.client.name,
            side=Side.PROBE,
            argv=process.argv,
            format="json" if self.choice.tool == irtt.PROGRAM else "text",
            text=process.stdout(),
            stderr=process.stderr(),
            exit_status=status,
        )

    def _parse(self, raw: RawOutput, phase: str) -> ProbeSeries | None:
        try:
            if self.choice.tool == irtt.PROGRAM:
                return irtt.parse(raw.text or raw.stderr)
            return ping.parse(raw.text if raw.text.strip() else raw.stderr)
        except ValueError as error:
            self.problems.append(f"the {phase} probes ({self.choice.tool}) failed: {error}")
            return None


def _wait(process: Process, timeout: float) -> int | None:
    deadline = time.monotonic() + timeout
    while process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    return process.poll()


def probes_for(spec: TestSpec, client: Host, server: Host, target: str) -> LatencyProbes | None:
    if spec.probes is None:
        return None
    return LatencyProbes(spec, client, server, target, choose(spec.probes, client, server))


__all__ = [
    "END_MARGIN_SECONDS",
    "IDLE_SECONDS",
    "MIN_LOADED_SECONDS",
    "WARMUP_SECONDS",
    "LatencyProbes",
    "ProbeChoice",
    "choose",
    "loaded_window",
    "probes_for",
]
