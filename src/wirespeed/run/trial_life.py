"""What every trial that runs programs on hosts shares, whatever its kind: where its two
ends are, how it fails early with a reason, its server started and waited for, the
samplers on the watched hosts started before and stopped after, their samples turned
into the records and summaries that findings are judged on, a program's output read and
kept, and the outcome it comes to.

The iperf trial (trial.py), RRUL, the search, benchmarks and exchanges (bounceback) are
built from these.
"""

from __future__ import annotations

import os
import time
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from wirespeed.analysis.findings import judge_monitor
from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.hosts.sockets import listening
from wirespeed.model import (
    Finding,
    MonitorRecord,
    Proto,
    RawOutput,
    Result,
    Side,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.session import SamplerSource, TrialSampler
from wirespeed.sampling.summary import MonitorSummary, summarize

# How long a server may take to bind its port. iperf starts in milliseconds; a loaded
# single-core router over SSH can take a second or two.
READY_TIMEOUT = 5.0
# How long a sampler may take to write its first tick (the baseline of every delta).
BASELINE_TIMEOUT = 3.0
POLL = 0.01


@dataclass(frozen=True)
class Endpoints:
    """Where a trial's two ends run, and the address the client connects to."""

    client: Host
    server: Host
    target: str


class TrialFailure(Exception):
    """Ends a trial early with a reason; the raw outputs collected so far are kept."""


def start_samplers(
    watch: Sequence[tuple[str, Host]], interval: float, source: SamplerSource
) -> list[tuple[str, Host, TrialSampler | str]]:
    """One sampler per watched host; one that cannot start is noted, not fatal: the
    trial's result stands without the device's samples."""
    started: list[tuple[str, Host, TrialSampler | str]] = []
    for role, host in watch:
        try:
            running = source.start(host, interval=interval)
        except (WirespeedError, OSError) as error:
            started.append((role, host, f"the sampler did not start: {error}"))
            continue
        # A first tick before the traffic: CPU shares are differences between ticks.
        running.wait_for_ticks(1, timeout=BASELINE_TIMEOUT)
        started.append((role, host, running))
    return started


def stop_samplers(
    samplers: Sequence[tuple[str, Host, TrialSampler | str]],
) -> list[tuple[str, Host, SampleSet | str]]:
    """Each started sampler's samples; one that never started keeps its reason."""
    return [
        (role, host, running if isinstance(running, str) else running.stop())
        for role, host, running in samplers
    ]


def monitor_records(
    sample_sets: Sequence[tuple[str, Host, SampleSet | str]],
) -> tuple[tuple[MonitorRecord, ...], list[MonitorSummary]]:
    records: list[MonitorRecord] = []
    summaries: list[MonitorSummary] = []
    for role, host, samples in sample_sets:
        if isinstance(samples, str):
            records.append(MonitorRecord(host.name, role, 0.0, "", "", True, samples))
            continue
        summary_json = ""
        if samples.snapshots:
            summary = summarize(samples)
            summaries.append(summary)
            summary_json = summary.to_json()
        records.append(
            MonitorRecord(
                host=host.name,
                role=role,
                interval=samples.interval,
                raw=samples.raw,
                summary=summary_json,
                partial=samples.partial,
                reason=samples.reason,
            )
        )
    return tuple(records), summaries


def check_port_free(host: Host, port: int, protocol: Proto) -> None:
    if listening(host, None, port, protocol):
        raise TrialFailure(
            f"port {port} is already in use on {host.name}: another program listens there; "
            "stop it (or an iperf server left running by hand) and run again"
        )


def wait_listening(host: Host, server: Process, port: int, protocol: Proto) -> None:
    """Poll the server's own socket table until the port is bound: never sleep blindly."""
    deadline = time.monotonic() + READY_TIMEOUT
    while time.monotonic() < deadline:
        if server.poll() is not None:
            detail = (server.stderr() or server.stdout()).strip().splitlines()
            said = f": {detail[-1]}" if detail else ""
            raise TrialFailure(f"the iperf server on {host.name} exited at start{said}")
        if listening(host, server.pid, port, protocol):
            return
        time.sleep(POLL)
    raise TrialFailure(f"the iperf server on {host.name} did not listen within {READY_TIMEOUT} s")


def both_streams(raw: RawOutput) -> str:
    """stdout then stderr: tools print their errors on stderr, and parsers quote them."""
    return raw.text if not raw.stderr else f"{raw.text}\n{raw.stderr}"


def raw_output(
    host: Host, side: Side, process: Process, status: int | None, output_format: str = "text"
) -> RawOutput:
    """What a program said and how it ended, kept so that its parsing can be redone."""
    return RawOutput(
        host=host.name,
        side=side,
        argv=process.argv,
        format=output_format,
        text=process.stdout(),
        stderr=process.stderr(),
        exit_status=status,
    )


def judged_monitors(
    sample_sets: Sequence[tuple[str, Host, SampleSet | str]],
    *,
    workload: Collection[str] | None = None,
) -> tuple[tuple[MonitorRecord, ...], list[Finding]]:
    """The samples' records, and what each sampled host was doing, judged. `workload`:
    the programs that are the trial's own load (a benchmark's), not other work."""
    monitors, summaries = monitor_records(sample_sets)
    findings: list[Finding] = []
    for summary in summaries:
        # In a lab this process shares the machine too: it is the run, not other work.
        findings += judge_monitor(summary, controller_pid=os.getpid(), workload=workload)
    return monitors, findings


def trial_outcome(
    trial: Trial,
    started_at: float,
    reason: str | None,
    *,
    result: Result | None,
    raw: Sequence[RawOutput],
    monitors: tuple[MonitorRecord, ...],
    findings: Sequence[Finding] = (),
) -> TrialOutcome:
    """The trial come to an end now: OK without a reason, else FAILED with it."""
    return TrialOutcome(
        trial=trial,
        status=TrialStatus.OK if reason is None else TrialStatus.FAILED,
        started_at=started_at,
        finished_at=time.time(),
        result=result,
        reason=reason,
        raw=tuple(raw),
        monitors=monitors,
        findings=tuple(findings),
    )
