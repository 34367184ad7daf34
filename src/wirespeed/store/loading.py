"""Reading runs back: the list of runs, and a run with every outcome rebuilt (Store.list_runs,
Store.load_run), in one query per table; rebuilding.py makes the objects.

Loading a run of 10,000 trials is the first part of its reports' time, so the rows are
read as the driver's tuples where SQLAlchemy's processing changes nothing, and each
distinct JSON text is decoded once.
"""

from __future__ import annotations

import itertools
import json
import operator
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from sqlalchemy import JSON, Connection, Text, cast, func, literal, select
from sqlalchemy.engine import RowMapping

from wirespeed.errors import UsageError
from wirespeed.model import (
    BenchSpec,
    Proto,
    Result,
    TestCase,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.store import codec, packed_intervals, schema
from wirespeed.store.gc_pause import collector_paused
from wirespeed.store.rebuilding import (
    PROTOCOLS,
    RESULT_COLUMNS,
    STATUSES,
    Decoded,
    each,
    new,
    packed_directions,
    raw_output,
    rebuild_directions,
    set_outcome,
    set_result,
    set_trial,
)
from wirespeed.store.records import PackedDirection, RunRecord, RunStatus, RunSummary


def list_runs(conn: Connection) -> list[RunSummary]:
    t = schema.trials
    runs = conn.execute(select(schema.runs).order_by(schema.runs.c.id)).mappings().all()
    counts: dict[int, dict[str, int]] = defaultdict(dict)
    for run_id, status, n in conn.execute(
        select(t.c.run_id, t.c.status, func.count()).group_by(t.c.run_id, t.c.status)
    ):
        counts[run_id][status] = n
    paths: dict[int, list[str]] = defaultdict(list)
    for run_id, name in conn.execute(
        select(t.c.run_id, t.c.path_name).order_by(t.c.run_id, t.c.position)
    ):
        if name not in paths[run_id]:
            paths[run_id].append(name)
    return [
        RunSummary(
            id=run["id"],
            started_at=run["started_at"],
            finished_at=run["finished_at"],
            title=run["title"],
            status=RunStatus(run["status"]),
            trials_ok=counts[run["id"]].get(TrialStatus.OK.value, 0),
            trials_failed=counts[run["id"]].get(TrialStatus.FAILED.value, 0),
            paths=tuple(paths[run["id"]]),
        )
        for run in runs
    ]


def load_run(
    conn: Connection,
    run_id: int | None,
    *,
    intervals: bool | Literal["packed"],
    outputs: bool,
    commands: bool,
) -> RunRecord:
    """Store.load_run's run (which says what the options leave out); None: the latest."""
    if run_id is None:
        run_id = conn.execute(select(func.max(schema.runs.c.id))).scalar_one_or_none()
        if run_id is None:
            raise UsageError("no runs stored yet", hint="`wirespeed run PLAN` makes the first")
    run = require_run(conn, run_id)
    packed: list[tuple[PackedDirection, ...]] | None = [] if intervals == "packed" else None
    with collector_paused():  # gc_pause.py says why
        outcomes = _load_outcomes(
            conn,
            run_id,
            intervals=intervals,
            packed=packed,
            outputs=outputs,
            commands=commands,
        )
    return RunRecord.from_fields(run, run_id, outcomes, None if packed is None else tuple(packed))


def require_run(conn: Connection, run_id: int) -> RowMapping:
    """The run's row; UsageError if there is no such run."""
    run = (
        conn.execute(select(schema.runs).where(schema.runs.c.id == run_id)).mappings().one_or_none()
    )
    if run is None:
        raise UsageError(f"no run {run_id}; `wirespeed runs` lists them")
    return run


# The trial columns _load_outcomes reads, spec and path as their JSON text (see Decoded).
_TRIAL_COLUMNS = (
    schema.trials.c.id,
    schema.trials.c.test_id,
    schema.trials.c.test_name,
    schema.trials.c.tool,
    cast(schema.trials.c.spec, Text),
    cast(schema.trials.c.path, Text),
    schema.trials.c.variant,
    schema.trials.c.repetition,
    schema.trials.c.status,
    schema.trials.c.reason,
    schema.trials.c.started_at,
    schema.trials.c.finished_at,
    schema.trials.c.has_result,
    schema.trials.c.result_tool,
    schema.trials.c.result_protocol,
    schema.trials.c.tool_version,
    cast(schema.trials.c.bench, Text),
)

# What outputs=False leaves out of raw_outputs.
_OUTPUT_TEXTS = ("text", "stderr")


def _load_outcomes(
    conn: Connection,
    run_id: int,
    *,
    intervals: bool | Literal["packed"] = True,
    packed: list[tuple[PackedDirection, ...]] | None = None,
    outputs: bool = True,
    commands: bool = True,
) -> tuple[TrialOutcome, ...]:
    """The run's outcomes; with intervals="packed", their series are appended to
    `packed`, one entry per outcome; outputs=False leaves the tools' and the samplers'
    raw outputs empty, commands=False the tools' runs out altogether."""
    t = schema.trials
    found = conn.execute(select(*_TRIAL_COLUMNS).where(t.c.run_id == run_id).order_by(t.c.position))
    # SQLite's own tuples are the values (FreeText changes nothing there, has_result is
    # 0 or 1), and 10,000 Rows cost as much as the query; PostgreSQL's texts may need
    # FreeText's decoding.
    trial_rows = found.cursor.fetchall() if conn.dialect.name == "sqlite" else found.all()
    results = _results_of_run(conn, run_id, intervals=intervals)
    raws = (
        _group(
            _rows_of_run(
                conn, schema.raw_outputs, run_id, left_out=() if outputs else _OUTPUT_TEXTS
            ),
            "trial_id",
        )
        if commands
        else {}
    )
    warnings = _group(_rows_of_run(conn, schema.warnings, run_id), "trial_id")
    monitors = _group(
        _rows_of_run(conn, schema.monitors, run_id, left_out=() if outputs else ("raw",)),
        "trial_id",
    )
    findings = _group(_rows_of_run(conn, schema.findings, run_id), "trial_id")
    measured = _group(_rows_of_run(conn, schema.measurements, run_id), "trial_id")
    decoded = Decoded()
    unpack = packed_intervals.Unpacker() if intervals is True else None
    tests: dict[tuple[str, str, str, str, str | None], TestCase] = {}
    outcomes = []
    for (
        trial_id,
        test_id,
        test_name,
        tool,
        spec,
        path,
        variant,
        repetition,
        status,
        reason,
        started_at,
        finished_at,
        has_result,
        result_tool,
        result_protocol,
        tool_version,
        bench,
    ) in trial_rows:
        result = None
        if has_result:
            rows = results.get(trial_id, [])
            if packed is not None:
                packed.append(packed_directions(rows))
            result = new(Result)
            set_result(
                result,
                {
                    "tool": codec.decode_tool(result_tool),
                    "protocol": (
                        None
                        if result_protocol is None
                        else PROTOCOLS.get(result_protocol) or Proto(result_protocol)
                    ),
                    "directions": rebuild_directions(rows, unpack),
                    "warnings": each(warnings, trial_id, codec.decode_warning),
                    "tool_version": tool_version,
                    "measurements": each(measured, trial_id, codec.decode_measurement_row),
                },
            )
        elif packed is not None:
            packed.append(())
        test_key = (test_id, test_name, tool, spec, bench)
        test = tests.get(test_key)
        if test is None:
            test = tests[test_key] = TestCase(
                id=test_id,
                name=test_name,
                tool=codec.decode_tool(tool),
                spec=decoded.spec(spec),
            ).with_options(_options(bench))
        trial = new(Trial)
        set_trial(
            trial,
            {
                "test": test,
                "path": decoded.path(path),
                "variant": variant,
                "repetition": repetition,
            },
        )
        fields = {
            "trial": trial,
            "status": STATUSES.get(status) or TrialStatus(status),
            "started_at": started_at,
            "finished_at": finished_at,
            "result": result,
            "reason": reason,
            "raw": each(raws, trial_id, raw_output),
            "monitors": each(monitors, trial_id, codec.decode_monitor),
            "findings": each(findings, trial_id, codec.decode_finding),
        }
        if (fields["status"] is TrialStatus.OK and result is None) or (
            fields["status"] is TrialStatus.FAILED and not reason
        ):
            outcomes.append(TrialOutcome(**fields))  # its own checks: let it raise its error
            continue
        outcome = new(TrialOutcome)
        set_outcome(outcome, fields)
        outcomes.append(outcome)
    return tuple(outcomes)


def _results_of_run(
    conn: Connection, run_id: int, *, intervals: bool | Literal["packed"]
) -> dict[int, list[Sequence[Any]]]:
    """Each trial's result rows, in order, as the driver's tuples: numbers, a flow name,
    has_udp (a bool, or SQLite's 0/1) and the packed intervals (bytes, or psycopg2's
    memoryview), none of which SQLAlchemy would convert, and building a Row around each
    of them cost as much as reading it."""
    r, t = schema.results, schema.trials
    columns = RESULT_COLUMNS + ((r.c.intervals,) if intervals else ())
    rows = conn.execute(
        select(*columns)
        .join(t, t.c.id == r.c.trial_id)
        .where(t.c.run_id == run_id)
        .order_by(t.c.position, r.c.position)  # as in _rows_of_run
    ).cursor.fetchall()
    return {
        trial_id: list(of_trial)
        for trial_id, of_trial in itertools.groupby(rows, key=operator.itemgetter(1))
    }


def _rows_of_run(
    conn: Connection, table: Any, run_id: int, *, left_out: tuple[str, ...] = ()
) -> Sequence[Mapping[str, Any]]:
    """All rows of a per-trial table for one run, in a stable order: one query per table.
    The columns named in `left_out` are not read: they come back as empty texts."""
    t = schema.trials
    columns = [literal("").label(c.name) if c.name in left_out else c for c in table.c]
    found = conn.execute(
        select(*columns)
        .join(t, t.c.id == table.c.trial_id)
        .where(t.c.run_id == run_id)
        # The trials' order, as their index on (run_id, position) gives them: by trial_id,
        # SQLite sorted every row in a temporary B-tree (twice the time on 10,000 trials).
        .order_by(t.c.position, table.c.position)
    )
    if conn.dialect.name != "sqlite":
        mapped: Sequence[Any] = found.mappings().all()
        return mapped
    # SQLite's own tuples, made dicts here, with the JSON columns decoded once per distinct
    # text: SQLAlchemy's rows and type processing took 8 us a row, 0.15 s for the 20,000
    # raw outputs of a run of 10,000 trials (FreeText changes nothing on SQLite).
    names = [c.name for c in table.c]
    json_columns = [i for i, c in enumerate(table.c) if isinstance(c.type, JSON)]
    decoded: dict[str, Any] = {}
    rows = []
    for values in found.cursor.fetchall():
        row = dict(zip(names, values, strict=True))
        for i in json_columns:
            text = values[i]
            if text is not None:
                if text not in decoded:
                    decoded[text] = json.loads(text)
                row[names[i]] = decoded[text]
        rows.append(row)
    return rows


def _group(rows: Iterable[Mapping[str, Any]], key: str) -> dict[int, list[Mapping[str, Any]]]:
    grouped: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row[key]].append(row)
    return grouped


def _options(stored: str | None) -> BenchSpec | None:
    """trials.bench: a kind's `options:`, a search's or a benchmark's (one column holds
    either; TestCase.with_options puts them where the test's kind keeps them)."""
    return None if stored is None else codec.decode_bench(json.loads(stored))
