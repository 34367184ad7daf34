"""Two runs writing to one store at once lose nothing, on every backend."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import store_samples
from sqlalchemy import func, select
from store_backends import BACKENDS, POSTGRES_ENV, engine_for, engine_url, fresh_store
from store_samples import WAN, dual_outcome

from wirespeed.store import RunStatus, Store
from wirespeed.store.schema import results, runs, trials

TESTS = Path(__file__).parents[2]
WRITERS = 2
TRIALS = 40


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with fresh_store(request.param, tmp_path) as url:
        yield url


@pytest.mark.process
def test_two_runs_writing_at_once_lose_nothing(db: str, tmp_path: Path) -> None:
    # The store does not exist yet: both writers create it at the same moment too.
    go = tmp_path / "go"
    writers = [
        subprocess.Popen(
            [sys.executable, store_samples.__file__, db, f"writer {n}", str(TRIALS), str(go)],
            env={**os.environ, "PYTHONPATH": str(TESTS)},  # store_samples imports support
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for n in range(WRITERS)
    ]
    go.touch()
    for writer in writers:
        output, _ = writer.communicate(timeout=240)
        assert writer.returncode == 0, output

    expected = tuple(dual_outcome(WAN, repetition=k) for k in range(1, TRIALS + 1))
    with Store.open(db) as store:
        listed = store.list_runs()
        assert sorted(r.title or "" for r in listed) == [f"writer {n}" for n in range(WRITERS)]
        for summary in listed:
            assert summary.status is RunStatus.COMPLETE
            assert (summary.trials_ok, summary.trials_failed) == (TRIALS, 0)
            assert store.load_run(summary.id).outcomes == expected

    engine = engine_for(db)
    try:
        with engine.connect() as conn:
            trial_rows = conn.execute(select(trials.c.id, trials.c.run_id, trials.c.position))
            by_run: dict[int, list[int]] = {}
            ids = []
            for trial_id, run_id, position in trial_rows:
                ids.append(trial_id)
                by_run.setdefault(run_id, []).append(position)
            per_trial = len(expected[0].result.directions) * 3 if expected[0].result else 0
            counts = (
                conn.execute(select(func.count()).select_from(runs)).scalar_one(),
                conn.execute(select(func.count()).select_from(results)).scalar_one(),
                conn.execute(
                    select(func.count())
                    .select_from(results)
                    .where(results.c.intervals.is_not(None))
                ).scalar_one(),
            )
    finally:
        engine.dispose()
    assert len(ids) == len(set(ids)) == WRITERS * TRIALS
    assert all(sorted(p) == list(range(1, TRIALS + 1)) for p in by_run.values())
    assert len(by_run) == WRITERS
    # Each dual trial: 2 direction rows and 2 streams each, every row with its intervals.
    assert counts == (WRITERS, WRITERS * TRIALS * per_trial, WRITERS * TRIALS * per_trial)


def test_a_writer_opening_a_new_sqlite_store_another_holds_waits_its_turn(
    tmp_path: Path,
) -> None:
    # Putting a new file in WAL mode takes its exclusive lock, and SQLite refuses that at
    # once, without the busy timeout, while another connection holds a write lock: two
    # runs opening a new store at one moment saw one refused ("database is locked"), about
    # one time in ten. Here the other holds it for half a second, then lets go.
    db = tmp_path / "runs.db"
    other = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")
    timer = threading.Timer(0.5, lambda: other.execute("ROLLBACK"))
    timer.start()
    try:
        began = time.monotonic()
        with Store.open(str(db)) as store:
            assert store.list_runs() == []
        assert time.monotonic() - began >= 0.4  # it waited for the other's lock
    finally:
        timer.join()
        other.close()
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone() == ("wal",)


def test_a_postgresql_test_database_is_dropped_after_its_test(tmp_path: Path) -> None:
    if not os.environ.get(POSTGRES_ENV):
        pytest.skip(f"no PostgreSQL: set {POSTGRES_ENV} (scripts/postgres-for-tests.sh)")
    with fresh_store("postgresql", tmp_path) as url:
        Store.open(url).close()  # left open on purpose: the drop must not wait for it
        leaked = Store.open(url)
        name = engine_url(url).database
    engine = engine_for(os.environ[POSTGRES_ENV])
    try:
        with engine.connect() as conn:
            found = conn.exec_driver_sql(
                "SELECT count(*) FROM pg_database WHERE datname = %(name)s", {"name": name}
            ).scalar_one()
    finally:
        engine.dispose()
        leaked.close()
    assert found == 0
