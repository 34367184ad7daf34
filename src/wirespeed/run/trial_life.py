"""What every trial that runs programs on hosts shares, whatever its kind: its life
(live_trial: the kind's steps run, the watched hosts sampled meanwhile, everything it
started stopped whatever happens, then its outputs collected and judged into the outcome
the runner stores), where its two ends are, how it fails early with a reason, its server
started and waited for, its samples turned into the records and summaries that findings
are judged on, and a program's output read and kept.

The iperf trial (trial.py), RRUL, the search, benchmarks and exchanges (bounceback) each
give live_trial only what is their own (a TrialBody).
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from wirespeed.analysis.findings import judge_monitor
from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.hosts.sockets import listening
from wirespeed.model import (
    Finding,
    Measurement,
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
from wirespeed.sampling.session import Sampler, SamplerSource, TrialSampler
from wirespeed.sampling.summary import MonitorSummary, summarize
from wirespeed.signals import deferred_signals

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


@dataclass(frozen=True)
class Watching:
    """The hosts to sample while a trial runs, by role, every `interval` seconds: from
    `samplers` (a run's SamplerPool, one kept across trials), else one sampler each."""

    hosts: Sequence[tuple[str, Host]] = ()
    interval: float = 1.0
    samplers: SamplerSource | None = None


@dataclass
class TrialLife:
    """One trial from its start to its outcome: why it failed (None while it has not),
    and its watched hosts' samplers, then their samples."""

    trial: Trial
    watching: Watching
    started_at: float = field(default_factory=time.time)
    reason: str | None = None
    samplers: list[tuple[str, Host, TrialSampler | str]] = field(default_factory=list)
    sample_sets: list[tuple[str, Host, SampleSet | str]] = field(default_factory=list)
    _records: tuple[tuple[MonitorRecord, ...], list[MonitorSummary]] | None = field(
        default=None, init=False, repr=False
    )

    def watch(self) -> None:
        """Start sampling the watched hosts: the kind says when, just before its load."""
        self.samplers = start_samplers(
            self.watching.hosts, self.watching.interval, self.watching.samplers or Sampler()
        )

    def outcome(
        self,
        *,
        result: Result | None,
        raw: Sequence[RawOutput],
        findings: Sequence[Finding] = (),
        workload: Collection[str] | None = None,
    ) -> TrialOutcome:
        """The outcome: the kind's findings, then what each sampled host was doing
        (`workload`: the programs that are the trial's own load, a benchmark's)."""
        monitors, summaries = self.records()
        judged = [
            finding
            for summary in summaries
            # In a lab this process shares the machine too: it is the run, not other work.
            for finding in judge_monitor(summary, controller_pid=os.getpid(), workload=workload)
        ]
        return trial_outcome(
            self.trial,
            self.started_at,
            self.reason,
            result=result,
            raw=raw,
            monitors=monitors,
            findings=[*findings, *judged],
        )

    def figures(
        self, measurements: Sequence[Measurement], version: str | None = None
    ) -> Result | None:
        """A result of figures alone (a benchmark's, an exchange's), or None once the
        trial has failed: its figures may be partial."""
        if self.reason is not None:
            return None
        return Result(
            tool=self.trial.test.tool,
            protocol=None,
            directions=(),
            tool_version=version,
            measurements=tuple(measurements),
        )

    def records(self) -> tuple[tuple[MonitorRecord, ...], list[MonitorSummary]]:
        """The samples' records and summaries, once the samplers are stopped."""
        if self._records is None:
            self._records = monitor_records(self.sample_sets)
        return self._records


class TrialBody(Protocol):
    """What one kind gives live_trial: its steps, their undoing, and its outcome."""

    def run(self, life: TrialLife) -> None:
        """The kind's steps, calling life.watch() where sampling begins. A TrialFailure
        (or a host's WirespeedError or TimeoutError) ends the trial with its reason."""
        ...

    def stop(self) -> None:
        """Stop whatever run() started, from wherever it got to: this runs always, with
        Ctrl-C and SIGTERM held until it is done."""
        ...

    def outcome(self, life: TrialLife) -> TrialOutcome:
        """What was collected, read and judged, once everything is stopped."""
        ...


@contextlib.contextmanager
def stopped_after(stop: Callable[[], None]) -> Iterator[None]:
    """The block, then `stop` whatever happened in it: a second Ctrl-C (or a SIGTERM)
    meanwhile waits until everything is stopped, then passes through."""
    try:
        yield
    finally:
        with deferred_signals():
            stop()


def live_trial(trial: Trial, body: TrialBody, watching: Watching) -> TrialOutcome:
    """Run a trial to its outcome. Failures become a FAILED outcome, never an exception
    (but KeyboardInterrupt and SIGTERM pass through, after the processes are stopped)."""
    life = TrialLife(trial, watching)
    try:
        body.run(life)
    except TrialFailure as failure:
        life.reason = str(failure)
    except (WirespeedError, TimeoutError) as error:
        # A host that went away mid-trial (an SSH device unreachable, a namespace gone):
        # this trial fails with the reason, the run goes on.
        life.reason = error.message if isinstance(error, WirespeedError) else str(error)
    finally:
        with deferred_signals():
            body.stop()
            life.sample_sets = stop_samplers(life.samplers)
    return body.outcome(life)


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
