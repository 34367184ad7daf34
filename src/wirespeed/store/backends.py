"""A store's engine for its backend: a SQLite file with the pragmas and transactions the
store needs, PostgreSQL through the driver that is installed with every use of a
connection bounded in time (postgres.py), any other SQLAlchemy URL as it is.
"""

from __future__ import annotations

import importlib.util
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import URL, Connection, Engine, create_engine, event

from wirespeed.store import sqlite_file
from wirespeed.store.postgres import Timeouts, Watchdog, postgres_engine

# How long a SQLite writer waits for another one to commit. A trial's commit takes
# milliseconds, so this only runs out when something holds the file locked for good.
SQLITE_BUSY_TIMEOUT_S = 30.0

# PostgreSQL drivers SQLAlchemy knows, in the order a bare postgresql:// URL tries them.
POSTGRES_DRIVERS = ("psycopg", "psycopg2")
# PostgreSQL support is an extra of the package (pyproject.toml): psycopg is not installed
# with wirespeed itself.
POSTGRES_EXTRA_HINT = (
    "install wirespeed with PostgreSQL support: uv tool install 'wirespeed[postgres]' "
    "(or pipx install / pip install 'wirespeed[postgres]')"
)


class NoDriverError(Exception):
    pass


@dataclass(frozen=True)
class Backend:
    engine: Engine
    # PostgreSQL's: counts the connections it had to cut (postgres.py); None elsewhere.
    watchdog: Watchdog | None
    # A SQLite file opened for reading only (mode=ro or immutable).
    read_only: bool


def open_backend(given: URL, access: sqlite_file.Access, timeouts: Timeouts) -> Backend:
    """The engine for the URL `given`; a SQLite file's for `access` (sqlite_file.Access)."""
    engine_url = _engine_url(given)
    if engine_url.get_backend_name() == "sqlite":
        read_only = False
        if access != "write" and given.database:
            engine_url = sqlite_file.engine_url(Path(given.database), access)
            read_only = True
        engine = create_engine(engine_url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S})
        _prepare_sqlite(engine, access)
        return Backend(engine, None, read_only)
    if engine_url.get_backend_name() == "postgresql":
        # Every connection's use bounded in time; a connection lost between two
        # trials (a restarted server) is replaced when it is next taken (postgres.py).
        engine, watchdog = postgres_engine(engine_url, timeouts)
        return Backend(engine, watchdog, False)
    return Backend(create_engine(engine_url), None, False)


def _engine_url(url: URL) -> URL:
    """A bare postgresql:// URL with the driver that is installed: SQLAlchemy would pick
    psycopg2 even when only psycopg (3) is there."""
    if url.drivername in ("postgresql", "postgres"):
        for driver in POSTGRES_DRIVERS:
            if importlib.util.find_spec(driver) is not None:
                return url.set(drivername=f"postgresql+{driver}")
        raise NoDriverError("no PostgreSQL driver is installed (psycopg or psycopg2)")
    return url


def _prepare_sqlite(engine: Engine, access: sqlite_file.Access) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # The transactions are begun below, not by the sqlite3 module: it would begin
        # them lazily and in DEFERRED mode only.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # SQLite ignores foreign keys unless asked, per connection.
        cursor.execute("PRAGMA foreign_keys=ON")
        if access != "write":
            # A reader changes nothing: the file is in WAL mode since a writer made it.
            cursor.close()
            return
        # WAL: a process killed mid-write leaves the last committed state intact, and a
        # reader (`wirespeed report` during a run) never blocks the writer.
        _enter_wal(cursor)
        # One commit per trial, seconds apart: the fsync of FULL costs nothing here and
        # makes a commit survive a power cut too, not only a killed process.
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        # A writer takes the write lock when its transaction begins. A DEFERRED one that
        # reads first (the run exists? the next position?) and then writes fails at once
        # with "database is locked" when another run committed in between: the busy
        # timeout does not apply to that upgrade. IMMEDIATE waits its turn instead.
        # Readers stay DEFERRED, so they never wait for a writer. (A writer's connection
        # has the option wirespeed_write: Store.connect(write=True).)
        immediate = conn.get_execution_options().get("wirespeed_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


def _enter_wal(cursor: sqlite3.Cursor) -> None:
    """Put the file in WAL mode, once. Changing the journal mode takes the file's
    exclusive lock, and SQLite fails it at once with "database is locked" when another
    connection holds a lock, without calling the busy handler: two runs opening a new
    store at the same moment would see one of them refused. So the change is retried
    for as long as a writer waits for another's commit."""
    give_up_at = time.monotonic() + SQLITE_BUSY_TIMEOUT_S
    while True:
        try:
            if cursor.execute("PRAGMA journal_mode").fetchone()[0] == "wal":
                return
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as error:
            if "locked" not in str(error) or time.monotonic() >= give_up_at:
                raise
            time.sleep(0.01)
