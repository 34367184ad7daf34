"""One sampler per host for a whole run, its output cut into a stream per trial.

Starting a sampler costs its host about 15 ms of CPU (a shell, two awks, the kernel
log's history, a scan of the processes): at 1 Hz more than sampling a 10 s trial costs.
The pool starts one per host the first time a trial watches it; for every later trial it
asks that one for a new segment (SIGUSR1) and ends the segment after the trial
(SIGUSR2). Each segment is a whole stream, as a sampler started for that trial would
have written (sampler.sh says how); between trials the sampler reads and writes nothing.

    pool = SamplerPool()
    running = pool.start(host, interval=1.0)   # as Sampler.start
    running.wait_for_ticks(1)
    samples = running.stop()                   # this trial's stream, as a SampleSet
    ...
    pool.close()                               # stops every sampler; also on failure

A sampler that ended (its host went away, its max runtime passed) is started anew at
the next trial; one whose segment does not end in time is stopped, its samples partial.
"""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass

from wirespeed.hosts.base import Host, Process
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.session import RunningSampler, Sampler, sample_set, why_partial
from wirespeed.sampling.stream import parse_stream

_POLL_SECONDS = 0.01
# How long the end of a segment may take to arrive: its last tick reads everything and
# scans the processes (milliseconds), and an SSH device's output comes by polling.
SEGMENT_END_TIMEOUT = 5.0
# A sampler whose output held this much is replaced at the next trial: the controller
# keeps all of it in memory (a 10 Hz segment writes about 3 KB a second).
MAX_OUTPUT_CHARS = 4_000_000


class Segment(RunningSampler):
    """One trial's part of a pooled sampler: a RunningSampler whose output starts at
    `offset` of its process's, and whose stop() ends the segment, not the process."""

    def __init__(self, pool: SamplerPool, kept: _Kept, offset: int) -> None:
        super().__init__(kept.host, kept.process, kept.interval)
        self._pool = pool
        self._kept = kept
        self._offset = offset

    def _text(self) -> str:
        return self.process.stdout()[self._offset :]

    def ticks(self) -> int:
        return ("\n" + self._text()).count("\n@@end ")

    def ready(self) -> bool:
        return "@@ready\n" in self._text()

    def stop(self, grace: float = 1.0) -> SampleSet:
        if self._stopped is not None:
            return self._stopped
        # Before its header a sampler's shell may not have set its traps yet, and SIGUSR2
        # would end it: a trial that stops at once waits for that first.
        self.wait_until_ready()
        ended_early = not self.alive
        late = False
        if not ended_early:
            self.process.send_signal(signal.SIGUSR2)
            if not self._wait_for_end(SEGMENT_END_TIMEOUT):
                ended_early = not self.alive  # it died meanwhile
                if not ended_early:
                    late = True
                    self.process.stop(grace)  # what it wrote is all there will be
        text = self._text()
        end = text.find("\n@@exit ")
        if end >= 0:
            text = text[: text.index("\n", end + 1) + 1]
        parsed = parse_stream(text)
        reason = None
        ended = not self.alive
        if late:
            reason = "the sampler did not end its segment in time"
        elif ended:  # before, during or (max runtime) after the segment
            status = self.process.wait()
            reason = why_partial(parsed, ended_early, status, self.process.stderr())
        self._pool.ended(self._kept, self._offset + len(text), alive=not ended)
        self._stopped = sample_set(self.host.name, self.interval, text, parsed, reason)
        return self._stopped

    def _wait_for_end(self, timeout: float) -> bool:
        """Whether the segment's exit line came (whole) before the timeout."""
        deadline = time.monotonic() + timeout
        while True:
            text = "\n" + self._text()  # the exit line may be the segment's first
            end = text.find("\n@@exit ")
            if end >= 0 and text.find("\n", end + 1) >= 0:
                return True
            if not self.alive or time.monotonic() > deadline:
                return False
            time.sleep(_POLL_SECONDS)


@dataclass
class _Kept:
    host: Host
    process: Process
    interval: float
    idle_at: int | None = None  # where the next segment starts in its output, when idle


class SamplerPool:
    """Samplers kept across a run's trials; see the module's docstring."""

    def __init__(self) -> None:
        self._kept: dict[int, _Kept] = {}  # by id() of the host, which it keeps alive

    def start(self, host: Host, interval: float = 1.0) -> Segment:
        kept = self._kept.get(id(host))
        if kept is not None and kept.host is host and self._reusable(kept, interval):
            assert kept.idle_at is not None
            offset, kept.idle_at = kept.idle_at, None
            kept.process.send_signal(signal.SIGUSR1)
            return Segment(self, kept, offset)
        if kept is not None:
            self._stop(kept)
        running: RunningSampler = Sampler.start(host, interval)
        kept = _Kept(host, running.process, interval)
        self._kept[id(host)] = kept
        return Segment(self, kept, 0)

    @staticmethod
    def _reusable(kept: _Kept, interval: float) -> bool:
        return (
            kept.idle_at is not None
            and kept.interval == interval
            and kept.idle_at < MAX_OUTPUT_CHARS
            and kept.process.poll() is None
        )

    def ended(self, kept: _Kept, offset: int, *, alive: bool) -> None:
        """A segment ended at `offset` of its sampler's output; a sampler that did not
        end its segment cleanly is not used again."""
        if alive:
            kept.idle_at = offset
        else:
            self._stop(kept)

    def _stop(self, kept: _Kept) -> None:
        if self._kept.get(id(kept.host)) is kept:
            del self._kept[id(kept.host)]
        kept.process.stop()

    def close(self) -> None:
        """Stop every sampler (each ends with its last tick, which nobody reads)."""
        for kept in list(self._kept.values()):
            self._stop(kept)
