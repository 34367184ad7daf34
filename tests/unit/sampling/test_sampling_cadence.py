"""What is read how often: /proc/stat every tick, the other counters and the gauges
about once a second, the processes every few seconds; and a stop that reads everything
once more, so that each source spans the whole trial."""

from __future__ import annotations

import itertools
import os
import signal
import subprocess
import time

import pytest
from sampling_fixtures import R4S_BOARD, run_sampler

from wirespeed.hosts.local import LocalHost
from wirespeed.sampling.model import SampleSet, Snapshot
from wirespeed.sampling.script import sampler_argv
from wirespeed.sampling.session import Sampler
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import summarize


def _gauges_read(snapshot: Snapshot) -> bool:
    return bool(snapshot.temperatures) and snapshot.interrupts is not None


@pytest.mark.process
def test_at_10_hz_only_proc_stat_is_read_every_tick() -> None:
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=2.5, interval=0.1))
    snapshots = stream.snapshots
    assert stream.interval == 0.1 and stream.wait == "read"
    assert len(snapshots) >= 22
    assert all(len(s.cpus) == 6 for s in snapshots)
    read = [s for s in snapshots if _gauges_read(s)]
    # The first tick, one a second, and the last (its max runtime reached).
    assert read[0] is snapshots[0] and read[-1] is snapshots[-1]
    assert 3 <= len(read) <= 5
    assert all(
        (s.netdev is not None, s.softnet is not None, s.softirqs is not None, bool(s.memory))
        == (True, True, True, True)
        for s in read
    )
    # A second apart, but the last: the max runtime comes when it comes.
    between = [b.t - a.t for a, b in itertools.pairwise(read[:-1])]
    assert all(0.8 <= gap <= 1.3 for gap in between), between
    others = [s for s in snapshots if s not in read]
    assert all(
        s.interrupts is None and s.netdev is None and not s.temperatures and not s.cpufreq
        for s in others
    )
    # The processes: the first tick only, the next scan would be 5 s on.
    assert [s.seq for s in snapshots if s.processes is not None] == [1]


@pytest.mark.process
def test_a_summary_of_10_hz_samples_spans_each_counter_over_its_own_readings() -> None:
    stream = parse_stream(run_sampler(R4S_BOARD, seconds=1.5, interval=0.1))
    samples = SampleSet("r4s", 0.1, stream.start_uptime or 0.0, None, stream.info, stream.snapshots)
    summary = summarize(samples)
    # The fake tree's counters do not move: rates of zero, from two readings a
    # second or more apart, and the gauges of every reading.
    assert summary.ticks == len(stream.snapshots) >= 13
    assert summary.temperature_max_c == 52.777
    assert {clock.policy for clock in summary.clocks} == {"policy0", "policy4"}
    assert all(core.interrupts_per_s == 0.0 for core in summary.cores)
    assert {interface.name for interface in summary.interfaces} >= {"eth0", "eth1"}
    assert summary.memory_available_min_bytes is not None and summary.load_max is not None


def _stop_after(argv: list[str], seconds: float, *, group: bool) -> tuple[str, float]:
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, start_new_session=True)
    time.sleep(seconds)
    stopped = time.monotonic()
    if group:
        os.killpg(process.pid, signal.SIGTERM)
    else:
        process.send_signal(signal.SIGTERM)
    status = process.wait(5)
    took = time.monotonic() - stopped
    assert status == 0
    assert process.stdout is not None
    return process.stdout.read(), took


@pytest.mark.parametrize("group", [False, True], ids=["the-shell", "its-process-group"])
@pytest.mark.process
def test_a_sigterm_asks_for_a_last_tick_that_reads_everything(group: bool) -> None:
    # A remote `kill PID` reaches the shell alone; a local stop, its process group.
    argv = sampler_argv(0.1, str(R4S_BOARD), max_runtime=60)
    text, took = _stop_after(argv, 1.5, group=group)
    stream = parse_stream(text)
    assert stream.exit_reason == "stopped"
    assert took < 0.5
    last = stream.snapshots[-1]
    assert _gauges_read(last) and last.netdev is not None
    # The last tick scans the processes too: the fake ksoftirqd/0 never runs.
    assert last.processes == ()
    assert [s.processes is not None for s in stream.snapshots].count(True) == 2


@pytest.mark.process
def test_the_session_stops_a_sampler_with_a_last_tick() -> None:
    running = Sampler.start(LocalHost(), interval=0.1, root=str(R4S_BOARD), max_runtime=60)
    assert running.wait_for_ticks(3)
    samples = running.stop()
    assert not samples.partial, samples.reason
    assert _gauges_read(samples.snapshots[-1])
    assert samples.snapshots[-1].processes is not None
    assert not running.alive
    assert samples.requested_interval is None and not samples.interval_raised


@pytest.mark.process
def test_a_stop_on_this_machine_scans_its_processes() -> None:
    argv = sampler_argv(0.2, "/", max_runtime=60)
    text, _ = _stop_after(argv, 1.0, group=False)
    stream = parse_stream(text)
    scans = [s for s in stream.snapshots if s.processes is not None]
    # The first tick and the last (taken on SIGTERM) both scanned the processes. What
    # the scan lists depends on what else ran in that second, so only its presence counts.
    assert [s.seq for s in scans] == [1, len(stream.snapshots)]
    assert scans[-1].processes is not None
