"""The before-start check: its script run for real (on this machine, under busybox, on
the fake R4S tree) with a `yes` hog holding a core, and its parser on captured outputs
(tests/fixtures/before/, captured by capture_before.py there)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sampling_fixtures import BUSYBOX, FIXTURES, R4S_BOARD, busybox_path

from wirespeed.analysis.bench_findings import judge_before_start
from wirespeed.hosts.local import LocalHost
from wirespeed.model import FindingKind
from wirespeed.sampling.before import (
    SCRIPT_NAME,
    BeforeStart,
    BeforeStartError,
    before_start_argv,
    measure_before_start,
    parse_before_start,
)

BEFORE = FIXTURES / "before"
needs_busybox = pytest.mark.skipif(BUSYBOX is None, reason="busybox is not installed")


def _captured(name: str) -> BeforeStart:
    return parse_before_start((BEFORE / name).read_text())


def _hog_pid() -> int:
    found = re.search(r"yes hog: pid (\d+)", (BEFORE / "INDEX.txt").read_text())
    assert found is not None
    return int(found.group(1))


@contextmanager
def _hog(program: str = "yes") -> Iterator[int]:
    """A process holding a core (`yes > /dev/null`) until the block ends."""
    with open(os.devnull, "wb") as sink:
        hog = subprocess.Popen([program], stdout=sink)
    try:
        yield hog.pid
    finally:
        hog.kill()
        hog.wait()


def test_parameters_travel_as_arguments_never_inside_the_script() -> None:
    argv = before_start_argv("/tmp/it's; rm -rf /", 0.25)
    assert argv[:2] == ["sh", "-c"] and argv[3] == SCRIPT_NAME
    assert argv[4:] == ["/tmp/it's; rm -rf /", "0.25"]
    assert "rm -rf" not in argv[2]


@pytest.mark.parametrize(("root", "window"), [("relative", 0.5), ("/", 0.0), ("/", 60.0)])
def test_a_relative_root_or_a_window_out_of_range_is_refused(root: str, window: float) -> None:
    with pytest.raises(ValueError, match=r"root|window"):
        before_start_argv(root, window)


def test_the_captured_hog_is_yes_holding_a_core_and_the_script_is_not_listed() -> None:
    before = _captured("yes-hog.txt")
    assert before.cpu_count == os.cpu_count() == 2
    assert 0.45 <= before.window_s <= 0.7
    yes = [p for p in before.processes if p.comm == "yes"]
    assert [p.pid for p in yes] == [_hog_pid()]
    assert yes[0].core_pct >= 50  # a core of its own, or shared with another session's
    assert before.busy_pct >= 45
    assert before.script_pid is not None
    listed = {p.pid for p in before.processes} | {p.ppid for p in before.processes}
    assert before.script_pid not in listed


def test_the_captured_quiet_machine_has_no_process_holding_a_core() -> None:
    before = _captured("quiet.txt")
    assert before.cpu_count == 2
    assert before.busy_pct < 10
    assert all(p.core_pct < 10 for p in before.processes)
    text = (BEFORE / "quiet.txt").read_text()
    loadavg = next(line for line in text.splitlines() if line.startswith("@@loadavg "))
    assert (before.load1, before.load5, before.load15) == tuple(
        float(value) for value in loadavg.split()[1:4]
    )


@pytest.mark.parametrize("cut_at", ["@@end", "@@procs\n1 ", "@@stat", "@@self"])
def test_an_output_cut_short_is_an_error_not_an_idle_machine(cut_at: str) -> None:
    text = (BEFORE / "yes-hog.txt").read_text()
    cut = text[: text.rindex(cut_at)]
    with pytest.raises(BeforeStartError, match="not a complete"):
        parse_before_start(cut)


@pytest.mark.process
def test_the_fake_r4s_tree_gives_its_load_and_cpus_and_no_busy_process() -> None:
    done = subprocess.run(
        before_start_argv(str(R4S_BOARD), 0.2),
        capture_output=True,
        text=True,
        timeout=10,
        check=True,
    )
    before = parse_before_start(done.stdout)
    assert (before.load1, before.load5, before.load15) == (0.48, 0.31, 0.14)
    assert before.cpu_count == 6
    # Its files do not change: nothing was busy, and the one process used nothing.
    assert before.busy_pct == 0.0 and before.processes == ()
    assert "1432 2 8801 ksoftirqd/0" in done.stdout


@pytest.mark.process
def test_a_yes_hog_on_this_machine_is_named_with_its_pid() -> None:
    with _hog() as pid:
        before, raw = measure_before_start(LocalHost("local"), window=0.5)
    assert parse_before_start(raw) == before
    (finding,) = judge_before_start(before, "local")
    assert finding.kind is FindingKind.BUSY_BEFORE_START
    assert f"yes (pid {pid}) " in finding.message
    assert "% of a core" in finding.message


@pytest.mark.process
def test_a_hog_whose_name_holds_parentheses_is_named_whole(tmp_path: Path) -> None:
    # /proc/PID/stat puts the name in parentheses and does not escape it.
    program = tmp_path / "a) (b"
    shutil.copy(shutil.which("yes") or "/usr/bin/yes", program)
    with _hog(str(program)) as pid:
        before, _ = measure_before_start(LocalHost("local"), window=0.3)
    (finding,) = judge_before_start(before, "local")
    assert f"a) (b (pid {pid}) " in finding.message


@needs_busybox
@pytest.mark.parametrize("whole_seconds", [False, True])
@pytest.mark.process
def test_under_busybox_alone_the_hog_is_named_too(tmp_path: Path, whole_seconds: bool) -> None:
    """busybox sh and awk only; `whole_seconds`: as OpenWrt builds busybox, whose sleep
    takes no fraction, so the window is a whole second."""
    path = busybox_path(tmp_path / "bin", whole_seconds=whole_seconds)
    with _hog() as pid:
        done = subprocess.run(
            before_start_argv("/", 0.5),
            capture_output=True,
            text=True,
            timeout=10,
            env={"PATH": path},
            check=True,
        )
    before = parse_before_start(done.stdout)
    assert (0.95 if whole_seconds else 0.45) <= before.window_s <= (1.3 if whole_seconds else 0.8)
    (finding,) = judge_before_start(before, "router")
    assert f"yes (pid {pid}) " in finding.message
