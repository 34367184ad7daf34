"""Ctrl-C and SIGTERM in the middle of a trial: what was measured stays, nothing is left."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from lab_runs import WIRESPEED, alive, namespaces_of, pids_in, unique_prefix
from plans import LAB_SLOW

pytestmark = [pytest.mark.root, pytest.mark.slow]


def trials_in(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db) as conn:
            return int(conn.execute("select count(*) from trials").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not there yet
        return 0


def run_status(db: Path) -> str:
    with sqlite3.connect(db) as conn:
        return str(conn.execute("select status from runs").fetchone()[0])


@pytest.mark.parametrize(("sig", "exit_status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_run_stopped_mid_trial_keeps_finished_trials_and_leaves_no_trace(
    tmp_path: Path, sig: signal.Signals, exit_status: int
) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LAB_SLOW)
    prefix = unique_prefix(sig.name.lower())
    process = subprocess.Popen(
        [*WIRESPEED, "run", str(plan), "--db", str(db), "--lab-name", prefix],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 30
        while trials_in(db) < 1:  # the first (2 s) trial is committed ...
            assert process.poll() is None, process.communicate()
            assert time.monotonic() < deadline, "the first trial never finished"
            time.sleep(0.1)
        time.sleep(1.0)  # ... and the second (30 s) is running
        iperfs = pids_in(namespaces_of(prefix))
        assert iperfs, "the second trial's iperf processes should be running"
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()

    assert process.returncode == exit_status, stderr
    assert "Traceback" not in stderr
    assert trials_in(db) == 1
    assert run_status(db) == "interrupted"
    assert namespaces_of(prefix) == []
    assert not [pid for pid in iperfs if alive(pid)]


def test_a_lab_left_by_a_killed_run_is_replaced_by_the_next_run(tmp_path: Path) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LAB_SLOW)
    prefix = unique_prefix("sigkill")
    argv = [*WIRESPEED, "run", str(plan), "--db", str(db), "--lab-name", prefix]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while trials_in(db) < 1:
            assert time.monotonic() < deadline
            time.sleep(0.1)
        stale = pids_in(namespaces_of(prefix))
        os.kill(process.pid, signal.SIGKILL)  # no teardown at all
        process.wait()
        assert namespaces_of(prefix), "SIGKILL leaves the lab behind, as a crash would"
        again = subprocess.run(
            [*argv, "--only", "1"], capture_output=True, text=True, timeout=60, check=False
        )
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        subprocess.run([*WIRESPEED, "lab", "down", f"{prefix}-bridge"], check=False)
    assert again.returncode == 0, again.stderr
    assert namespaces_of(prefix) == []
    assert not [pid for pid in stale if alive(pid)]
