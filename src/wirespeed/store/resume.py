"""What `wirespeed run --resume RUN` needs from the store: the run as it was started
(plan text, options), which trials it already holds, and the run taken over by this
process.

A trial is in the store once add_outcome committed it (one transaction per trial), so
"already done" is exactly "has a row": a trial cut short by a kill left nothing and runs
again; a trial that failed was tried, and runs again only when asked (--retry-failed),
its new outcome replacing the failed one.

A run is written by one process at a time, its owner (runs.owner): a run whose owner
still runs is refused, so two processes never measure the same trials into one run.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select, update

from wirespeed.errors import UsageError
from wirespeed.model import TrialStatus
from wirespeed.process_owner import describe_owner, owner_alive, process_owner
from wirespeed.store import schema
from wirespeed.store.records import RunStatus
from wirespeed.store.store import Store


@dataclass(frozen=True)
class ResumableRun:
    run_id: int
    status: RunStatus
    title: str | None
    plan_path: str | None
    plan_text: str | None
    argv: tuple[str, ...]
    # RunSettings.to_json() as stored (run/settings.py); None for a run stored before
    # runs kept them: its argv says how it measures.
    settings: Mapping[str, Any] | None
    done_keys: frozenset[str]
    # Keys whose every stored outcome failed: what --retry-failed tries again.
    failed_keys: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Claim:
    """A run taken over by this process: what it was before, to put back if the resume
    stops before it starts measuring."""

    run_id: int
    status: RunStatus
    owner: str | None
    finished_at: float | None


class RunInUseError(UsageError):
    """The run's owner is still running it."""


def resumable_run(store: Store, run_id: int) -> ResumableRun:
    """The stored run and the keys of the trials it holds; UsageError if there is none."""
    with store.reading() as conn:
        row = conn.execute(
            select(
                schema.runs.c.status,
                schema.runs.c.title,
                schema.runs.c.plan_path,
                schema.runs.c.plan_text,
                schema.runs.c.argv,
                schema.runs.c.settings,
            ).where(schema.runs.c.id == run_id)
        ).one_or_none()
        if row is None:
            raise _no_run(store, run_id)
        statuses: dict[str, set[str]] = {}
        for key, status in conn.execute(
            select(schema.trials.c.key, schema.trials.c.status).where(
                schema.trials.c.run_id == run_id
            )
        ):
            statuses.setdefault(str(key), set()).add(str(status))
    argv = row.argv if isinstance(row.argv, list) else []
    return ResumableRun(
        run_id=run_id,
        status=RunStatus(row.status),
        title=row.title,
        plan_path=row.plan_path,
        plan_text=row.plan_text,
        argv=tuple(str(arg) for arg in argv),
        settings=row.settings if isinstance(row.settings, dict) else None,
        done_keys=frozenset(statuses),
        failed_keys=frozenset(
            key for key, seen in statuses.items() if seen == {TrialStatus.FAILED.value}
        ),
    )


def claim_run(store: Store, run_id: int, *, force: bool = False) -> Claim:
    """Make this process the run's owner and mark it running, in one transaction; refuse
    (RunInUseError) while its owner runs it. An owner on another machine sharing the
    store cannot be checked from here: refused unless `force`."""
    me = process_owner()

    def claim(conn: Connection, _retried: bool) -> Claim:
        runs = schema.runs
        query = select(runs.c.status, runs.c.owner, runs.c.finished_at).where(runs.c.id == run_id)
        if conn.dialect.name == "postgresql":
            # Two resumes at once: the second waits here for the first's commit, then
            # sees the first as the owner. (SQLite's write transaction is already
            # exclusive: it begins IMMEDIATE.)
            query = query.with_for_update()
        row = conn.execute(query).one_or_none()
        if row is None:
            raise _no_run(store, run_id)
        status, owner = RunStatus(row.status), row.owner
        if status is RunStatus.RUNNING and owner is not None and owner != me:
            _refuse_live_owner(run_id, owner, force=force)
        conn.execute(
            update(runs)
            .where(runs.c.id == run_id)
            .values(status=RunStatus.RUNNING.value, finished_at=None, owner=me)
        )
        return Claim(run_id, status, owner, row.finished_at)

    return store.write(claim)


def _refuse_live_owner(run_id: int, owner: str, *, force: bool) -> None:
    alive = owner_alive(owner)
    if alive is True:
        raise RunInUseError(
            f"run {run_id} is still running ({describe_owner(owner)}): "
            "resuming it now would measure its trials twice",
            hint=f"wait for it to end, or stop it (Ctrl-C), then resume run {run_id}",
        )
    if alive is None and not force:
        raise RunInUseError(
            f"run {run_id} is being written by {describe_owner(owner)}, and this machine "
            "cannot tell whether that process still runs",
            hint=f"resume it there, or, if that process is gone, add --force: "
            f"wirespeed run --resume {run_id} --force",
        )


def release_run(store: Store, claim: Claim) -> None:
    """Give the run back as it was: the resume stopped before it measured anything."""
    store.write(
        lambda conn, _retried: conn.execute(
            update(schema.runs)
            .where(schema.runs.c.id == claim.run_id, schema.runs.c.owner == process_owner())
            .values(status=claim.status.value, owner=claim.owner, finished_at=claim.finished_at)
        )
    )


def _no_run(store: Store, run_id: int) -> UsageError:
    return UsageError(
        f"there is no run {run_id} in {store.url}",
        hint="`wirespeed runs` lists the stored runs",
    )
