"""`wirespeed run --resume RUN`: only the missing trials, into the same run; user
mistakes get a message and exit status 2. Over loopback: no root needed."""

from __future__ import annotations

import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from lab_runs import WIRESPEED
from plans import LOOPBACK

from support.cli import run_cli
from wirespeed.cli.exit import Terminated
from wirespeed.model import Trial, TrialOutcome
from wirespeed.run.runner import Runner


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

    markdown = tmp_path / "report.md"
    resumed = wirespeed("run", "--resume", "1", "--db", str(db), "--markdown", str(markdown))
    assert resumed.returncode == 0, resumed.stderr
    assert "1 of 2 trials are stored, 1 to go" in resumed.stderr
    assert keys(db) == before  # test 3 stays out: --only came from the stored run
    # The whole run's report, as `run --markdown` writes it: both trials' tests.
    assert f"Markdown report written to {markdown}" in resumed.stderr
    written = markdown.read_text()
    assert written.startswith("# ") and "| 1 " in written and "| 2 " in written
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*), min(status) from runs").fetchone() == (
            1,
            "complete",
        )

    again = wirespeed("run", "--resume", "1", "--db", str(db))
    assert again.returncode == 0
    assert "nothing to resume" in again.stderr
    assert keys(db) == before


def test_resuming_a_complete_run_below_its_expectation_gives_its_verdict(tmp_path: Path) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LOOPBACK.replace("tool: iperf3}", 'tool: iperf3, expect: {goodput: ">= 9T"}}'))
    first = wirespeed("run", str(plan), "--db", str(db), "--only", "1", "-q")
    assert first.returncode == 5, first.stderr
    assert "1 of 1 expectations not met" in first.stderr

    again = wirespeed("run", "--resume", "1", "--db", str(db), "-q")
    assert again.returncode == 5, again.stderr  # not 0: nothing to resume is no pass
    assert "1 of 1 expectations not met" in again.stderr
    assert again.stdout == "1\n"  # -q: the run id, as a resume that measured prints it


@pytest.mark.parametrize(
    ("stop", "said", "exit_status"),
    [(KeyboardInterrupt, "interrupted", 130), (Terminated, "terminated", 143)],
)
def test_a_run_stopped_in_its_second_trial_says_which_run_to_resume(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    stop: type[BaseException],
    said: str,
    exit_status: int,
) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LOOPBACK)
    measure = Runner._run_one

    def stopped_in_the_second(self: Runner, trial: Trial, *args: object) -> TrialOutcome:
        if trial.test.id == "2":  # Ctrl-C (SIGINT) or SIGTERM while it runs
            raise stop
        return measure(self, trial, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(Runner, "_run_one", stopped_in_the_second)
    status, _, err = run_cli("run", str(plan), "--db", str(db), "--only", "1,2")
    assert status == exit_status
    assert f"wirespeed: error: {said}; everything wirespeed changed was restored" in err
    assert "  hint: run 1 stored; continue with `wirespeed run --resume 1`" in err
    assert len(keys(db)) == 1
    monkeypatch.undo()

    resumed = wirespeed("run", "--resume", "1", "--db", str(db))  # as the hint says
    assert resumed.returncode == 0, resumed.stderr
    assert "1 of 2 trials are stored, 1 to go" in resumed.stderr


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


def test_a_run_still_going_is_not_resumed(tmp_path: Path) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LOOPBACK)
    # 4 trials of 3 s: still going when the resume (a second to start) looks.
    only = ("--only", "1,2", "--repeat", "2", "--duration", "3")
    running = subprocess.Popen(
        [*WIRESPEED, "run", str(plan), "--db", str(db), *only, "-q"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not _committed(db) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert _committed(db), "the run committed no trial in 60 s"
        refused = wirespeed("run", "--resume", "1", "--db", str(db))
        assert refused.returncode == 2, refused.stderr
        assert "run 1 is still running (process" in refused.stderr
        assert "Traceback" not in refused.stderr
    finally:
        _, stderr = running.communicate(timeout=120)
    assert running.returncode == 0, stderr
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*), count(distinct key) from trials").fetchone() == (
            4,
            4,
        )
    # Ended: nothing is missing, and nothing is measured twice.
    after = wirespeed("run", "--resume", "1", "--db", str(db))
    assert after.returncode == 0, after.stderr
    assert "nothing to resume" in after.stderr


def _committed(db: Path) -> bool:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return bool(conn.execute("select count(*) from trials").fetchone()[0])
    except sqlite3.OperationalError:  # no tables yet
        return False


def test_failed_trials_run_again_on_request_and_replace_the_failed_ones(tmp_path: Path) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(LOOPBACK)
    assert wirespeed("run", str(plan), "--db", str(db), "--only", "1,2", "-q").returncode == 0
    before = keys(db)
    # What a trial that failed leaves (e.g. the server did not start): a row with a reason.
    with sqlite3.connect(db) as conn:
        conn.execute("pragma foreign_keys = on")
        trial_id = conn.execute("select id from trials where key = ?", (before[1],)).fetchone()[0]
        conn.execute("delete from results where trial_id = ?", (trial_id,))
        conn.execute(
            "update trials set status = 'failed', reason = 'the server did not listen', "
            "has_result = 0, result_tool = null, result_protocol = null where id = ?",
            (trial_id,),
        )

    plain = wirespeed("run", "--resume", "1", "--db", str(db))
    assert plain.returncode == 1, plain.stderr  # the run's verdict: a trial failed
    assert "1 of them failed; --retry-failed tries them again" in plain.stderr
    assert keys(db) == before

    retried = wirespeed("run", "--resume", "1", "--retry-failed", "--db", str(db))
    assert retried.returncode == 0, retried.stderr
    assert "1 of 2 trials are stored, 1 to go (1 failed, tried again)" in retried.stderr
    with sqlite3.connect(db) as conn:
        rows = conn.execute("select key, status from trials order by position").fetchall()
        assert conn.execute("select status from runs").fetchone() == ("complete",)
    assert sorted(rows) == sorted((key, "ok") for key in before)  # each trial once

    alone = wirespeed("run", str(plan), "--retry-failed", "--db", str(db))
    assert alone.returncode == 2
    assert "--retry-failed goes with --resume RUN" in alone.stderr
