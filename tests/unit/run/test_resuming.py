"""A run taken up again (run/resume.py): claimed, its spooled trials committed, the
trials it lacks chosen from its stored settings; given back as it was when stopped
before measuring; finished as it stands when nothing is left. On a run stored by the
version before runs kept settings (tests/fixtures/stores-v6), whose settings come from
its command line."""

from __future__ import annotations

import dataclasses
import shutil
import socket
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from wirespeed.errors import UsageError
from wirespeed.run.resume import Resumed, resume_run
from wirespeed.run.settings import RunSettings
from wirespeed.store import RunStatus, Store
from wirespeed.store.resume import RunInUseError, resumable_run
from wirespeed.store.spool import keep, spool_path

OLD_STORES = Path(__file__).parents[2] / "fixtures" / "stores-v6"
# Tests 1 and 2 of its plan, one second each; test 1 is stored.
AS_STARTED = RunSettings(only=("1", "2"), duration=1.0, watch=("dut",), sample_interval=0.5)


class SshAsked(UsageError):
    """The resume went on to reach the hosts: stopped there, before measuring."""


class Caller:
    """What the process that resumes gives, each call noted."""

    def __init__(self, settings: RunSettings) -> None:
        self.settings = settings
        self.notices: list[str] = []
        self.read: list[tuple[int, tuple[str, ...]]] = []
        self.progress_asked = 0

    def command_line(self, run_id: int, argv: Sequence[str]) -> RunSettings:
        self.read.append((run_id, tuple(argv)))
        return self.settings

    def ssh(self) -> Any:
        raise SshAsked("stopped before measuring")

    def progress(self, _plan: object) -> Any:
        self.progress_asked += 1
        raise AssertionError("nothing is measured here")

    def resume(self, store: Store, **options: Any) -> Resumed:
        return resume_run(
            store, 1, lab_prefix=None, ssh=self.ssh, progress=self.progress,
            command_line=self.command_line, notice=self.notices.append, **options,
        )  # fmt: skip


@pytest.fixture
def db(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    # The spool beside a store of the test's own, not the user's.
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SUDO_USER", raising=False)
    path = tmp_path / "run-interrupted.db"
    shutil.copy(OLD_STORES / "run-interrupted.db", path)
    yield path


def _row(db: Path) -> tuple[Any, ...]:
    with sqlite3.connect(db) as conn:
        found = conn.execute("select status, owner, finished_at from runs where id = 1")
        return tuple(found.fetchone())


def _fail_stored_trial(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        conn.execute(
            "update trials set status = 'failed', reason = 'the server did not listen' "
            "where key = '1/lo/default/1'"
        )


def test_a_run_stopped_before_measuring_is_given_back_as_it_was(db: Path) -> None:
    caller = Caller(AS_STARTED)
    with Store.open(str(db)):  # migrated to this version's schema first
        pass
    before = _row(db)
    with Store.open(str(db)) as store, pytest.raises(UsageError):
        caller.resume(store)
    # Its settings read from its stored command line, the trial it lacks chosen by them.
    assert caller.read == [(1, tuple(resumable_run_argv(db)))]
    assert caller.notices == ["resuming run 1: 1 of 2 trials are stored, 1 to go"]
    assert caller.progress_asked == 0
    assert before[0] == RunStatus.INTERRUPTED.value
    assert _row(db) == before  # status, owner and end as they were, not claimed


def resumable_run_argv(db: Path) -> Sequence[str]:
    with Store.open(str(db)) as store:
        return resumable_run(store, 1).argv


def test_a_run_holding_every_trial_is_finished_without_measuring(db: Path) -> None:
    caller = Caller(dataclasses.replace(AS_STARTED, only=("1",)))
    with Store.open(str(db)) as store:
        resumed = caller.resume(store)
    assert resumed.outcome is None
    assert resumed.settings == caller.settings
    assert [o.trial.key for o in resumed.record.outcomes] == ["1/lo/default/1"]
    assert caller.notices == ["run 1 already holds all 1 trials: nothing to resume"]
    assert caller.progress_asked == 0  # and SSH was not asked: it would have raised
    status, _owner, finished_at = _row(db)
    assert status == RunStatus.COMPLETE.value
    assert finished_at is not None


def test_a_failed_trial_is_left_failed_unless_retried(db: Path) -> None:
    _fail_stored_trial(db)
    caller = Caller(dataclasses.replace(AS_STARTED, only=("1",)))
    with Store.open(str(db)) as store:
        assert caller.resume(store).outcome is None
    assert caller.notices[-1] == "1 of them failed; --retry-failed tries them again"
    assert _row(db)[0] == RunStatus.FAILED.value

    before = _row(db)
    retrying = Caller(caller.settings)
    with Store.open(str(db)) as store, pytest.raises(SshAsked):
        retrying.resume(store, retry_failed=True)
    assert retrying.notices == [
        "resuming run 1: 0 of 1 trials are stored, 1 to go (1 failed, tried again)"
    ]
    assert _row(db) == before


def test_trials_kept_in_the_spool_are_committed_first(db: Path) -> None:
    # Repetition 2 of test 1, measured while the store was away.
    caller = Caller(dataclasses.replace(AS_STARTED, only=("1",), repetitions=2))
    with Store.open(str(db)) as store:
        stored = store.load_run(1, intervals=False, outputs=False, commands=False).outcomes[0]
        second = dataclasses.replace(stored.trial, repetition=2)
        kept = keep(store.url, 1, dataclasses.replace(stored, trial=second))
        assert kept == spool_path(store.url, 1)
        resumed = caller.resume(store)
    assert caller.notices == [
        f"committed 1 trial of run 1 kept in {kept} while the store was away",
        "run 1 already holds all 2 trials: nothing to resume",
    ]
    assert [o.trial.key for o in resumed.record.outcomes] == [
        "1/lo/default/1",
        "1/lo/default/2",
    ]
    assert not kept.exists()
    assert _row(db)[0] == RunStatus.COMPLETE.value


def test_a_run_another_machine_may_still_write_is_not_taken_over_unless_forced(
    db: Path,
) -> None:
    with Store.open(str(db)):
        pass  # migrated
    elsewhere = f"not-{socket.gethostname()}/boot/1234/5678"
    with sqlite3.connect(db) as conn:
        conn.execute("update runs set status = 'running', owner = ? where id = 1", (elsewhere,))
    caller = Caller(dataclasses.replace(AS_STARTED, only=("1",)))
    with Store.open(str(db)) as store, pytest.raises(RunInUseError, match="cannot tell"):
        caller.resume(store)
    assert caller.notices == []
    assert caller.read == []
    assert _row(db)[:2] == (RunStatus.RUNNING.value, elsewhere)
    with Store.open(str(db)) as store:
        assert caller.resume(store, force=True).outcome is None
    assert _row(db)[0] == RunStatus.COMPLETE.value
