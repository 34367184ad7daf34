"""A run's sampler per host, cut into a whole stream per trial: the real sampler on this
machine, under dash and under busybox alone."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from sampling_fixtures import BUSYBOX, busybox_path

from wirespeed.hosts.local import LocalHost
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.pool import SamplerPool
from wirespeed.sampling.stream import parse_stream


@pytest.fixture
def pool() -> Iterator[SamplerPool]:
    samplers = SamplerPool()
    yield samplers
    samplers.close()


def _trial(pool: SamplerPool, host: LocalHost, seconds: float = 0.5) -> tuple[int, SampleSet]:
    running = pool.start(host, interval=0.1)
    assert running.wait_for_ticks(1, timeout=5)
    time.sleep(seconds)
    return running.process.pid, running.stop()


@pytest.mark.parametrize("shell", ["dash", "busybox"])
@pytest.mark.process
def test_one_sampler_gives_each_trial_a_whole_stream_of_its_own(
    pool: SamplerPool, shell: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if shell == "busybox":
        if BUSYBOX is None:
            pytest.skip("busybox is not installed")
        monkeypatch.setenv("PATH", busybox_path(tmp_path / "bin"))
    host = LocalHost()
    trials = [_trial(pool, host) for _ in range(3)]
    assert len({pid for pid, _ in trials}) == 1  # started once, for the first trial
    starts: list[float] = []
    for _, samples in trials:
        assert not samples.partial, samples.reason
        stream = parse_stream(samples.raw)
        # What a sampler started for the trial would have written: its header, every
        # source whole in its first tick, its last tick, its exit line.
        assert samples.raw.startswith("@@wirespeed-sampler 3\n")
        assert stream.ready and stream.exit_reason == "stopped"
        assert 4 <= len(stream.snapshots) <= 9  # 0.5 s at 10 Hz, and the first and last
        first, last = stream.snapshots[0], stream.snapshots[-1]
        assert first.interrupts is not None and last.netdev is not None
        assert first.processes is not None and last.processes is not None
        assert last.t - first.t >= 0.4
        assert stream.start_uptime is not None
        starts.append(stream.start_uptime)
    assert starts == sorted(starts) and len(set(starts)) == 3  # each from its own start


@pytest.mark.process
def test_between_trials_the_sampler_writes_nothing(pool: SamplerPool) -> None:
    host = LocalHost()
    _trial(pool, host, 0.2)
    process = pool.start(host, interval=0.1).process
    before = len(process.stdout())
    process.send_signal(signal.SIGUSR2)  # the pool's own way to end the segment
    # The segment ends with its last tick and its exit line (a tick of the running
    # segment may come first); a busy machine may take a while to write them.
    deadline = time.monotonic() + 10
    while "\n@@exit stopped\n" not in process.stdout()[before:] and time.monotonic() < deadline:
        time.sleep(0.05)
    ended = len(process.stdout())
    assert "\n@@exit stopped\n" in process.stdout()[before:ended]
    time.sleep(0.5)
    assert len(process.stdout()) == ended > before


@pytest.mark.process
def test_a_sampler_that_died_between_trials_is_started_anew(pool: SamplerPool) -> None:
    host = LocalHost()
    pid, _ = _trial(pool, host, 0.2)
    os.killpg(pid, signal.SIGKILL)
    time.sleep(0.2)
    new_pid, samples = _trial(pool, host, 0.2)
    assert new_pid != pid and not samples.partial, samples.reason


@pytest.mark.process
def test_a_sampler_killed_during_a_trial_gives_partial_samples(pool: SamplerPool) -> None:
    host = LocalHost()
    _trial(pool, host, 0.1)
    running = pool.start(host, interval=0.1)
    assert running.wait_for_ticks(2, timeout=5)
    os.killpg(running.process.pid, signal.SIGKILL)
    samples = running.stop()
    assert samples.partial and samples.snapshots
    assert "ended before it was stopped" in (samples.reason or "")
    _, after = _trial(pool, host, 0.2)  # and the next trial has a sampler again
    assert not after.partial, after.reason


@pytest.mark.process
def test_closing_the_pool_stops_its_samplers(pool: SamplerPool) -> None:
    host = LocalHost()
    pid, _ = _trial(pool, host, 0.1)
    pool.close()
    deadline = time.monotonic() + 5
    while _group_alive(pid):  # the shell is waited for; its awks end right after it
        assert time.monotonic() < deadline, "the sampler's processes outlived close()"
        time.sleep(0.05)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True
