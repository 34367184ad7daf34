"""Two runs writing to one store at once lose nothing, on every backend."""

from __future__ import annotations

import os
import subprocess
import sys
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


# A program that waits for the file `go`, then opens the SQLite store `db` for writing.
OPEN_AT_ONCE = """
import sys, pathlib
from wirespeed.store import Store
db, go = sys.argv[1], pathlib.Path(sys.argv[2])
while not go.exists():
    pass
Store.open(db).close()
"""


@pytest.mark.process
def test_runs_opening_a_new_sqlite_store_at_one_moment_are_all_let_in(tmp_path: Path) -> None:
    # Putting a new file in WAL mode takes its exclusive lock, and SQLite refused the
    # loser at once without waiting ("database is locked"), about one time in ten with
    # four openers. Ten rounds of four make a refusal all but certain if it comes back.
    for round_ in range(10):
        db, go = tmp_path / f"runs{round_}.db", tmp_path / f"go{round_}"
        openers = [
            subprocess.Popen(
                [sys.executable, "-c", OPEN_AT_ONCE, str(db), str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for _ in range(4)
        ]
        time.sleep(0.8)  # each has imported wirespeed and spins on `go`
        go.touch()
        for opener in openers:
            output, _ = opener.communicate(timeout=120)
            assert opener.returncode == 0, output
        with Store.open(str(db), read_only=True) as store:
            assert store.list_runs() == []


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
