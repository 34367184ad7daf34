"""A store written by an earlier schema version opens, is migrated, and reports as it did."""

from __future__ import annotations

import dataclasses
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import schema_v1
from migration_samples import RUNS, SampleRun
from sqlalchemy import Engine, func, inspect, select, text
from store_backends import BACKENDS, engine_for, fresh_store
from store_samples import WAN, dual_outcome

from support.run_report import render_markdown
from wirespeed.errors import UsageError
from wirespeed.process_owner import process_owner
from wirespeed.report import build_report, render_csv, render_json
from wirespeed.report.html import render_html
from wirespeed.store import RunRecord, Store, migrations, packed_intervals
from wirespeed.store.resume import claim_run
from wirespeed.store.schema import SCHEMA_VERSION, meta, runs

FIXTURE = Path(__file__).parent / "fixtures" / "store-v1.sql"


@pytest.fixture(params=BACKENDS)
def v1_db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A store as schema version 1 wrote it, holding migration_samples.RUNS as run 1, 2."""
    with fresh_store(request.param, tmp_path) as url:
        _write_v1_store(url, tmp_path)
        yield url


def _write_v1_store(url: str, tmp_path: Path) -> None:
    # The fixture is SQLite's own dump of a store written by version 1's code.
    dumped = url if "://" not in url else str(tmp_path / "v1-source.db")
    with sqlite3.connect(dumped) as conn:
        conn.executescript(FIXTURE.read_text(encoding="utf-8"))
        # In WAL mode, as every store wirespeed wrote is (the mode is kept in the file):
        # two processes opening a store still in rollback mode would race to switch it.
        conn.execute("PRAGMA journal_mode=WAL")
    conn.close()
    if dumped == url:
        return
    # On PostgreSQL: version 1's tables, and the fixture's rows copied into them.
    source, target = engine_for(dumped), engine_for(url)
    try:
        with source.connect() as src, target.begin() as dst:
            schema_v1.metadata.create_all(dst)
            for table in schema_v1.metadata.sorted_tables:
                rows = [dict(r) for r in src.execute(table.select()).mappings()]
                if rows:
                    dst.execute(table.insert(), rows)
                if "id" in table.c:
                    # The ids were given: the sequence must go on after them, as it would.
                    dst.execute(
                        text(
                            f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                            f"(SELECT coalesce(max(id), 0) + 1 FROM {table.name}), false)"
                        )
                    )
    finally:
        source.dispose()
        target.dispose()


def _layout(engine: Engine) -> tuple[str, set[str], set[str]]:
    with engine.connect() as conn:
        version = conn.execute(
            select(meta.c.value).where(meta.c.key == "schema_version")
        ).scalar_one()
    inspector = inspect(engine)
    return (
        version,
        set(inspector.get_table_names()),
        {c["name"] for c in inspector.get_columns("results")},
    )


def _reports(record: RunRecord) -> tuple[str, ...]:
    report = build_report(record)
    return (
        render_json(report),
        render_csv(report),
        render_markdown(report),
        render_html(report),
    )


def _expected(run_id: int, run: SampleRun) -> RunRecord:
    return RunRecord(
        id=run_id,
        info=run.info,
        status=run.status,
        finished_at=run.finished_at,
        outcomes=run.outcomes,
    )


def test_the_fixture_is_a_version_1_store(tmp_path: Path) -> None:
    db = tmp_path / "v1.db"
    _write_v1_store(str(db), tmp_path)
    engine = engine_for(str(db))
    try:
        version, tables, columns = _layout(engine)
        with engine.connect() as conn:
            stored = conn.execute(select(func.count()).select_from(schema_v1.intervals))
            count = stored.scalar_one()
    finally:
        engine.dispose()
    assert (version, "intervals" in tables, "intervals" in columns) == ("1", True, False)
    assert count == sum(
        len(series)
        for run in RUNS
        for outcome in run.outcomes
        if outcome.result
        for direction in outcome.result.directions
        for series in (direction.intervals, *(s.intervals for s in direction.streams))
    )


def test_a_version_1_store_is_migrated_with_nothing_lost(v1_db: str) -> None:
    with Store.open(v1_db) as store:
        loaded = [store.load_run(run_id) for run_id in (1, 2)]
        bare = store.load_run(1, intervals=False)
    for run_id, (record, run) in enumerate(zip(loaded, RUNS, strict=True), start=1):
        assert record == _expected(run_id, run)
        # Every format reports the migrated run as it reports the run itself.
        assert _reports(record) == _reports(_expected(run_id, run))
    assert bare.outcomes != loaded[0].outcomes  # intervals=False still leaves them out

    engine = engine_for(v1_db)
    try:
        version, tables, columns = _layout(engine)
    finally:
        engine.dispose()
    assert version == str(SCHEMA_VERSION)
    assert "intervals" not in tables
    assert "intervals" in columns


def test_a_migrated_store_records_owners_of_new_runs_only(v1_db: str) -> None:
    with Store.open(v1_db) as store:
        run_id = store.begin_run(RUNS[0].info)
        # A run stored before owners were recorded is resumable as it was.
        assert claim_run(store, 1).owner is None
    engine = engine_for(v1_db)
    try:
        with engine.connect() as conn:
            owners = dict(conn.execute(select(runs.c.id, runs.c.owner)).all())
    finally:
        engine.dispose()
    assert owners == {1: process_owner(), 2: None, run_id: process_owner()}


def test_a_migrated_store_keeps_expectations_of_new_runs_only(v1_db: str) -> None:
    expected = {"version": 1, "tests": {}}
    with Store.open(v1_db) as store:
        run_id = store.begin_run(dataclasses.replace(RUNS[0].info, expectations=expected))
        # A run stored before has none: its reports read them from its plan, as before.
        assert store.load_run(1).info.expectations is None
        assert store.load_run(run_id).info.expectations == expected


def test_a_migrated_store_takes_new_runs(v1_db: str) -> None:
    with Store.open(v1_db) as store:
        run_id = store.begin_run(RUNS[0].info)
        store.add_outcome(run_id, dual_outcome(WAN, repetition=9))
        assert run_id == 3  # ids go on after the migrated runs'
        assert store.load_run(run_id).outcomes == (dual_outcome(WAN, repetition=9),)
        assert store.load_run(1) == _expected(1, RUNS[0])
    # Opened again: already at the current version, nothing to do.
    with Store.open(v1_db) as store:
        assert [r.id for r in store.list_runs()] == [1, 2, 3]


def test_a_migration_that_fails_leaves_the_store_as_it_was(
    v1_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = 0
    pack_rows = packed_intervals.pack_rows

    def failing(rows: object) -> bytes | None:
        nonlocal calls
        calls += 1
        if calls == 3:
            raise ValueError("interval cannot be stored: injected")
        return pack_rows(rows)  # type: ignore[arg-type]

    monkeypatch.setattr(packed_intervals, "pack_rows", failing)
    with pytest.raises(
        UsageError, match=rf"cannot migrate .* from schema version 1 to {SCHEMA_VERSION}"
    ):
        Store.open(v1_db)
    engine = engine_for(v1_db)
    try:
        version, tables, columns = _layout(engine)
    finally:
        engine.dispose()
    assert (version, "intervals" in tables, "intervals" in columns) == ("1", True, False)

    monkeypatch.setattr(packed_intervals, "pack_rows", pack_rows)
    with Store.open(v1_db) as store:
        assert store.load_run(1) == _expected(1, RUNS[0])


OPEN_AND_LOAD = """
import sys
from wirespeed.kinds import wire_hooks
from wirespeed.store import Store
wire_hooks()  # a script of its own wires the kinds, as the command line does
with Store.open(sys.argv[1]) as store:
    print(len(store.load_run(1).outcomes))
"""


@pytest.mark.process
def test_two_processes_opening_a_version_1_store_migrate_it_once(v1_db: str) -> None:
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", OPEN_AND_LOAD, v1_db],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for _ in range(2)
    ]
    for opener in openers:
        output, _ = opener.communicate(timeout=120)
        assert (opener.returncode, output.strip()) == (0, str(len(RUNS[0].outcomes)))
    with Store.open(v1_db) as store:
        assert store.load_run(1) == _expected(1, RUNS[0])


def test_every_older_version_has_a_step() -> None:
    assert set(migrations.STEPS) == set(range(1, SCHEMA_VERSION))
