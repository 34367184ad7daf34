"""A traffic trial's outcome beside its result (iperf's and RRUL's): the latency probes
started with the load and finished after it, the board's idle and load power, and
everything judged (the result against its ceiling, the sampled hosts, the probes), less
what the result makes moot.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.analysis.dut_crossing import not_crossed
from wirespeed.analysis.findings import LIMITS, judge_probes, judge_result
from wirespeed.analysis.power import power_measurements, split_timeline, total_goodput
from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.model import (
    Finding,
    FindingKind,
    Measurement,
    PowerSettings,
    RawOutput,
    Result,
    TestSpec,
    ToolWarning,
    Topology,
    Trial,
    TrialOutcome,
    WarningKind,
)
from wirespeed.run.power_meter import MIN_TIMEOUT, MeterRecorder
from wirespeed.run.probes import LatencyProbes, probes_for
from wirespeed.run.trial_life import Endpoints, TrialLife
from wirespeed.sampling.meter import parse_meter_log
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.summary import MonitorSummary


@dataclass(frozen=True)
class TrafficOptions:
    """What a traffic trial between a path's ends (iperf's, RRUL's) is given beside the
    trial and its ends, by its run (run/kind_runs.py) or its caller: the port its servers
    listen on (None: the tool's own), the progress ticks, the plan's `power:`, and where
    a note goes."""

    port: int | None = None
    on_tick: Callable[[float], None] | None = None
    power: PowerSettings | None = None
    notice: Callable[[str], None] | None = None


@dataclass(kw_only=True)
class TrafficTrial:
    """What a trial of traffic between a path's ends (iperf's, RRUL's) has beside its own
    processes: the latency probes started with its load, the board's idle baseline, and
    its outcome judged once they are stopped."""

    on_tick: Callable[[float], None] | None
    power: PowerSettings | None
    probes: LatencyProbes | None
    # Grace for the servers on stop: none once their reports are complete (iperf2 takes
    # a full second to act on SIGTERM, and there is nothing left to read); else a
    # second, since iperf2 prints what it has on SIGTERM.
    server_grace: float = 1.0
    completed: bool = False  # the load ran to its end: the loaded probes are worth waiting for
    latency: tuple[Measurement, ...] = ()

    def before_load(self, life: TrialLife, meter: MeterRecorder | None = None) -> None:
        """Once the servers listen: the idle probes, the watched hosts' samplers, then
        the power's idle baseline."""
        if self.probes is not None:
            self.probes.start()
        life.watch()
        if self.power is not None:
            idle_baseline(self.power, meter)

    def ticks(self) -> Callable[[float], None] | None:
        """The clients' ticks, which also start the loaded probes (with_probes)."""
        return with_probes(self.on_tick, self.probes)

    def stop_probes(self) -> None:
        self.latency = finish_probes(self.probes, self.completed)

    def judged(
        self,
        life: TrialLife,
        result: Result | None,
        raw: Sequence[RawOutput],
        *,
        meter_raw: RawOutput | None = None,
        more_findings: Sequence[Finding] = (),
    ) -> TrialOutcome:
        """The outcome of `result` (its latency already beside it: with_latency)."""
        return finished_outcome(
            life,
            result,
            raw,
            probes=self.probes,
            latency=self.latency,
            power=self.power,
            meter_raw=meter_raw,
            more_findings=more_findings,
        )


def latency_probes(
    spec: TestSpec, endpoints: Endpoints, notice: Callable[[str], None] | None
) -> LatencyProbes | None:
    """The probes beside the test's load between the ends (probes.py), their choice said."""
    probes = probes_for(spec, endpoints.client, endpoints.server, endpoints.target)
    if probes is not None and probes.choice.notice is not None and notice is not None:
        notice(probes.choice.notice)
    return probes


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
    life: TrialLife,
    result: Result | None,
    raw: Sequence[RawOutput],
    *,
    probes: LatencyProbes | None,
    latency: Sequence[Measurement],
    power: PowerSettings | None,
    meter_raw: RawOutput | None,
    more_findings: Sequence[Finding] = (),
) -> TrialOutcome:
    """A traffic trial's outcome once its processes are stopped: its samples and power
    beside the result, and everything judged (the result against the ceiling, each host's
    samples, the probes), less what the result makes moot."""
    trial = life.trial
    _, summaries = life.records()
    if result is not None and power is not None:
        result = with_power(result, power, meter_raw, summaries)
    bypassed = _dut_bypassed(trial, result, life.sample_sets) if life.reason is None else None
    if bypassed is not None:
        # Kept, never ok: what was measured stays, marked as not the DUT's.
        life.reason = bypassed
        more_findings = (*more_findings, Finding(FindingKind.SUSPECT, bypassed))
    outcome = life.outcome(result=result, raw=raw)
    findings = judge_result(outcome, ceiling_for(trial)) + list(outcome.findings)
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


def with_probes(
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
