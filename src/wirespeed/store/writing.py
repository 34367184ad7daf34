"""Writing runs: the work, inside one write transaction, of Store.begin_run,
Store.add_outcome and Store.finish_run, and the rows a trial is stored as.

Each function may be run again after an outage (Store.write retries it): `retried` or
`once` says so, and the work first looks whether its earlier attempt committed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import Connection, Table, delete, func, insert, select, update

from wirespeed.model import DirectionResult, Result, StreamResult, TrialOutcome, TrialStatus
from wirespeed.store import codec, packed_intervals, schema
from wirespeed.store.loading import require_run
from wirespeed.store.records import RunInfo, RunStatus
from wirespeed.store.redaction import mask_passwords


def insert_run(conn: Connection, info: RunInfo, owner: str, *, retried: bool) -> int:
    """A new run of `owner`, running; its id. Retried: the run this owner began at
    info.started_at, if the earlier attempt committed it."""
    if retried:
        found = conn.execute(
            select(schema.runs.c.id).where(
                schema.runs.c.owner == owner, schema.runs.c.started_at == info.started_at
            )
        ).scalar_one_or_none()
        if found is not None:
            return int(found)
    row = conn.execute(
        insert(schema.runs).values(
            started_at=info.started_at,
            status=RunStatus.RUNNING.value,
            title=info.title,
            plan_path=info.plan_path,
            plan_text=info.plan_text,
            wirespeed_version=info.wirespeed_version,
            argv=[mask_passwords(arg) for arg in info.argv],
            provenance=dict(info.provenance),
            owner=owner,
            expectations=None if info.expectations is None else dict(info.expectations),
            settings=None if info.settings is None else dict(info.settings),
        )
    )
    run_id = row.inserted_primary_key
    assert run_id is not None
    return int(run_id[0])


def insert_outcome(
    conn: Connection,
    run_id: int,
    outcome: TrialOutcome,
    *,
    replace_failed: bool,
    once: bool,
) -> int:
    """The outcome as the run's last trial; its id (Store.add_outcome says what
    replace_failed and once do)."""
    t = schema.trials
    require_run(conn, run_id)
    if once or replace_failed:
        of_key = conn.execute(
            select(t.c.id, t.c.status, t.c.started_at, t.c.finished_at).where(
                t.c.run_id == run_id, t.c.key == outcome.trial.key
            )
        ).all()
        if once:
            for row in of_key:
                if (row.started_at, row.finished_at) == (
                    outcome.started_at,
                    outcome.finished_at,
                ):
                    return int(row.id)
        failed = [row.id for row in of_key if row.status == TrialStatus.FAILED.value]
        if replace_failed and failed:
            # Its results, outputs, samples and findings go with it (ON DELETE CASCADE).
            conn.execute(delete(t).where(t.c.id.in_(failed)))
    position = conn.execute(
        select(func.coalesce(func.max(schema.trials.c.position), 0)).where(
            schema.trials.c.run_id == run_id
        )
    ).scalar_one()
    trial_id = _insert_trial(conn, run_id, int(position) + 1, outcome)
    if outcome.result is not None:
        _insert_result(conn, trial_id, outcome.result)
    _insert_in_order(conn, schema.raw_outputs, trial_id, [codec.encode_raw(r) for r in outcome.raw])
    _insert_in_order(
        conn, schema.monitors, trial_id, [codec.encode_monitor(m) for m in outcome.monitors]
    )
    _insert_in_order(
        conn, schema.findings, trial_id, [codec.encode_finding(f) for f in outcome.findings]
    )
    return trial_id


def _insert_in_order(
    conn: Connection, table: Table, trial_id: int, rows: Sequence[Mapping[str, Any]]
) -> None:
    """A trial's rows of one table, numbered in the order the trial holds them."""
    if rows:
        conn.execute(
            insert(table),
            [{"trial_id": trial_id, "position": i, **row} for i, row in enumerate(rows)],
        )


def finish_run(conn: Connection, run_id: int, status: RunStatus, finished_at: float) -> None:
    require_run(conn, run_id)
    conn.execute(
        update(schema.runs)
        .where(schema.runs.c.id == run_id)
        .values(status=status.value, finished_at=finished_at)
    )


def _insert_trial(conn: Connection, run_id: int, position: int, outcome: TrialOutcome) -> int:
    trial, result = outcome.trial, outcome.result
    inserted = conn.execute(
        insert(schema.trials).values(
            run_id=run_id,
            position=position,
            key=trial.key,
            test_id=trial.test.id,
            test_name=trial.test.name,
            tool=str(trial.test.tool),
            protocol="" if trial.test.bench else trial.test.spec.protocol.value,
            spec=codec.encode_spec(trial.test.spec),
            bench=codec.encode_bench(trial.test.options),
            path_name=trial.path.name,
            path=codec.encode_path(trial.path),
            variant=trial.variant,
            repetition=trial.repetition,
            status=outcome.status.value,
            reason=outcome.reason,
            started_at=outcome.started_at,
            finished_at=outcome.finished_at,
            has_result=result is not None,
            result_tool=None if result is None else str(result.tool),
            result_protocol=None
            if result is None or result.protocol is None
            else result.protocol.value,
            tool_version=None if result is None else result.tool_version,
        )
    ).inserted_primary_key
    assert inserted is not None
    return int(inserted[0])


def _insert_result(conn: Connection, trial_id: int, result: Result) -> None:
    position = 0

    def add_row(
        parent_id: int | None, part: DirectionResult | StreamResult, stream_id: int | None
    ) -> int:
        nonlocal position
        position += 1
        goodput = part.goodput_bps if isinstance(part, DirectionResult) else None
        row_id = conn.execute(
            insert(schema.results).values(
                trial_id=trial_id,
                parent_id=parent_id,
                kind="direction" if parent_id is None else "stream",
                position=position,
                flow=part.flow.value,
                stream_id=stream_id,
                goodput_bps=goodput,
                retransmits=part.retransmits,
                intervals=packed_intervals.pack(part.intervals),
                **codec.encode_measurements(part.sent, part.received),
                **codec.encode_udp(part.udp),
            )
        ).inserted_primary_key
        assert row_id is not None
        return int(row_id[0])

    for direction in result.directions:
        direction_row = add_row(None, direction, None)
        for stream in direction.streams:
            add_row(direction_row, stream, stream.id)
    _insert_in_order(
        conn,
        schema.measurements,
        trial_id,
        [codec.encode_measurement(m) for m in result.measurements],
    )
    _insert_in_order(
        conn,
        schema.warnings,
        trial_id,
        [{"kind": w.kind.value, "message": w.message} for w in result.warnings],
    )
