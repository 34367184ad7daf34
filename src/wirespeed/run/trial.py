"""Run one trial: start the server, wait until it listens, run the client, collect, stop.

Whatever happens (a hung client, a server that dies, Ctrl-C), every process started here
is stopped and reaped before run_trial returns or raises, and the outcome keeps the raw
output of both ends so parsing can be redone later.
"""

from __future__ import annotations

import dataclasses
import ipaddress
import os
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.analysis.dut_crossing import not_crossed
from wirespeed.analysis.findings import LIMITS, judge_monitor, judge_probes, judge_result
from wirespeed.analysis.power import power_measurements, split_timeline, total_goodput
from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.model import (
    Direction,
    Finding,
    FindingKind,
    Flow,
    Measurement,
    PowerSettings,
    Proto,
    RawOutput,
    Result,
    Side,
    TestSpec,
    Tool,
    ToolWarning,
    Topology,
    Trial,
    TrialOutcome,
    WarningKind,
)
from wirespeed.run.power_meter import MIN_TIMEOUT, MeterRecorder
from wirespeed.run.probes import LatencyProbes, probes_for
from wirespeed.run.trial_life import (
    BASELINE_TIMEOUT,
    READY_TIMEOUT,
    Endpoints,
    TrialFailure,
    both_streams,
    check_port_free,
    monitor_records,
    raw_output,
    start_samplers,
    stop_samplers,
    trial_outcome,
    wait_listening,
)
from wirespeed.run.wire_span import WireSpan, watch_for, with_wire_span
from wirespeed.sampling.meter import parse_meter_log
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.session import Sampler, SamplerSource, TrialSampler
from wirespeed.sampling.summary import MonitorSummary
from wirespeed.signals import deferred_signals
from wirespeed.units import format_rate

