"""Bringing a store written by an earlier schema version up to schema.SCHEMA_VERSION.

Store runs migrate() inside the transaction that opens the store (under PostgreSQL's
advisory lock, or SQLite's write lock), so two processes opening an old store at once
convert it once, and a migration that fails leaves the store as it was. Nothing a
version held is dropped: a migration moves it into the new layout.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    Connection,
    Double,
    Integer,
    LargeBinary,
    MetaData,
    Table,
    bindparam,
    select,
    update,
)

from wirespeed.store import packed_intervals, schema

# How many result rows one UPDATE statement carries while converting.
_BATCH = 2000

# Version 1's intervals table, as it was (without its foreign keys and indexes, which
# only matter when writing): one row per interval of a result row.
_v1 = MetaData()
_v1_intervals = Table(
    "intervals",
    _v1,
    Column("id", BigInteger, primary_key=True),
    Column("result_id", BigInteger, nullable=False),
    Column("trial_id", BigInteger, nullable=False),
    Column("position", Integer, nullable=False),
    Column("start", Double, nullable=False),
    Column("end", Double, nullable=False),
    Column("bytes", BigInteger, nullable=False),
    Column("bps", Double, nullable=False),
    Column("retransmits", BigInteger),
    Column("jitter_ms", Double),
    Column("lost", BigInteger),
    Column("packets", BigInteger),
)


def _v1_to_v2(conn: Connection) -> None:
    """Each result row's intervals packed into its new `intervals` column; the intervals
    table dropped."""
    blob_type = LargeBinary().compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE results ADD COLUMN intervals {blob_type}")
    i = _v1_intervals.c
    values = (i.start, i.end, i.bytes, i.bps, i.retransmits, i.jitter_ms, i.lost, i.packets)
    # Streamed: a shared lab's store may hold millions of intervals.
    rows = conn.execute(
        select(i.result_id, *values)
        .order_by(i.result_id, i.position)
        .execution_options(yield_per=10_000)
    )
    results = schema.results
    store = update(results).where(results.c.id == bindparam("row_id"))
    store = store.values(intervals=bindparam("packed"))
    batch: list[dict[str, object]] = []
    for result_id, of_result in itertools.groupby(rows, key=operator.itemgetter(0)):
        batch.append(
            {"row_id": result_id, "packed": packed_intervals.pack_rows([r[1:] for r in of_result])}
        )
        if len(batch) == _BATCH:
            conn.execute(store, batch)
            batch = []
    if batch:
        conn.execute(store, batch)
    _v1_intervals.drop(conn)


def _v2_to_v3(conn: Connection) -> None:
    """runs.owner added; the runs stored before have none (NULL: an owner unknown, which
    `run --resume` treats as gone, as before)."""
    conn.exec_driver_sql("ALTER TABLE runs ADD COLUMN owner TEXT")


def _v3_to_v4(conn: Connection) -> None:
    """trials.bench and the measurements table added. The trials stored before are all
    traffic tests: no bench options, no benchmark measurements (their goodput, loss ...
    are derived from their results rows, as they always were)."""
    json_type = JSON().compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE trials ADD COLUMN bench {json_type}")
    schema.measurements.create(conn, checkfirst=True)


def _v4_to_v5(conn: Connection) -> None:
    """runs.expectations added; the runs stored before have none (NULL: their reports
    read the expectations from their stored plan, as before)."""
    json_type = JSON().compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE runs ADD COLUMN expectations {json_type}")


def _v5_to_v6(conn: Connection) -> None:
    """runs.origin added, with its index; the runs stored before were measured where
    they are (NULL: not imported from a bundle)."""
    conn.exec_driver_sql("ALTER TABLE runs ADD COLUMN origin TEXT")
    conn.exec_driver_sql("CREATE UNIQUE INDEX ix_runs_origin ON runs (origin)")


def _v6_to_v7(conn: Connection) -> None:
    """runs.settings added; the runs stored before have none (NULL: `run --resume` reads
    their stored command line, as before)."""
    json_type = JSON().compile(dialect=conn.dialect)
    conn.exec_driver_sql(f"ALTER TABLE runs ADD COLUMN settings {json_type}")


# Each step takes a store from its version to the next.
STEPS: dict[int, Callable[[Connection], None]] = {
    1: _v1_to_v2,
    2: _v2_to_v3,
    3: _v3_to_v4,
    4: _v4_to_v5,
    5: _v5_to_v6,
    6: _v6_to_v7,
}


def migrate(conn: Connection, found: int) -> None:
    """The store at version `found` brought to schema.SCHEMA_VERSION, version by version."""
    for version in range(found, schema.SCHEMA_VERSION):
        STEPS[version](conn)
    conn.execute(
        update(schema.meta)
        .where(schema.meta.c.key == "schema_version")
        .values(value=str(schema.SCHEMA_VERSION))
    )
