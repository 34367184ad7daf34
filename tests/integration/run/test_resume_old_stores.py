"""`run --resume` from the settings a run stored, and from the command line of a run
stored by the version before runs kept settings (tests/fixtures/stores-v6). Over
loopback: no root needed."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

from lab_runs import WIRESPEED
from plans import LOOPBACK

OLD_STORES = Path(__file__).parents[2] / "fixtures" / "stores-v6"


def wirespeed(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WIRESPEED, *argv], capture_output=True, text=True, timeout=120, check=False
    )


def trials(db: Path) -> list[tuple[str, float]]:
    """Each stored trial's key and duration, in order."""
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select key, spec from trials order by position").fetchall()
    return [(key, json.loads(spec)["duration"]) for key, spec in rows]


def test_a_run_stored_by_the_version_before_resumes_as_its_command_line_says(
    tmp_path: Path,
) -> None:
    db = tmp_path / "runs.db"
    shutil.copy(OLD_STORES / "run-interrupted.db", db)
    assert trials(db) == [("1/lo/default/1", 1.0)]

    resumed = wirespeed("run", "--resume", "1", "--db", str(db))
    assert resumed.returncode == 0, resumed.stderr
    assert "1 of 2 trials are stored, 1 to go" in resumed.stderr  # --only 1,2: not test 3
    # --duration 1, not the plan's 3 s; the DUT sampled every 0.5 s (--sample-interval).
    assert trials(db) == [("1/lo/default/1", 1.0), ("2/lo/default/1", 1.0)]
    with sqlite3.connect(db) as conn:
        assert conn.execute("select status from runs").fetchall() == [("complete",)]
        watched = conn.execute(
            "select trials.key, monitors.role, monitors.interval from monitors "
            "join trials on trials.id = monitors.trial_id order by trials.position"
        ).fetchall()
    assert watched == [("1/lo/default/1", "dut", 0.5), ("2/lo/default/1", "dut", 0.5)]


def test_a_run_resumes_from_its_stored_settings_not_its_command_line(tmp_path: Path) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LOOPBACK.replace("defaults: {duration: 1}", "defaults: {duration: 3}"))
    first = wirespeed(
        "run", str(plan), "--db", str(db), "--only", "1,2", "--duration", "1", "-q",
        "--sample-interval", "0.5", "--label", "firmware=23.05.3",
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    with sqlite3.connect(db) as conn:
        (settings,) = conn.execute("select settings from runs").fetchone()
        assert json.loads(settings) == {
            "version": 1, "card": False, "only": ["1", "2"], "duration": 1.0,
            "repetitions": None, "watch": ["dut"], "sample_interval": 0.5,
            "lab_dut": "netns", "labels": {"firmware": "23.05.3"},
        }  # fmt: skip
        # What a SIGKILL during the second trial leaves, with a command line that no
        # version reads: the settings are what the resume goes by.
        conn.execute("pragma foreign_keys = on")
        conn.execute("delete from trials where key = '2/lo/default/1'")
        conn.execute(
            "update runs set status = 'running', finished_at = null, "
            """argv = '["run", "--option-of-another-version"]'"""
        )

    resumed = wirespeed("run", "--resume", "1", "--db", str(db))
    assert resumed.returncode == 0, resumed.stderr
    assert "1 of 2 trials are stored, 1 to go" in resumed.stderr
    assert trials(db) == [("1/lo/default/1", 1.0), ("2/lo/default/1", 1.0)]
    with sqlite3.connect(db) as conn:
        intervals = conn.execute("select interval from monitors").fetchall()
    assert intervals == [(0.5,), (0.5,)]
