"""What `wirespeed run --resume RUN` needs from the store: the run as it was started
(plan text, options), which trials it already holds, and a way to reopen it.

A trial is in the store once add_outcome committed it (one transaction per trial), so
"already done" is exactly "has a row": a trial cut short by a kill left nothing and runs
again; a trial that failed was tried and is kept as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select, update

from wirespeed.errors import UsageError
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
    done_keys: frozenset[str]


def resumable_run(store: Store, run_id: int) -> ResumableRun:
    """The stored run and the keys of the trials it holds; UsageError if there is none."""
    with store._reading() as conn:
        row = conn.execute(
            select(
                schema.runs.c.status,
                schema.runs.c.title,
                schema.runs.c.plan_path,
                schema.runs.c.plan_text,
                schema.runs.c.argv,
            ).where(schema.runs.c.id == run_id)
        ).one_or_none()
        if row is None:
            raise UsageError(
                f"there is no run {run_id} in {store.url}",
                hint="`wirespeed runs` lists the stored runs",
            )
        keys = conn.execute(
            select(schema.trials.c.key).where(schema.trials.c.run_id == run_id)
        ).scalars()
        done = frozenset(str(key) for key in keys)
    argv = row.argv if isinstance(row.argv, list) else []
    return ResumableRun(
        run_id=run_id,
        status=RunStatus(row.status),
        title=row.title,
        plan_path=row.plan_path,
        plan_text=row.plan_text,
        argv=tuple(str(arg) for arg in argv),
        done_keys=done,
    )


def reopen_run(store: Store, run_id: int) -> None:
    """Mark the run as running again: a resumed run is one run, its trials together."""
    with store._writing() as conn:
        conn.execute(
            update(schema.runs)
            .where(schema.runs.c.id == run_id)
            .values(status=RunStatus.RUNNING.value, finished_at=None)
        )
