"""Run one RRUL trial: two iperf3 servers, the idle probes, both directions' clients at
once with the loaded probes beside them, collect, stop.

The steps are run_trial's (run/trial.py), doubled: a server and a client per direction
(tools/rrul.py says why two processes). Whatever happens, every process started here is
stopped before run_rrul_trial returns or raises, and the raw outputs of all four ends
and of the probes are kept: each client's before its server's, up before down.
"""

from __future__ import annotations

import dataclasses
import os
import time
from collections.abc import Callable, Sequence

from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.analysis.findings import judge_monitor, judge_probes, judge_result
from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.model import (
    Flow,
    Measurement,
    PowerSettings,
    Proto,
    RawOutput,
    Result,
    Side,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.run.probes import probes_for
from wirespeed.run.trial import (
    CLIENT_MARGIN,
    Endpoints,
    TrialFailure,
    _parse,
    _raw,
    _wait_server_report,
    _with_probes,
    check_port_free,
    idle_baseline,
    monitor_records,
    start_samplers,
    stop_samplers,
    wait_listening,
    with_power,
    without_moot,
)
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.session import Sampler, SamplerSource, TrialSampler
from wirespeed.signals import deferred_signals
from wirespeed.tools import iperf3, rrul

TICK = 0.05


def run_rrul_trial(
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
    """As run_trial: failures become a FAILED outcome, never an exception (but
    KeyboardInterrupt and SIGTERM pass through, after the processes are stopped)."""
    spec = trial.test.spec
    ports = rrul.ports(port or rrul.DEFAULT_PORT)
    started_at = time.time()
    servers: dict[Flow, Process] = {}
    clients: dict[Flow, Process] = {}
    samplers: list[tuple[str, Host, TrialSampler | str]] = []
    sample_sets: list[tuple[str, Host, SampleSet | str]] = []
    statuses: dict[tuple[Flow, Side], int | None] = {}
    reason: str | None = None
    server_grace = 1.0
    probes = probes_for(spec, endpoints.client, endpoints.server, endpoints.target)
    if probes is not None and probes.choice.notice is not None and notice is not None:
        notice(probes.choice.notice)
    latency: tuple[Measurement, ...] = ()
    completed = False
    try:
        for flow in rrul.FLOWS:
            check_port_free(endpoints.server, ports[flow], Proto.TCP)
        for flow in rrul.FLOWS:
            servers[flow] = endpoints.server.start(rrul.server_argv(spec, flow, ports[flow]))
        for flow in rrul.FLOWS:
            wait_listening(endpoints.server, servers[flow], ports[flow], Proto.TCP)
        if probes is not None:
            probes.start()
        samplers = start_samplers(watch, sample_interval, samplers_from or Sampler())
        if power is not None:
            idle_baseline(power, None)
        # Both at once: the load is both directions together from its first second.
        for flow in rrul.FLOWS:
            argv = rrul.client_argv(spec, flow, endpoints.target, ports[flow])
            clients[flow] = endpoints.client.start(argv)
        _wait_clients(clients, spec.duration + CLIENT_MARGIN, _with_probes(on_tick, probes))
        if all(_wait_server_report(iperf3, servers[flow], spec) for flow in rrul.FLOWS):
            server_grace = 0.0
        completed = True
    except TrialFailure as failure:
        reason = str(failure)
    except (WirespeedError, TimeoutError) as error:
        reason = error.message if isinstance(error, WirespeedError) else str(error)
    finally:
        with deferred_signals():
            if probes is not None:
                try:
                    latency = probes.finish(wait=completed)
                except (WirespeedError, TimeoutError) as error:
                    probes.problems.append(f"the latency probes failed: {error}")
            for flow, process in clients.items():
                statuses[flow, Side.CLIENT] = process.stop()
            for flow, process in servers.items():
                statuses[flow, Side.SERVER] = process.stop(grace=server_grace)
            sample_sets = stop_samplers(samplers)

    raw: list[RawOutput] = []
    by_flow: dict[Flow, list[RawOutput]] = {}
    for flow in rrul.FLOWS:
        ends = [
            _raw(host, side, process, iperf3, statuses.get((flow, side)))
            for side, host, process in (
                (Side.CLIENT, endpoints.client, clients.get(flow)),
                (Side.SERVER, endpoints.server, servers.get(flow)),
            )
            if process is not None
        ]
        by_flow[flow] = ends
        raw.extend(ends)
    if probes is not None:
        raw.extend(probes.raw)
    result: Result | None = None
    if reason is None:
        result, reason = parse_flows(by_flow, trial)
    if result is not None and latency:
        result = dataclasses.replace(result, measurements=(*result.measurements, *latency))
    monitors, summaries = monitor_records(sample_sets)
    if result is not None and power is not None:
        result = with_power(result, power, None, summaries)
    outcome = TrialOutcome(
        trial=trial,
        status=TrialStatus.OK if reason is None else TrialStatus.FAILED,
        started_at=started_at,
        finished_at=time.time(),
        result=result,
        reason=reason,
        raw=tuple(raw),
        monitors=monitors,
    )
    findings = judge_result(outcome, ceiling_for(trial))
    for summary in summaries:
        findings += judge_monitor(summary, controller_pid=os.getpid())
    if probes is not None:
        findings += judge_probes(probes.choice.notice, probes.problems, summaries, bool(latency))
    return dataclasses.replace(outcome, findings=tuple(without_moot(findings, spec)))


def parse_flows(
    by_flow: dict[Flow, list[RawOutput]], trial: Trial
) -> tuple[Result | None, str | None]:
    """Each direction's process read as an iperf3 test of its own (the same checks: an
    error, a flow cut short), then both as one RRUL result. A direction that failed
    fails the trial, with the direction named."""
    results: dict[Flow, Result] = {}
    for flow in rrul.FLOWS:
        one_way = rrul.one_way(trial.test.spec, flow)
        result, reason = _parse(iperf3, by_flow.get(flow, []), one_way)
        if reason is not None:
            return None, f"the {flow.value} flow: {reason}"
        if result is not None:
            results[flow] = result
    return rrul.combine(results), None


def _wait_clients(
    clients: dict[Flow, Process], timeout: float, on_tick: Callable[[float], None] | None
) -> None:
    """Until both clients end; a client that outlives the test's time is hung."""
    start = time.monotonic()
    while any(process.poll() is None for process in clients.values()):
        elapsed = time.monotonic() - start
        if elapsed > timeout:
            hung = [flow.value for flow, p in clients.items() if p.poll() is None]
            raise TrialFailure(
                f"the iperf3 client of the {' and '.join(hung)} flow did not finish within "
                f"{timeout:.0f} s and was stopped (hung, or the server is unreachable)"
            )
        if on_tick is not None:
            on_tick(elapsed)
        time.sleep(TICK)


__all__ = ["parse_flows", "run_rrul_trial"]
