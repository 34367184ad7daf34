"""Start a sampler on a host around a trial, stop it, and get what it saw.

    running = Sampler.start(host, interval=1.0)
    running.wait_for_ticks(1)          # a baseline before the traffic starts
    ...
    samples = running.stop()           # never hangs: SIGTERM, then SIGKILL

On SIGTERM the sampler writes a last tick that reads everything (the counters and
gauges it reads about once a second, the processes it scans every few seconds), so
that each spans the whole trial; the process is waited for while it does.

A sampler that ended before stop() was called (its host vanished, someone killed it,
it reached its max runtime) gives a SampleSet with partial=True and the reason; so does
one that never wrote a complete tick. A host that could not keep the interval (busybox
without fractional sleep ticks every whole second) gives the interval it kept, and
requested_interval the one asked for.
"""

from __future__ import annotations

import time
from typing import Protocol

from wirespeed.hosts.base import Host, Process
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.script import DEFAULT_MAX_RUNTIME, sampler_argv
from wirespeed.sampling.stream import ParsedStream, parse_stream

_POLL_SECONDS = 0.01
# How long a sampler may take to become ready (its header written, its signal traps set):
# a shell, two awks and a scan of the processes, on a host that may be busy.
READY_TIMEOUT = 5.0


class TrialSampler(Protocol):
    """A trial's sampling: RunningSampler, or a pool's Segment (sampling/pool.py)."""

    def wait_for_ticks(self, count: int, timeout: float = 10.0) -> bool: ...

    def stop(self, grace: float = 1.0) -> SampleSet: ...


class SamplerSource(Protocol):
    """Where a trial's samplers come from: Sampler (one per trial), or a SamplerPool."""

    def start(self, host: Host, interval: float = 1.0) -> TrialSampler: ...


class RunningSampler:
    """A sampler started by Sampler.start; stop it exactly once."""

    def __init__(self, host: Host, process: Process, interval: float) -> None:
        self.host = host
        self.process = process
        self.interval = interval
        self.started_at = time.time()  # this machine's clock, to align with the tools
        self._stopped: SampleSet | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def ticks(self) -> int:
        """Complete ticks written so far."""
        return self.process.stdout().count("\n@@end ")

    def ready(self) -> bool:
        """Whether the header is complete: from then on the sampler's shell has its signal
        traps set, and a signal asks it for a tick instead of ending it."""
        return "@@ready\n" in self.process.stdout()

    def wait_until_ready(self, timeout: float = READY_TIMEOUT) -> bool:
        """Wait (polling) until ready; False if the sampler ended or the timeout passed."""
        deadline = time.monotonic() + timeout
        while not self.ready():
            if not self.alive or time.monotonic() > deadline:
                return self.ready()
            time.sleep(_POLL_SECONDS)
        return True

    def wait_for_ticks(self, count: int, timeout: float = 10.0) -> bool:
        """Wait until `count` ticks are complete; False if the sampler ended or the
        timeout passed first."""
        deadline = time.monotonic() + timeout
        while self.ticks() < count:
            if not self.alive or time.monotonic() > deadline:
                return self.ticks() >= count
            time.sleep(_POLL_SECONDS)
        return True

    def stop(self, grace: float = 1.0) -> SampleSet:
        if self._stopped is not None:
            return self._stopped
        # A SIGTERM before the shell's traps are set would end it without its last tick.
        self.wait_until_ready()
        ended_early = self.process.poll() is not None
        status = self.process.stop(grace)
        text = self.process.stdout()
        parsed = parse_stream(text)
        reason = why_partial(parsed, ended_early, status, self.process.stderr())
        self._stopped = sample_set(self.host.name, self.interval, text, parsed, reason)
        return self._stopped


def sample_set(
    host: str, interval: float, text: str, parsed: ParsedStream, reason: str | None
) -> SampleSet:
    """What a stream (`text`, parsed) says, as a SampleSet; `reason` why it is partial."""
    return SampleSet(
        host=host,
        interval=parsed.interval if parsed.interval is not None else interval,
        requested_interval=parsed.requested_interval if parsed.interval_raised else None,
        start_uptime=parsed.start_uptime or 0.0,
        device_epoch=parsed.device_epoch,
        info=parsed.info,
        snapshots=parsed.snapshots,
        kernel=parsed.kernel,
        partial=reason is not None,
        reason=reason,
        raw=text,
    )


def why_partial(parsed: ParsedStream, ended_early: bool, status: int, stderr: str) -> str | None:
    detail = stderr.strip().splitlines()[-1] if stderr.strip() else ""
    if not parsed.ready:
        return f"the sampler never started (exit status {status}){': ' + detail if detail else ''}"
    if parsed.exit_reason == "max-runtime":
        return "the sampler reached its max runtime before the trial ended"
    if ended_early:
        said = f", it said: {parsed.exit_reason}" if parsed.exit_reason else ""
        return f"the sampler ended before it was stopped (exit status {status}{said})"
    if not parsed.snapshots:
        return "the sampler wrote no complete tick"
    return None


class Sampler:
    """Starts samplers; see the module's docstring."""

    @staticmethod
    def start(
        host: Host,
        interval: float = 1.0,
        *,
        root: str = "/",
        max_runtime: float = DEFAULT_MAX_RUNTIME,
    ) -> RunningSampler:
        argv = sampler_argv(interval, root, max_runtime)
        return RunningSampler(host, host.start(argv), interval)
