"""The stream: a file written whole once and then as its changed lines, carried forward
by the parser; streams of version 1 (every file whole in every tick) still parse.

stream-v1-*.txt are the version 1 sampler's own output (sampler.sh of commit 59f1ec0,
run with dash): on this machine every 0.5 s for 2 s, a kernel log line written
meanwhile, and on the fake R4S tree every 0.25 s for 1 s. summary-v1-*.json are what
that version's summarize() made of them.
"""

from __future__ import annotations

import dataclasses
import functools
import shutil
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
from sampling_fixtures import PROC, R4S_BOARD, run_sampler

from wirespeed.sampling import procfs
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.script import sampler_argv
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import MonitorSummary, summarize

HERE = Path(__file__).resolve().parent


def _samples(text: str, host: str = "dut") -> SampleSet:
    stream = parse_stream(text)
    return SampleSet(
        host,
        stream.interval or 0.0,
        stream.start_uptime or 0.0,
        stream.device_epoch,
        stream.info,
        stream.snapshots,
        stream.kernel,
    )


@pytest.mark.parametrize("name", ["x86-vm-2cpu", "r4s"])
def test_a_stored_version_1_stream_summarizes_as_it_did(name: str) -> None:
    # Version 1 sampler output (this machine, and the fake R4S tree) and the summaries
    # the version 1 code made of it, both kept as they were stored.
    text = (HERE / f"stream-v1-{name}.txt").read_text()
    stored = MonitorSummary.from_json((HERE / f"summary-v1-{name}.json").read_text())
    assert stored.version == 1 and stored.cpu_timeline is None
    summary = summarize(_samples(text, stored.host))
    # Version 2 adds the CPU timeline, version 3 the power timeline (the R4S tree has a
    # thermal zone), version 4 the clock timeline (its cpufreq policies), and change
    # nothing else. (The fake R4S tree's CPU counters never move: no time passed, no CPU
    # timeline.)
    assert summary.version == 4
    assert (summary.cpu_timeline is not None) == (name == "x86-vm-2cpu")
    assert (summary.power_timeline is not None) == (name == "r4s")
    assert (summary.clock_timeline is not None) == (name == "r4s")
    older = dataclasses.replace(
        summary, version=1, cpu_timeline=None, power_timeline=None, clock_timeline=None
    )
    assert older == stored


def test_a_version_1_stream_has_every_source_in_every_tick() -> None:
    stream = parse_stream((HERE / "stream-v1-x86-vm-2cpu.txt").read_text())
    assert stream.version == 1 and stream.ready and stream.exit_reason == "max-runtime"
    assert stream.interval == 0.5 and stream.wait is None
    assert stream.requested_interval is None and not stream.interval_raised
    assert len(stream.snapshots) == 5
    assert all(
        s.interrupts is not None and s.netdev is not None and s.softnet is not None
        for s in stream.snapshots
    )
    assert [s.processes is not None for s in stream.snapshots] == [True, False, True, False, True]
    assert [line.event for line in stream.kernel][:1] == ["link-down"]


def _rewrite(path: Path, text: str) -> None:
    """Replace a file at once: the sampler never reads half of it."""
    scratch = path.with_name(path.name + ".new")
    scratch.write_text(text)
    scratch.replace(path)


def _run_changing(root: Path, versions: list[Callable[[], None]], interval: float) -> str:
    """The sampler's output while the tree changes: version k is in place for tick k+1."""
    versions[0]()
    argv = sampler_argv(interval, str(root), max_runtime=interval * (len(versions) - 1))
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    lines: list[str] = []

    def read() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            if line.startswith("@@end "):
                tick = int(line.split()[1])
                if tick < len(versions):
                    versions[tick]()

    reader = threading.Thread(target=read)
    reader.start()
    reader.join(interval * len(versions) + 10)
    assert process.wait(5) == 0
    return "".join(lines)


@pytest.mark.process
def test_changed_lines_only_and_the_parser_carries_the_rest_forward(tmp_path: Path) -> None:
    root = tmp_path / "r4s"
    shutil.copytree(R4S_BOARD, root)
    interrupts = root / "proc" / "interrupts"
    before = (PROC / "r4s-interrupts-before.txt").read_text()
    after = (PROC / "r4s-interrupts-after-affinity.txt").read_text()
    # Counts grow on a few lines (eth0 on CPU0 and the rescheduling IPIs): a diff.
    grown = before.replace("10628015", "10700000").replace(" 748488", " 748999")
    # Fewer lines (after the affinity change the post printed three): whole again.
    # Then one line in the middle and the last one change: a diff with runs.
    last_changed = after.replace("22505343", "22600000").replace("2541046", "2541100")
    tables = [before, grown, after, last_changed]
    assert len(set(tables)) == 4
    text = _run_changing(root, [functools.partial(_rewrite, interrupts, t) for t in tables], 1.0)

    stream = parse_stream(text)
    assert stream.version == 3 and stream.exit_reason == "max-runtime"
    assert len(stream.snapshots) == 4
    for snapshot, table in zip(stream.snapshots, tables, strict=True):
        assert snapshot.interrupts == procfs.parse_interrupts(table)
    markers = [line for line in text.splitlines() if "/proc/interrupts" in line]
    assert markers == [
        "@@file /proc/interrupts",
        "@@diff /proc/interrupts",
        "@@file /proc/interrupts",
        "@@diff /proc/interrupts",
    ]
    assert "@@same " in text
    # The unchanged files of later ticks are empty diffs, yet every snapshot has them.
    assert "@@diff /proc/softirqs\n@@diff" in text
    assert all(s.softirqs == stream.snapshots[0].softirqs for s in stream.snapshots)
    summary = summarize(_samples(text))
    eth0 = summary.nic("eth0")
    assert eth0 is not None and eth0.irqs[0].per_cpu_per_s[4] == pytest.approx(22600000 / 3, 0.01)


@pytest.mark.process
def test_a_read_that_fails_does_not_end_the_sampler(tmp_path: Path) -> None:
    # A process gone between the open and the read of its /proc/PID/stat fails the read
    # (ESRCH); a directory where a stat file should be fails it every time. mawk ends
    # the program on such a read unless it runs interactive, as the sampler runs it.
    root = tmp_path / "r4s"
    shutil.copytree(R4S_BOARD, root)
    (root / "proc" / "777" / "stat").mkdir(parents=True)
    stream = parse_stream(run_sampler(root, seconds=1.0, interval=0.25))
    assert stream.exit_reason == "max-runtime"
    assert len(stream.snapshots) >= 4
    assert stream.snapshots[0].processes == ()  # the baseline scan, 777 and all
    assert stream.snapshots[-1].interrupts is not None
