"""Run one trial: start the server, wait until it listens, run the client, collect, stop.

Whatever happens (a hung client, a server that dies, Ctrl-C), every process started here
is stopped and reaped before run_trial returns or raises, and the outcome keeps the raw
output of both ends so parsing can be redone later.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.model import (
    Flow,
    PowerSettings,
    Proto,
    RawOutput,
    Result,
    Side,
    TestSpec,
    Tool,
    Trial,
    TrialOutcome,
)
from wirespeed.run.iperf_results import parse_ends
from wirespeed.run.power_meter import MeterRecorder
from wirespeed.run.traffic_outcome import (
    TrafficOptions,
    TrafficTrial,
    latency_probes,
    with_latency,
)
from wirespeed.run.trial_life import (
    Endpoints,
    TrialFailure,
    TrialLife,
    Watching,
    check_port_free,
    live_trial,
    raw_output,
    wait_listening,
)
from wirespeed.run.wire_span import CounterWatch, WireSpan, watch_for, with_wire_span
from wirespeed.sampling.session import SamplerSource

# Its own, and what of the shared lifecycle (trial_life.py) tests import with run_trial
# (or replace in it: wait_listening, to hold a server).
__all__ = [
    "CLIENT_MARGIN",
    "CONNECTED_LOOK_EVERY",
    "POLL",
    "SERVER_REPORT_TIMEOUT",
    "TCP_ESTABLISHED",
    "Driver",
    "Endpoints",
    "IperfTrial",
    "TrialFailure",
    "driver_for",
    "program_for",
    "run_trial",
    "wait_listening",
    "wait_server_report",
]

# Beyond the test's duration, how long the client may take to connect, finish and print.
# iperf2's TCP connect gives up only after the kernel's SYN retries (~2 min): bounded here.
CLIENT_MARGIN = 15.0
# After the client ends, how long the server may take to print its final report.
SERVER_REPORT_TIMEOUT = 3.0
POLL = 0.01
TCP_ESTABLISHED = 0x01  # include/net/tcp_states.h
# How often to look whether the client has connected yet (until it has).
CONNECTED_LOOK_EVERY = 0.5


class Driver(Protocol):
    """What a tool module (wirespeed.tools.iperf2 / iperf3) offers the runner."""

    DEFAULT_PORT: int
    OUTPUT_FORMAT: str

    def server_argv(self, spec: TestSpec, port: int) -> list[str]: ...
    def server_listens_on(self, spec: TestSpec) -> Proto: ...
    def client_argv(self, spec: TestSpec, target: str, port: int) -> list[str]: ...
    def parse(self, text: str, side: Side) -> Result: ...
    def server_report_complete(self, text: str, spec: TestSpec) -> bool: ...
    def client_stuck_after_report(self, text: str, spec: TestSpec) -> bool: ...


def driver_for(tool: Tool) -> Driver:
    if tool is Tool.IPERF2:
        from wirespeed.tools import iperf2

        return iperf2
    from wirespeed.tools import iperf3

    return iperf3


def program_for(tool: Tool) -> str:
    """The traffic program both ends of a test need (trial_kind.py): iperf2's for the search,
    which drives it."""
    from wirespeed.trial_kind import kind_of

    program = kind_of(tool).program
    if program is None:
        raise ValueError(f"{tool} moves no traffic")
    return program


def run_trial(
    trial: Trial,
    endpoints: Endpoints,
    *,
    port: int | None = None,
    on_tick: Callable[[float], None] | None = None,
    watch: Sequence[tuple[str, Host]] = (),
    sample_interval: float = 1.0,
    samplers_from: SamplerSource | None = None,
    power: PowerSettings | None = None,
    notice: Callable[[str], None] | None = None,
) -> TrialOutcome:
    """Run a trial to its outcome. Failures become a FAILED outcome, never an exception
    (but KeyboardInterrupt and SIGTERM pass through, after the processes are stopped).

    `watch` names the hosts to sample while the test runs, by role (the DUT by default in
    a run): one sampler each, started before the client and stopped after it, or (from
    `samplers_from`, a run's SamplerPool) one kept across trials, cut before and after.

    `power` (the plan's `power:`): an idle baseline of `power.idle` seconds between the
    samplers' start and the client's, the meter's command read through both, and the
    board's idle and load power as measurements of the result."""
    options = TrafficOptions(port=port, on_tick=on_tick, power=power, notice=notice)
    return live_trial(
        trial,
        iperf_body(trial, endpoints, options),
        Watching(watch, sample_interval, samplers_from),
    )


def iperf_body(trial: Trial, endpoints: Endpoints, options: TrafficOptions) -> IperfTrial:
    """An iperf trial's own steps, for live_trial (run_trial, run/kind_runs.py)."""
    driver = driver_for(trial.test.tool)
    spec = trial.test.spec
    power = options.power
    return IperfTrial(
        trial=trial,
        endpoints=endpoints,
        driver=driver,
        port=options.port or driver.DEFAULT_PORT,
        on_tick=options.on_tick,
        power=power,
        probes=latency_probes(spec, endpoints, options.notice),
        meter=MeterRecorder(power.argv, power.interval) if power and power.argv else None,
        # The receiving interface's counters, where iperf2's receiver may time its
        # streams short (wire_span.py).
        wire=watch_for(trial.test, endpoints.client, endpoints.server),
    )


@dataclass(kw_only=True)
class IperfTrial(TrafficTrial):
    """An iperf trial's own steps: its server, the power meter beside its client, both
    ends' outputs read into its result."""

    trial: Trial
    endpoints: Endpoints
    driver: Driver
    port: int
    meter: MeterRecorder | None
    wire: tuple[Flow, CounterWatch] | None
    server: Process | None = None
    client: Process | None = None
    statuses: dict[Side, int | None] = field(default_factory=dict)
    meter_raw: RawOutput | None = None
    wire_span: WireSpan | None = None

    def run(self, life: TrialLife) -> None:
        driver, endpoints, port = self.driver, self.endpoints, self.port
        spec = self.trial.test.spec
        # The server's own socket, not the test's protocol: iperf3 serves a UDP test
        # from its TCP control port.
        listen_on = driver.server_listens_on(spec)
        check_port_free(endpoints.server, port, listen_on)
        server = endpoints.server.start(driver.server_argv(spec, port))
        self.server = server
        wait_listening(endpoints.server, server, port, listen_on)
        self.before_load(life, self.meter)
        if self.wire is not None:
            self.wire[1].start()
        client = endpoints.client.start(driver.client_argv(spec, endpoints.target, port))
        self.client = client
        _wait_client(
            endpoints.client,
            client,
            timeout=spec.duration + CLIENT_MARGIN,
            on_tick=self.ticks(),
            target=endpoints.target,
            port=port,
            server=server,
            stuck=lambda text: driver.client_stuck_after_report(text, spec),
        )
        if self.meter is not None:
            self.meter.mark("end")
        if wait_server_report(driver, server, spec):
            self.server_grace = 0.0
        self.completed = True

    def stop(self) -> None:
        self.stop_probes()
        if self.client is not None:
            self.statuses[Side.CLIENT] = self.client.stop()
        if self.meter is not None:
            self.meter_raw = self.meter.stop()
        if self.server is not None:
            self.statuses[Side.SERVER] = self.server.stop(grace=self.server_grace)
        if self.wire is not None:
            self.wire_span = self.wire[1].stop()

    def outcome(self, life: TrialLife) -> TrialOutcome:
        raw: list[RawOutput] = []
        for side, host, process in (
            (Side.CLIENT, self.endpoints.client, self.client),
            (Side.SERVER, self.endpoints.server, self.server),
        ):
            if process is not None:
                status = self.statuses.get(side)
                raw.append(raw_output(host, side, process, status, self.driver.OUTPUT_FORMAT))
        if self.meter_raw is not None:
            raw.append(self.meter_raw)
        if self.probes is not None:
            raw.extend(self.probes.raw)
        result: Result | None = None
        if life.reason is None:
            result, life.reason = parse_ends(self.driver, raw, self.trial.test.spec)
        if result is not None and self.wire is not None:
            result = with_wire_span(result, self.wire[0], self.wire_span)
        return self.judged(life, with_latency(result, self.latency), raw, meter_raw=self.meter_raw)


def _wait_client(
    host: Host,
    client: Process,
    *,
    timeout: float,
    on_tick: Callable[[float], None] | None,
    target: str,
    port: int,
    server: Process | None = None,
    stuck: Callable[[str], bool] | None = None,
) -> None:
    """Until the client exits; a client `stuck` says printed all it had to and hung is
    left for the caller to stop, as one that exited."""
    start = time.monotonic()
    # Whether the client was ever seen connected, looked up until it was: at the timeout
    # its connection may be gone (the server died while the client hung), and a client
    # that reached the server and then hung must not be told to check reachability.
    seen_connected = False
    next_look = start
    while client.poll() is None:
        now = time.monotonic()
        elapsed = now - start
        if stuck is not None and stuck(client.stdout()):
            return
        if not seen_connected and now >= next_look:
            seen_connected = _connected(host, client, target, port)
            next_look = now + CONNECTED_LOOK_EVERY
        if elapsed > timeout:
            if not seen_connected and not _connected(host, client, target, port):
                # iperf2 has no connect timeout: it waits out the kernel's SYN retries.
                raise TrialFailure(
                    f"the iperf client could not connect to {target} port {port} within "
                    f"{timeout:.0f} s and was stopped: is the server reachable?"
                )
            raise TrialFailure(_hung(timeout, target, port, server))
        if on_tick is not None:
            on_tick(elapsed)
        time.sleep(0.05)


def _hung(timeout: float, target: str, port: int, server: Process | None) -> str:
    """What happened to a client that connected and then never ended."""
    said = (
        f"the iperf client connected to {target} port {port} but did not finish within "
        f"{timeout:.0f} s and was stopped (hung)"
    )
    if server is None:
        return said
    status = server.poll()
    if status is None:
        return f"{said}; the server was still running: one of the two ends stalled"
    how = f"was killed by signal {-status}" if status < 0 else f"had exited (status {status})"
    return f"{said}; the server {how} without the client noticing: it went away mid-test"


def _connected(host: Host, client: Process, target: str, port: int) -> bool:
    """Whether the client holds a connection to the server's port: iperf3 -J prints
    nothing before it ends, so its output cannot say; the socket table can."""
    from wirespeed.hosts.sockets import parse_proc_net

    if "connected with" in client.stdout():  # iperf2's report line
        return True
    for table in ("tcp", "tcp6"):
        try:
            text = host.read_file(f"/proc/{client.pid}/net/{table}")
        except (FileNotFoundError, WirespeedError):
            continue
        for entry in parse_proc_net(text):
            if (
                entry.remote_port == port
                and entry.state == TCP_ESTABLISHED
                and _same_host(entry.remote_address, target)
            ):
                return True
    return False


def _same_host(remote_address: str, target: str) -> bool:
    """Whether a socket's remote address is the target the client was given. A host
    name cannot be resolved as the client's host would: any address on the port counts."""
    try:
        wanted = ipaddress.ip_address(target.strip("[]").partition("%")[0])
    except ValueError:
        return True
    remote = ipaddress.ip_address(remote_address)
    if isinstance(remote, ipaddress.IPv6Address) and remote.ipv4_mapped is not None:
        remote = remote.ipv4_mapped
    return remote == wanted


def wait_server_report(driver: Driver, server: Process, spec: TestSpec) -> bool:
    """Wait for the server's final report; True once it is complete."""
    deadline = time.monotonic() + SERVER_REPORT_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            return True
        if driver.server_report_complete(server.stdout(), spec):
            return True
        time.sleep(POLL)
    # Not fatal: the client's report stands; the missing server side is a warning later.
    return False
