"""SIGKILL at random moments, again and again: nothing measured is lost, the store stays
whole, `run --resume` finishes the run, and each next start cleans the dead run's lab.

Every start gets a lab name of its own, so only the orphan cleanup at the start of the
next run (not the replacement of a lab by name) can remove what the killed one left.
"""

from __future__ import annotations

import os
import random
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest
from lab_runs import WIRESPEED, namespaces_of, unique_prefix

pytestmark = [pytest.mark.root, pytest.mark.slow]

# Eight kills at random moments reach each phase of a run (lab, trial, commit) in practice.
KILLS = 8

PLAN = """
title: killed at random
lab: {link: gbe}
paths:
  - {name: WAN, topology: endpoint}
defaults: {tool: iperf3, duration: 1}
tests:
  - {id: "1", name: first}
  - {id: "2", name: second, tool: iperf2}
  - {id: "3", name: third, protocol: udp, rate: 100M}
"""
TRIALS_PER_RUN = 3


def stored_keys(db: Path) -> dict[int, set[str]]:
    """run id -> keys of its trials, read as any other reader would."""
    if not db.exists():
        return {}
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            rows = conn.execute("select run_id, key from trials").fetchall()
    except sqlite3.OperationalError:  # no schema yet
        return {}
    found: dict[int, set[str]] = {}
    for run_id, key in rows:
        found.setdefault(int(run_id), set()).add(str(key))
    return found


def check_store(db: Path) -> None:
    with sqlite3.connect(db, timeout=5) as conn:
        assert conn.execute("pragma integrity_check").fetchone()[0] == "ok"
        assert conn.execute("pragma foreign_key_check").fetchall() == []
        duplicates = conn.execute(
            "select run_id, key from trials group by run_id, key having count(*) > 1"
        ).fetchall()
        assert duplicates == [], "a resumed run measured a trial twice"
        orphans = conn.execute(
            "select t.id from trials t where t.has_result and not exists "
            "(select 1 from results r where r.trial_id = t.id)"
        ).fetchall()
        assert orphans == [], "a trial was committed without its result"


def latest_unfinished(db: Path) -> int | None:
    if not db.exists():
        return None
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            row = conn.execute(
                "select id from runs where status != 'complete' order by id desc limit 1"
            ).fetchone()
    except sqlite3.OperationalError:
        return None
    return None if row is None else int(row[0])


def test_sigkill_at_random_moments_loses_nothing_and_leaves_no_lab(tmp_path: Path) -> None:
    seed = int(os.environ.get("WIRESPEED_KILL_SEED", time.time_ns() % 1_000_000))
    print(f"seed {seed} (WIRESPEED_KILL_SEED={seed} repeats this sequence)")
    chance = random.Random(seed)
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(PLAN)
    base = unique_prefix("kill")
    prefixes: list[str] = []
    kills = starts = 0
    try:
        while kills < KILLS:
            assert starts < 3 * KILLS, "too few starts lived long enough to be killed"
            prefix = f"{base}-{starts}"
            prefixes.append(prefix)
            starts += 1
            unfinished = latest_unfinished(db)
            command = (
                ["run", str(plan)] if unfinished is None else ["run", "--resume", str(unfinished)]
            )
            process = subprocess.Popen(
                [*WIRESPEED, *command, "--db", str(db), "--lab-name", prefix, "-q"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            # Anywhere from preflight through lab building, trials and teardown.
            kill_at = time.monotonic() + chance.uniform(0.05, 6.0)
            seen: dict[int, set[str]] = {}
            while time.monotonic() < kill_at and process.poll() is None:
                seen = stored_keys(db) or seen
                time.sleep(0.05)
            if process.poll() is None:
                process.kill()
                process.wait()
                kills += 1
                stderr = ""
            else:
                stderr = process.stderr.read() if process.stderr else ""
                # Every trial of the plan works: a failed one could not be resumed either.
                assert process.returncode == 0, stderr
                assert "Traceback" not in stderr
            if process.stderr:
                process.stderr.close()
            after = stored_keys(db)
            for run_id, keys in seen.items():
                assert keys <= after.get(run_id, set()), "a committed trial was lost"
            if db.exists():
                check_store(db)
        # One last start finishes whatever is unfinished, and cleans the last orphan.
        unfinished = latest_unfinished(db)
        prefix = f"{base}-final"
        prefixes.append(prefix)
        command = ["run", str(plan)] if unfinished is None else ["run", "--resume", str(unfinished)]
        done = subprocess.run(
            [*WIRESPEED, *command, "--db", str(db), "--lab-name", prefix, "-q"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        check_store(db)
        for run_id, keys in stored_keys(db).items():
            assert len(keys) == TRIALS_PER_RUN, f"run {run_id} misses trials after resuming"
        leftover = [ns for p in prefixes for ns in namespaces_of(p)]
        assert leftover == [], "a killed run's lab survived the next start"
        assert not [
            name
            for name in os.listdir("/run/wirespeed/labs")
            if any(name.startswith(p) for p in prefixes)
        ]
    finally:
        for prefix in prefixes:
            for topology in ("endpoint",):
                subprocess.run(
                    [*WIRESPEED, "lab", "down", f"{prefix}-{topology}"],
                    capture_output=True,
                    check=False,
                )
    print(f"{kills} kills in {starts} starts")
