"""Trials measured while the store could not take them, kept on this machine until
`wirespeed run --resume RUN` commits them.

When a commit fails for good (a PostgreSQL server down or frozen for longer than the
store retries), the trial just measured is written to a spool file instead of being
lost: a SQLite store of its own (the same schema, so every value comes back exactly),
one per store and run, `<spool dir>/<store tag>-run<RUN>.db`, beside the per-user store
(on Linux ~/.local/share/wirespeed/spool). `wirespeed report --db FILE` shows what it
holds. A resume of the run commits its kept trials first, each once (add_outcome with
once=True: a commit whose answer was lost may have gone through), then deletes the file.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import time
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import URL

from wirespeed.model import TrialOutcome
from wirespeed.store import location
from wirespeed.store.location import default_db_path
from wirespeed.store.records import RunInfo
from wirespeed.store.store import Store


def spool_dir() -> Path:
    return default_db_path().parent / "spool"


def spool_path(store_url: str, run_id: int, directory: Path | None = None) -> Path:
    """Where the trials kept for run `run_id` of the store `store_url` (as Store.url
    shows it, without a password) are."""
    return (directory or spool_dir()) / f"{_tag(store_url)}-run{run_id}.db"


def kept_runs(store_url: str, directory: Path | None = None) -> dict[int, Path]:
    """The runs of the store that have trials in the spool, with their files."""
    prefix = f"{_tag(store_url)}-run"
    found = {}
    for path in (directory or spool_dir()).glob(f"{prefix}*.db"):
        number = path.name.removeprefix(prefix).removesuffix(".db")
        if number.isdigit():
            found[int(number)] = path
    return dict(sorted(found.items()))


def _tag(store_url: str) -> str:
    return hashlib.sha256(store_url.encode()).hexdigest()[:16]


def keep(store_url: str, run_id: int, outcome: TrialOutcome, directory: Path | None = None) -> Path:
    """Add the outcome to the run's spool file; its path. OSError or StoreError if it
    cannot be written either."""
    path = spool_path(store_url, run_id, directory)
    owner = location.invoking_user()
    if owner is not None:  # under sudo: the spool is the user's, as their store is
        location.make_owned_file(path, owner)
    else:
        path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path), _open(path) as spool:
        runs = spool.list_runs()
        if runs:
            spool_run = runs[0].id
        else:
            spool_run = spool.begin_run(
                RunInfo(
                    title=f"trials kept for run {run_id} of {store_url}",
                    started_at=time.time(),
                    provenance={"spool": {"store": store_url, "run": run_id}},
                )
            )
        spool.add_outcome(spool_run, outcome, once=True)
    return path


def commit_kept(store: Store, run_id: int, directory: Path | None = None) -> int:
    """Commit the trials kept for the run (which this process must own: store/resume.py
    claim_run) and delete the spool file; how many were committed. A kept outcome whose
    trial the run holds as ok since is left out; a failed one it replaces."""
    path = spool_path(store.url, run_id, directory)
    if not path.exists():
        return 0
    from wirespeed.store.resume import resumable_run

    with _locked(path):
        if not path.exists():  # another resume committed it while this one waited
            return 0
        with _open(path) as spool:
            runs = spool.list_runs()
            kept = spool.load_run(runs[0].id).outcomes if runs else ()
        stored = resumable_run(store, run_id)
        committed = 0
        for outcome in kept:
            key = outcome.trial.key
            if key in stored.done_keys and key not in stored.failed_keys:
                continue
            store.add_outcome(run_id, outcome, replace_failed=key in stored.failed_keys, once=True)
            committed += 1
        for suffix in ("", "-wal", "-shm", ".lock"):
            path.with_name(f"{path.name}{suffix}").unlink(missing_ok=True)
    return committed


def _open(path: Path) -> Store:
    return Store(URL.create("sqlite", database=str(path)))


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One process at a time writes or commits a spool file."""
    with open(path.with_name(f"{path.name}.lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield
