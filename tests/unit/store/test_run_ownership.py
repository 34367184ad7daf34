"""A run has one writer: `run --resume` takes a run over only when its owner is gone,
and a failed trial tried again replaces the failed one. On every backend."""

from __future__ import annotations

import dataclasses
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import update
from store_backends import BACKENDS, engine_for, fresh_store
from store_samples import INFO, dual_outcome, failed_outcome

from wirespeed.process_owner import process_owner
from wirespeed.store import RunStatus, Store
from wirespeed.store.resume import RunInUseError, claim_run, release_run, resumable_run
from wirespeed.store.schema import runs


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with fresh_store(request.param, tmp_path) as url:
        yield url


def _set_owner(db: str, run_id: int, owner: str | None) -> None:
    engine = engine_for(db)
    try:
        with engine.begin() as conn:
            conn.execute(update(runs).where(runs.c.id == run_id).values(owner=owner))
    finally:
        engine.dispose()


def test_a_run_is_owned_by_the_process_that_began_it(db: str) -> None:
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        with store.reading() as conn:
            owner = conn.execute(runs.select().where(runs.c.id == run_id)).one().owner
    assert owner == process_owner()


@pytest.mark.process
def test_a_run_whose_owner_still_runs_is_not_taken_over(db: str) -> None:
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
    other = subprocess.Popen(["sleep", "60"])
    owner = process_owner(other.pid)
    try:
        _set_owner(db, run_id, owner)
        with Store.open(db) as store, pytest.raises(RunInUseError, match="still running"):
            claim_run(store, run_id)
    finally:
        other.kill()
        other.wait()
    # Its owner is gone (killed): the run is resumable, and this process owns it now.
    with Store.open(db) as store:
        claim = claim_run(store, run_id)
        assert claim.owner == owner
        with store.reading() as conn:
            row = conn.execute(runs.select().where(runs.c.id == run_id)).one()
        assert (row.owner, row.status) == (process_owner(), RunStatus.RUNNING.value)
        # A resume that stops before measuring gives it back as it was.
        release_run(store, claim)
        with store.reading() as conn:
            row = conn.execute(runs.select().where(runs.c.id == run_id)).one()
        assert row.owner == owner


def test_an_owner_on_another_machine_is_taken_over_only_when_forced(db: str) -> None:
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
    _set_owner(db, run_id, f"not-{socket.gethostname()}/boot/1234/5678")
    with Store.open(db) as store:
        with pytest.raises(RunInUseError, match=r"process 1234 on not-.*cannot tell"):
            claim_run(store, run_id)
        claim_run(store, run_id, force=True)


@pytest.mark.process
def test_a_finished_run_and_a_run_stored_without_owner_are_resumable(db: str) -> None:
    with Store.open(db) as store:
        finished = store.begin_run(INFO)
        store.finish_run(finished, "interrupted")
        older = store.begin_run(INFO)
    other = subprocess.Popen(["sleep", "60"])
    try:
        # Finished runs are not being written, whoever wrote them.
        _set_owner(db, finished, process_owner(other.pid))
        _set_owner(db, older, None)  # stored by a version before owners
        with Store.open(db) as store:
            assert claim_run(store, finished).status is RunStatus.INTERRUPTED
            assert claim_run(store, older).owner is None
    finally:
        other.kill()
        other.wait()


def test_a_failed_trial_tried_again_replaces_the_failed_one(db: str) -> None:
    failed = failed_outcome()
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, dual_outcome())
        store.add_outcome(run_id, failed)
        assert resumable_run(store, run_id).failed_keys == {failed.trial.key}
        again = dataclasses.replace(
            dual_outcome(), trial=failed.trial, started_at=failed.finished_at + 5
        )
        again = dataclasses.replace(again, finished_at=again.started_at + 10)
        store.add_outcome(run_id, again, replace_failed=True)
        record = store.load_run(run_id)
        stored = resumable_run(store, run_id)
    assert [o.trial.key for o in record.outcomes] == [dual_outcome().trial.key, failed.trial.key]
    assert (record.trials_ok, record.trials_failed) == (2, 0)
    assert stored.failed_keys == frozenset()


def test_an_outcome_committed_once_is_not_stored_twice(db: str) -> None:
    # What a spooled trial whose first commit went through, or a retried commit, meets.
    outcome = dual_outcome()
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        first = store.add_outcome(run_id, outcome)
        assert store.add_outcome(run_id, outcome, once=True) == first
        assert len(store.load_run(run_id).outcomes) == 1
