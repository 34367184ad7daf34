"""`wirespeed run --resume RUN`: only the missing trials, into the same run; user
mistakes get a message and exit status 2. Over loopback: no root needed."""

from __future__ import annotations

import sqlite3
import subprocess
from pathlib import Path

from lab_runs import WIRESPEED
from plans import LOOPBACK


def wirespeed(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*WIRESPEED, *argv], capture_output=True, text=True, timeout=120, check=False
    )


def keys(db: Path) -> list[str]:
    with sqlite3.connect(db) as conn:
        return [row[0] for row in conn.execute("select key from trials order by position")]


def test_resume_runs_only_the_missing_trials_into_the_same_run(tmp_path: Path) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LOOPBACK)
    first = wirespeed("run", str(plan), "--db", str(db), "--only", "1,2", "-q")
    assert first.returncode == 0, first.stderr
    before = keys(db)
    # What a SIGKILL during the second trial leaves: the first committed, the run open.
    with sqlite3.connect(db) as conn:
        conn.execute("pragma foreign_keys = on")
        conn.execute("delete from trials where key = ?", (before[1],))
        conn.execute("update runs set status = 'running', finished_at = null")
    plan.write_text("this file changed since: the stored plan is the one resumed\n")

    resumed = wirespeed("run", "--resume", "1", "--db", str(db))
    assert resumed.returncode == 0, resumed.stderr
    assert "1 of 2 trials are stored, 1 to go" in resumed.stderr
    assert keys(db) == before  # test 3 stays out: --only came from the stored run
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*), min(status) from runs").fetchone() == (
            1,
            "complete",
        )

    again = wirespeed("run", "--resume", "1", "--db", str(db))
    assert again.returncode == 0
    assert "nothing to resume" in again.stderr
    assert keys(db) == before


def test_resume_mistakes_are_usage_errors(tmp_path: Path) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LOOPBACK)
    assert wirespeed("run", str(plan), "--db", str(db), "--only", "1", "-q").returncode == 0
    for argv, said in (
        (("run", "--resume", "9", "--db", str(db)), "there is no run 9"),
        (("run", str(plan), "--resume", "1", "--db", str(db)), "leave PLAN out"),
        (("run", "--db", str(db)), "give a PLAN file"),
    ):
        done = wirespeed(*argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert said in done.stderr
        assert "Traceback" not in done.stderr