# Its own, and the shared lifecycle it is built on (trial_life.py), which the other
# trials and tests import with run_trial.
__all__ = [
    "BASELINE_TIMEOUT",
    "CLIENT_MARGIN",
    "CONNECTED_LOOK_EVERY",
    "FATAL_WARNINGS",
    "FORWARDING_TOPOLOGIES",
    "POLL",
    "READY_TIMEOUT",
    "SERVER_REPORT_TIMEOUT",
    "SHORT_FRACTION",
    "TCP_ESTABLISHED",
    "Driver",
    "Endpoints",
    "TrialFailure",
    "both_streams",
    "check_port_free",
    "driver_for",
    "finish_probes",
    "finished_outcome",
    "idle_baseline",
    "monitor_records",
    "program_for",
    "run_trial",
    "start_samplers",
    "stop_samplers",
    "wait_listening",
    "with_latency",
    "with_power",
    "without_moot",
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

# Warnings that mean the numbers are not a measurement at all.
FATAL_WARNINGS = frozenset({WarningKind.CONNECT_FAILED, WarningKind.TOOL_ERROR})


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
    driver = driver_for(trial.test.tool)
    spec = trial.test.spec
    port = port or driver.DEFAULT_PORT
    started_at = time.time()
    server_argv = driver.server_argv(spec, port)
    client_argv = driver.client_argv(spec, endpoints.target, port)
    server: Process | None = None
    client: Process | None = None
    samplers: list[tuple[str, Host, TrialSampler | str]] = []
    sample_sets: list[tuple[str, Host, SampleSet | str]] = []
    meter = MeterRecorder(power.argv, power.interval) if power and power.argv else None
    meter_raw: RawOutput | None = None
    reason: str | None = None
    # Grace for the server on stop: none once its report is complete (iperf2 takes a full
    # second to act on SIGTERM, and there is nothing left to read); else a second, since
    # iperf2 prints what it has on SIGTERM.
    server_grace = 1.0
    probes = probes_for(spec, endpoints.client, endpoints.server, endpoints.target)
    if probes is not None and probes.choice.notice is not None and notice is not None:
        notice(probes.choice.notice)
    latency: tuple[Measurement, ...] = ()
    completed = False  # the client ran to its end: the loaded probes are worth waiting for
    # The receiving interface's counters, where iperf2's receiver may time its streams
    # short (wire_span.py).
    wire = watch_for(trial.test, endpoints.client, endpoints.server)
    wire_span: WireSpan | None = None
    try:
        # The server's own socket, not the test's protocol: iperf3 serves a UDP test
        # from its TCP control port.
        listen_on = driver.server_listens_on(spec)
        check_port_free(endpoints.server, port, listen_on)
        server = endpoints.server.start(server_argv)
        wait_listening(endpoints.server, server, port, listen_on)
        if probes is not None:
            probes.start()
        samplers = start_samplers(watch, sample_interval, samplers_from or Sampler())
        if power is not None:
            idle_baseline(power, meter)
        if wire is not None:
            wire[1].start()
        client = endpoints.client.start(client_argv)
        _wait_client(
            endpoints.client,
            client,
            timeout=spec.duration + CLIENT_MARGIN,
            on_tick=_with_probes(on_tick, probes),
            target=endpoints.target,
            port=port,
            server=server,
            stuck=lambda text: driver.client_stuck_after_report(text, spec),
        )
        if meter is not None:
            meter.mark("end")
        if _wait_server_report(driver, server, spec):
            server_grace = 0.0
        completed = True
    except TrialFailure as failure:
        reason = str(failure)
    except (WirespeedError, TimeoutError) as error:
        # A host that went away mid-trial (an SSH device unreachable, a namespace gone):
        # this trial fails with the reason, the run goes on.
        reason = error.message if isinstance(error, WirespeedError) else str(error)
    finally:
        with deferred_signals():
            latency = finish_probes(probes, completed)
            client_status = client.stop() if client is not None else None
            meter_raw = meter.stop() if meter is not None else None
            server_status = server.stop(grace=server_grace) if server is not None else None
            sample_sets = stop_samplers(samplers)
            if wire is not None:
                wire_span = wire[1].stop()

    raw: list[RawOutput] = []
    if client is not None:
        raw.append(
            raw_output(endpoints.client, Side.CLIENT, client, client_status, driver.OUTPUT_FORMAT)
        )
    if server is not None:
        raw.append(
            raw_output(endpoints.server, Side.SERVER, server, server_status, driver.OUTPUT_FORMAT)
        )
    if meter_raw is not None:
        raw.append(meter_raw)
    if probes is not None:
        raw.extend(probes.raw)
    result: Result | None = None
    if reason is None:
        result, reason = _parse(driver, raw, spec)
    if result is not None and wire is not None:
        result = with_wire_span(result, wire[0], wire_span)
    return finished_outcome(
        trial,
        started_at,
        with_latency(result, latency),
        reason,
        raw,
        sample_sets=sample_sets,
        probes=probes,
        latency=latency,
        power=power,
        meter_raw=meter_raw,
    )


def finish_probes(probes: LatencyProbes | None, completed: bool) -> tuple[Measurement, ...]:
    """The probes' measurements once the load has ended (loaded ones only if it ran to
    its end); a probe failure is one of their problems, never the trial's."""
    if probes is None:
        return ()
    try:
        return probes.finish(wait=completed)
    except (WirespeedError, TimeoutError) as error:
        probes.problems.append(f"the latency probes failed: {error}")
        return ()


def with_latency(result: Result | None, latency: Sequence[Measurement]) -> Result | None:
    """The result with the probes' measurements beside its own."""
    if result is None or not latency:
        return result
    return dataclasses.replace(result, measurements=(*result.measurements, *latency))


def finished_outcome(
    trial: Trial,
    started_at: float,
    result: Result | None,
    reason: str | None,
    raw: Sequence[RawOutput],
    *,
    sample_sets: list[tuple[str, Host, SampleSet | str]],
    probes: LatencyProbes | None,
    latency: Sequence[Measurement],
    power: PowerSettings | None,
    meter_raw: RawOutput | None,
    more_findings: Sequence[Finding] = (),
) -> TrialOutcome:
    """A traffic trial's outcome once its processes are stopped: its samples and power
    beside the result, and everything judged (the result against the ceiling, each host's
    samples, the probes), less what the result makes moot."""
    monitors, summaries = monitor_records(sample_sets)
    if result is not None and power is not None:
        result = with_power(result, power, meter_raw, summaries)
    bypassed = _dut_bypassed(trial, result, sample_sets) if reason is None else None
    if bypassed is not None:
        # Kept, never ok: what was measured stays, marked as not the DUT's.
        reason = bypassed
        more_findings = (*more_findings, Finding(FindingKind.SUSPECT, bypassed))
    outcome = trial_outcome(trial, started_at, reason, result=result, raw=raw, monitors=monitors)
    findings = judge_result(outcome, ceiling_for(trial))
    for summary in summaries:
        # In a lab this process shares the machine too: it is the run, not other work.
        findings += judge_monitor(summary, controller_pid=os.getpid())
    if probes is not None:
        findings += judge_probes(probes.choice.notice, probes.problems, summaries, bool(latency))
    findings += more_findings
    return dataclasses.replace(outcome, findings=tuple(without_moot(findings, trial.test.spec)))


# The paths whose traffic passes through the DUT (on an endpoint path it is the server).
FORWARDING_TOPOLOGIES = (Topology.BRIDGE, Topology.ROUTER, Topology.NAT)


def _dut_bypassed(
    trial: Trial,
    result: Result | None,
    sample_sets: Sequence[tuple[str, Host, SampleSet | str]],
) -> str | None:
    """Why the trial's traffic cannot have crossed its sampled DUT (analysis/dut_crossing.py);
    None when it may have, or nothing says."""
    if result is None or trial.path.topology not in FORWARDING_TOPOLOGIES:
        return None
    for role, host, samples in sample_sets:
        if role == "dut" and isinstance(samples, SampleSet):
            return not_crossed(result, samples, host.name)
    return None


def idle_baseline(power: PowerSettings, meter: MeterRecorder | None) -> None:
    """The board before the traffic: the samplers run (and the meter is read) for
    power.idle seconds, then the meter's log marks where the load begins."""
    if meter is not None:
        meter.start()
        # Its first reading opens the baseline: a command slow to start must not eat it.
        meter.wait_for_readings(1, timeout=max(power.interval, 1.0) + MIN_TIMEOUT)
    time.sleep(power.idle)
    if meter is not None:
        meter.mark("load")


def with_power(
    result: Result,
    power: PowerSettings,
    meter_raw: RawOutput | None,
    summaries: Sequence[MonitorSummary],
) -> Result:
    """The result with the board's idle and load power, and the energy per Mbit: from
    the meter where the plan names one, else from the DUT's hwmon power channels. The
    meter's complaints become the result's warnings."""
    goodput = total_goodput(result)
    measurements: tuple[Measurement, ...] = ()
    warnings = list(result.warnings)
    if meter_raw is not None:
        log = parse_meter_log(meter_raw.text)
        measurements = power_measurements(log.idle(), log.load(), goodput, "meter")
        warnings += [
            ToolWarning(WarningKind.OTHER, line) for line in meter_raw.stderr.splitlines() if line
        ]
        if not log.idle() or not log.load():
            warnings.append(
                ToolWarning(
                    WarningKind.OTHER,
                    "the power meter gave no reading "
                    + ("before the traffic" if not log.idle() else "during the traffic")
                    + ": no idle or load power for this trial",
                )
            )
    else:
        for summary in summaries:
            if summary.power_timeline is not None:
                # The sampler's clock starts at its first tick, the idle baseline's start.
                idle, load = split_timeline(summary.power_timeline, power.idle)
                measurements = power_measurements(idle, load, goodput, "hwmon")
                if measurements:
                    break
    return dataclasses.replace(
        result,
        measurements=(*result.measurements, *measurements),
        warnings=tuple(warnings),
    )


def _with_probes(
    on_tick: Callable[[float], None] | None, probes: LatencyProbes | None
) -> Callable[[float], None] | None:
    """The client's ticks also start the loaded probes once the load has filled the queue."""
    if probes is None:
        return on_tick

    def tick(elapsed: float) -> None:
        probes.load_started_for(elapsed)
        if on_tick is not None:
            on_tick(elapsed)

    return tick


def without_moot(findings: list[Finding], spec: TestSpec) -> list[Finding]:
    """A busy core (or a busy lab machine) did not limit a trial whose every flow reached
    line rate: the link did. (In the lab every namespace shares this machine's cores, so
    they are often busy.)"""
    at_line_rate = {f.flow for f in findings if f.kind is FindingKind.LINE_RATE}
    if at_line_rate >= set(spec.flows):
        return [f for f in findings if f.kind not in LIMITS]
    return findings


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


def _wait_server_report(driver: Driver, server: Process, spec: TestSpec) -> bool:
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


def _parse(
    driver: Driver, raw: list[RawOutput], spec: TestSpec
) -> tuple[Result | None, str | None]:
    from wirespeed.tools.merge import merge

    by_side = {r.side: r for r in raw}
    client_raw = by_side.get(Side.CLIENT)
    if client_raw is None:
        return None, "the client never ran"
    try:
        # Both iperfs print their errors ("connect failed", "unable to connect") on stderr.
        client_result = driver.parse(both_streams(client_raw), Side.CLIENT)
    except ValueError as error:
        said = client_raw.stderr.strip().splitlines()
        detail = said[-1] if said else str(error)
        return None, f"the client's output could not be read: {detail}"
    server_result: Result | None = None
    server_raw = by_side.get(Side.SERVER)
    if server_raw is not None and server_raw.text.strip():
        try:
            server_result = driver.parse(both_streams(server_raw), Side.SERVER)
        except ValueError:
            server_result = None  # the client's numbers stand; merge notes what is missing
    result = merge(client_result, server_result)
    fatal = [w for w in result.warnings if w.kind in FATAL_WARNINGS]
    if fatal:
        return result, "; ".join(w.message for w in fatal)
    if not result.directions:
        stderr = client_raw.stderr.strip().splitlines()
        return result, stderr[-1] if stderr else "iperf reported no measurement"
    missing = [flow.value for flow in spec.flows if result.direction(flow) is None]
    if missing:
        return result, _missing_direction(missing, spec)
    unheard = _not_received(result, spec)
    if unheard is not None:
        return result, unheard
    short = _cut_short(result, spec, client_raw)
    if short is not None:
        return result, short
    return result, None


def _missing_direction(missing: list[str], spec: TestSpec) -> str:
    said = f"no measurement of the {' and '.join(missing)} direction (asked for {spec.direction})"
    if spec.direction is Direction.DUAL:
        # iperf2 -d through NAT or a firewall: the reverse connection is refused, iperf
        # measures one direction and still exits 0. A half result is not the test asked for.
        return (
            f"{said}: the reverse flow never started; iperf2 -d needs the server to "
            "connect back to the client, which NAT and firewalls block (use bidir or "
            "down instead)"
        )
    return f"{said}: iperf reported none"


def _not_received(result: Result, spec: TestSpec) -> str | None:
    """Why a UDP flow has no figure of its receiver, or None. A UDP sender writes at its
    rate whether or not anything arrives (a gateway nobody answers drops every datagram
    in the sender's own ARP queue, and iperf2 exits 0): its rate is not goodput, and a
    trial that has no other is not measured. (TCP delivers what it sends, and
    its connection fails when nothing arrives.) What it sent stays in the result."""
    if spec.protocol is not Proto.UDP:
        return None
    for flow in spec.flows:
        direction = result.direction(flow)
        if direction is None or direction.received is not None:
            continue
        receiver = "server" if flow is Flow.UP else "client"
        sent = direction.sent
        rate = "" if sent is None else f" ({format_rate(sent.bits_per_second)})"
        return (
            f"the {receiver} reported nothing received of the {flow} flow: what was sent"
            f"{rate} never reached it, or its report was lost; a sender's rate is not "
            "goodput (check the route between client and server: a gateway that does "
            "not answer, a firewall)"
        )
    return None


# A flow measured over less than this share of the test's duration was cut short.
SHORT_FRACTION = 0.9


def _cut_short(result: Result, spec: TestSpec, client_raw: RawOutput) -> str | None:
    """Why the result covers only part of the test, or None. A server killed mid-test
    makes iperf2's client print "write failed: Connection reset by peer", a summary of
    the seconds it managed, and exit 0: a number that looks whole but is not."""
    for direction in result.directions:
        spans = [m.seconds for m in (direction.sent, direction.received) if m is not None]
        if spans and max(spans) < SHORT_FRACTION * spec.duration:
            said = client_raw.stderr.strip().splitlines()
            detail = f" ({said[0]})" if said else ""
            return (
                f"the {direction.flow.value} flow stopped after {max(spans):.1f} s of the "
                f"{spec.duration:g} s asked for{detail}: the other end went away mid-test"
            )
    return None
