"""The Store: runs and their trials in a database, one transaction per trial.

SQLite by default (one file per user), PostgreSQL for a shared lab (any SQLAlchemy URL is
passed on). A trial is committed before add_outcome returns, so a run killed at any
moment keeps every trial it finished, and several runs may write to one store at once.
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import operator
import re
import shlex
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal, TypeVar

from sqlalchemy import (
    JSON,
    URL,
    Connection,
    Engine,
    Text,
    cast,
    create_engine,
    delete,
    event,
    func,
    insert,
    literal,
    make_url,
    select,
    update,
)
from sqlalchemy.engine import RowMapping
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError, SQLAlchemyError

from wirespeed.errors import UsageError, WirespeedError
from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    PathSpec,
    Proto,
    RawOutput,
    Result,
    Side,
    StreamResult,
    TestCase,
    TestSpec,
    Tool,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
    UdpStats,
)
from wirespeed.process_owner import process_owner
from wirespeed.store import codec, location, migrations, packed_intervals, schema, sqlite_file
from wirespeed.store.direct import field_setter
from wirespeed.store.gc_pause import collector_paused
from wirespeed.store.postgres import (
    MIGRATION_TIMEOUT_S,
    Timeouts,
    Watchdog,
    is_outage,
    postgres_engine,
)
from wirespeed.store.records import PackedDirection, RunInfo, RunRecord, RunStatus, RunSummary

T = TypeVar("T")

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

# Serializes creating the tables of a new PostgreSQL store: two runs started at once on an
# empty database would otherwise both try to create them. Any constant: "wirespeed".
_SCHEMA_LOCK = 0x77697265737065


class StoreError(WirespeedError):
    """The store failed after it was opened: the server went away, the file is locked."""


class StoreUnavailableError(StoreError):
    """A commit failed for an outage (PostgreSQL gone or not answering) and kept failing
    for as long as the store retries it (Timeouts.retry_s)."""


def display_url(url: str | URL) -> str:
    """The URL as it can be shown or stored: its password (if any) replaced by ***."""
    if isinstance(url, URL):
        return url.render_as_string(hide_password=True)
    # As the user wrote it, not as SQLAlchemy reads it: it takes a password's unescaped
    # @ for the host's start, and would show the password's rest as the host.
    return mask_passwords(url)


_PASSWORD_IN_URL = re.compile(
    # user:password@host, up to the authority's last @: a password may hold an unescaped @.
    r"(?P<head>[A-Za-z][A-Za-z0-9+.-]*://[^/@:\s]*:)[^/\s]*(?=@[^@/\s]*(?:[/?#\s]|$))"
)


def mask_passwords(text: str) -> str:
    """Any scheme://user:password@ in text with the password replaced by ***."""
    return _PASSWORD_IN_URL.sub(r"\g<head>***", text)


def _engine_url(url: URL) -> URL:
    """A bare postgresql:// URL with the driver that is installed: SQLAlchemy would pick
    psycopg2 even when only psycopg (3) is there."""
    if url.drivername in ("postgresql", "postgres"):
        for driver in POSTGRES_DRIVERS:
            if importlib.util.find_spec(driver) is not None:
                return url.set(drivername=f"postgresql+{driver}")
        raise _NoDriverError("no PostgreSQL driver is installed (psycopg or psycopg2)")
    return url


class _NoDriverError(Exception):
    pass


class _NeedsWriter(Exception):
    """A store a reader cannot read as it is: no tables yet, or an older version."""


def _table_names(conn: Connection) -> set[str]:
    return set(conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='table'").scalars())


def _reason(error: BaseException) -> str:
    """What went wrong, in the driver's words, first line only and without passwords."""
    original = getattr(error, "orig", None) or error
    message = str(original).strip() or original.__class__.__name__
    lowered = message.lower()
    if "malformed" in lowered:  # SQLite's words for a damaged file
        return f"the file is damaged ({message})"
    if "connection refused" in lowered:
        return "connection refused; is the server running?"
    if "timeout expired" in lowered or "timed out" in lowered:
        return "no answer from the server (timed out)"
    if "could not translate host name" in lowered or "name or service not known" in lowered:
        return "unknown host"
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        return "authentication failed; check the user name and password"
    first = next((line.strip() for line in message.splitlines() if line.strip()), "")
    # psycopg prefixes libpq's message with where it tried to connect; the URL says that.
    first = re.sub(r'^connection failed: connection to server at "[^"]*"[^:]*failed: ', "", first)
    first = re.sub(r"^(FATAL|ERROR):\s+", "", first)
    return mask_passwords(first) or original.__class__.__name__


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
        cursor.execute("PRAGMA journal_mode=WAL")
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
        # Readers stay DEFERRED, so they never wait for a writer.
        immediate = conn.get_execution_options().get("wirespeed_write", False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


class Store:
    def __init__(
        self,
        url: str | URL,
        timeouts: Timeouts | None = None,
        *,
        access: sqlite_file.Access = "write",
    ) -> None:
        """Open the store at `url`; a SQLite file (sqlite:///PATH) for `access` (see
        sqlite_file.Access): a writer checks the file is whole and makes or migrates the
        tables, a reader only checks the schema version. `timeouts` bound each use of a
        PostgreSQL connection (store/postgres.py)."""
        given = make_url(url)
        # Never the password: it goes into messages.
        self.url = display_url(url if isinstance(url, str) else given)
        self.timeouts = Timeouts.from_environment() if timeouts is None else timeouts
        self._watchdog: Watchdog | None = None
        engine_url = _engine_url(given)
        self.read_only = False
        if engine_url.get_backend_name() == "sqlite":
            if access != "write" and given.database:
                engine_url = sqlite_file.engine_url(Path(given.database), access)
                self.read_only = True
            self._engine = create_engine(
                engine_url, connect_args={"timeout": SQLITE_BUSY_TIMEOUT_S}
            )
            _prepare_sqlite(self._engine, access)
        elif engine_url.get_backend_name() == "postgresql":
            # Every connection's use bounded in time; a connection lost between two
            # trials (a restarted server) is replaced when it is next taken (postgres.py).
            self._engine, self._watchdog = postgres_engine(engine_url, self.timeouts)
        else:
            self._engine = create_engine(engine_url)
        try:
            if self.read_only:
                self._check_schema_version()
            else:
                if engine_url.get_backend_name() == "sqlite" and given.database:
                    self._refuse_if_damaged(given.database)
                self._create_schema()
        except BaseException:
            self._engine.dispose()
            raise

    @property
    def where(self) -> str:
        """The store as a person names it: a SQLite file's path, else its URL with the
        password masked (what --db and WIRESPEED_DB take)."""
        url = make_url(self.url)
        if url.get_backend_name() == "sqlite" and url.database:
            return url.database
        return self.url

    @classmethod
    def open(cls, db: str | Path | None, *, read_only: bool = False) -> Store:
        """None: the per-user default file; a path: SQLite there; a URL: as it is.

        read_only: for commands that only read (runs, report, compare). A SQLite file
        that exists is opened read-only (on a read-only mount too), and is not checked
        for damage: SQLite finds damage in every page a reader reads. A writer's SQLite
        file must be writable and whole, or it is refused before anything is measured.
        Under sudo the default file is the invoking user's, and stays theirs.
        """
        owner = None
        if db is None:
            owner = location.invoking_user()
            path = location.data_dir(owner) / location.DEFAULT_DB_NAME
        elif isinstance(db, str) and "://" in db:
            shown = display_url(db)
            try:
                return cls(db)
            except (ArgumentError, ValueError) as error:
                raise UsageError(
                    f"cannot open the store {shown}: not a database URL ({_reason(error)})",
                    hint="e.g. postgresql://USER:PASSWORD@HOST:5432/DATABASE or --db FILE",
                ) from None
            except _NoDriverError as error:
                raise UsageError(
                    f"cannot open the store {shown}: {error}", hint=POSTGRES_EXTRA_HINT
                ) from None
            except ImportError as error:
                driver = error.name or "?"
                raise UsageError(
                    f"cannot open the store {shown}: its driver {driver} is not installed",
                    hint=POSTGRES_EXTRA_HINT
                    if driver.startswith("psycopg")
                    else f"install the Python package that provides {driver}",
                ) from None
            except SQLAlchemyError as error:
                raise UsageError(
                    f"cannot open the store {shown}: {_reason(error)}",
                    hint="check the URL, the server and the credentials",
                ) from None
        else:
            path = Path(db).expanduser()
        if read_only and path.is_file():
            reader = cls._open_sqlite_reader(path)
            if reader is not None:
                return reader
        problem = sqlite_file.why_not_writable(path)
        if problem is not None:
            raise UsageError(
                f"cannot write to the store at {path}: {problem}",
                hint="`wirespeed runs` and `wirespeed report` can read it as it is; "
                "give a writable file with --db FILE to store new runs",
            )
        try:
            if owner is not None:
                location.make_owned_file(path, owner)
            else:
                path.parent.mkdir(parents=True, exist_ok=True)
            return cls(URL.create("sqlite", database=str(path.resolve())))
        except (OSError, SQLAlchemyError) as error:
            reason = error.strerror if isinstance(error, OSError) else _reason(error)
            raise UsageError(
                f"cannot open the store at {path}: {reason}",
                hint="give a writable file with --db FILE",
            ) from None

    @classmethod
    def _open_sqlite_reader(cls, path: Path) -> Store | None:
        """The SQLite file at `path` opened read-only; None when it needs a writer
        first: a file with no tables yet (empty), or of an older schema version, which a
        writer migrates, and which is refused here if it cannot be written."""
        url = URL.create("sqlite", database=str(path.resolve()))
        try:
            try:
                return cls(url, access="read")
            except OperationalError as error:
                # mode=ro needs the -shm file, which a read-only mount, or a directory
                # this user may not write, cannot hold: SQLite says "unable to open
                # database file" or "attempt to write a readonly database".
                cannot_share = any(
                    words in str(error) for words in ("unable to open", "readonly database")
                )
                if not cannot_share or not sqlite_file.may_open_immutable(path.resolve()):
                    raise
                return cls(url, access="immutable")
        except _NeedsWriter:
            problem = sqlite_file.why_not_writable(path)
            if problem is None:
                return None
            raise UsageError(
                f"cannot read the store at {path}: it holds no wirespeed tables of this "
                f"version, and {problem} (a writer makes or migrates them)",
                hint="open it once with a wirespeed that may write it",
            ) from None
        except SQLAlchemyError as error:
            raise UsageError(
                f"cannot open the store at {path}: {_reason(error)}",
                hint=f"check the file: sqlite3 {shlex.quote(str(path))} 'PRAGMA quick_check'",
            ) from None

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        """One write transaction, committed on leaving; a database failure a StoreError."""
        cuts = self._cuts()
        try:
            with self._engine.connect() as conn:
                conn.execution_options(wirespeed_write=True)
                with conn.begin():
                    yield conn
        except DBAPIError as error:
            raise StoreError(
                f"the store {self.url} failed: {self._failure(error, cuts)}",
                hint="the trials committed before this are kept",
            ) from None

    @contextmanager
    def _reading(self) -> Iterator[Connection]:
        cuts = self._cuts()
        try:
            with self._engine.connect() as conn:
                yield conn
        except DBAPIError as error:
            raise StoreError(f"the store {self.url} failed: {self._failure(error, cuts)}") from None

    def _write(self, work: Callable[[Connection, bool], T]) -> T:
        """work(conn, retried) in one write transaction, committed before this returns.
        On PostgreSQL, an outage (server restarted, down, not answering) is retried with
        backoff for timeouts.retry_s; then StoreUnavailableError. A retried `work` must
        first look whether its earlier attempt committed: the server may have committed
        it and the answer been lost."""
        retrying = self._watchdog is not None
        give_up_at: float | None = None
        pause = 0.25
        while True:
            cuts = self._cuts()
            try:
                with self._engine.connect() as conn:
                    conn.execution_options(wirespeed_write=True)
                    with conn.begin():
                        return work(conn, give_up_at is not None)
            except DBAPIError as error:
                reason = self._failure(error, cuts)
                if not (retrying and is_outage(error)):
                    raise StoreError(
                        f"the store {self.url} failed: {reason}",
                        hint="the trials committed before this are kept",
                    ) from None
                now = time.monotonic()
                give_up_at = now + self.timeouts.retry_s if give_up_at is None else give_up_at
                if now >= give_up_at:
                    raise StoreUnavailableError(
                        f"the store {self.url} failed: {reason}; "
                        f"still failing after {self.timeouts.retry_s:g} s of retrying",
                        hint="the trials committed before this are kept",
                    ) from None
                time.sleep(min(pause, give_up_at - now))
                pause = min(pause * 2, 4.0)

    def _cuts(self) -> int:
        return 0 if self._watchdog is None else self._watchdog.cuts

    def _failure(self, error: DBAPIError, cuts_before: int) -> str:
        """What went wrong, as _reason says, or that the server did not answer in time
        when the watchdog had to cut a connection during the call."""
        if self._watchdog is not None and self._watchdog.cuts != cuts_before:
            return f"no answer from the server within {self.timeouts.call_s:g} s"
        return _reason(error)

    def _refuse_if_damaged(self, path: str) -> None:
        """Refuse to write into a SQLite file that quick_check finds damaged: writing
        works in the pages a trial touches, and the run would end with exit status 0 in
        a store whose other runs can no longer be read."""
        with self._engine.connect() as conn:
            problems = sqlite_file.quick_check_problems(conn.connection.driver_connection)
        if problems:
            raise UsageError(
                f"the store {self.url} is damaged; wirespeed does not write into it "
                f"(SQLite's quick_check: {'; '.join(problems)})",
                hint="`wirespeed runs` and `report` read what is left of it; "
                f"`sqlite3 {shlex.quote(path)} .recover | sqlite3 NEW.db` saves what can be "
                "saved; "
                "or give another file with --db",
            )

    def _check_schema_version(self) -> None:
        """A reader's check: the tables are there, of this version (a writer makes,
        migrates or refuses them; _create_schema)."""
        # Not _reading(): the caller tells a file mode=ro cannot open by its error.
        with self._engine.connect() as conn:
            if schema.meta.name not in _table_names(conn):
                raise _NeedsWriter
            found = conn.execute(
                select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")
            ).scalar_one_or_none()
        if found is None or int(found) in migrations.STEPS:
            raise _NeedsWriter
        if int(found) != schema.SCHEMA_VERSION:
            raise UsageError(
                f"the database {self.url} has schema version {found}, "
                f"this wirespeed reads version {schema.SCHEMA_VERSION}",
                hint="use the wirespeed version that wrote it, or another --db",
            )

    def _create_schema(self) -> None:
        """The tables if they are missing and the schema version, in one transaction, so
        that two runs opening a new store at once create it once, and two opening an
        older store migrate it once."""
        with self._engine.connect() as conn:
            conn.execution_options(wirespeed_write=True)
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    conn.execute(select(func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
                schema.metadata.create_all(conn)
                found = conn.execute(
                    select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")
                ).scalar_one_or_none()
                if found is None:
                    conn.execute(
                        insert(schema.meta).values(
                            key="schema_version", value=str(schema.SCHEMA_VERSION)
                        )
                    )
                elif int(found) in migrations.STEPS:
                    # An older store: brought up to date in this transaction, once; if it
                    # fails, the transaction leaves the store as it was.
                    self._allow_long_call(conn)
                    try:
                        migrations.migrate(conn, int(found))
                    except ValueError as error:
                        raise UsageError(
                            f"cannot migrate the store {self.url} from schema version "
                            f"{found} to {schema.SCHEMA_VERSION}: {error}",
                            hint="the store is unchanged; "
                            "the wirespeed version that wrote it still reads it",
                        ) from None
                elif int(found) != schema.SCHEMA_VERSION:
                    raise UsageError(
                        f"the database {self.url} has schema version {found}, "
                        f"this wirespeed reads version {schema.SCHEMA_VERSION}",
                        hint="use the wirespeed version that wrote it, or another --db",
                    )

    def _allow_long_call(self, conn: Connection) -> None:
        """This connection may stay out for a migration of a big store."""
        if self._watchdog is not None:
            self._watchdog.extend(conn.connection.dbapi_connection, MIGRATION_TIMEOUT_S)
            conn.exec_driver_sql("SET LOCAL statement_timeout = 0")

    # Writing

    def begin_run(self, info: RunInfo) -> int:
        """A new run, owned by this process (process_owner.py); its id. A password in
        argv (--db URL) is stored masked."""
        owner = process_owner()

        def begin(conn: Connection, retried: bool) -> int:
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
                )
            )
            run_id = row.inserted_primary_key
            assert run_id is not None
            return int(run_id[0])

        return self._write(begin)

    def add_outcome(
        self,
        run_id: int,
        outcome: TrialOutcome,
        *,
        replace_failed: bool = False,
        once: bool = False,
    ) -> int:
        """Store one trial with everything measured, in one transaction; its id.

        replace_failed: the trial is a failed one tried again (`run --resume
        --retry-failed`): the failed outcomes of its key are deleted in the same
        transaction, so that the run holds each trial once.

        once: the outcome may be stored already (one kept in the spool, whose commit may
        have gone through): then it is not stored again. An outcome is known by its key
        and its start and end times. A commit retried across an outage checks the same."""
        return self._write(
            lambda conn, retried: self._add_outcome(
                conn, run_id, outcome, replace_failed=replace_failed, once=once or retried
            )
        )

    def _add_outcome(
        self,
        conn: Connection,
        run_id: int,
        outcome: TrialOutcome,
        *,
        replace_failed: bool,
        once: bool,
    ) -> int:
        t = schema.trials
        self._require_run(conn, run_id)
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
        if outcome.raw:
            conn.execute(
                insert(schema.raw_outputs),
                [
                    {"trial_id": trial_id, "position": i, **codec.encode_raw(raw)}
                    for i, raw in enumerate(outcome.raw)
                ],
            )
        for table, rows in (
            (schema.monitors, [codec.encode_monitor(m) for m in outcome.monitors]),
            (schema.findings, [codec.encode_finding(f) for f in outcome.findings]),
        ):
            if rows:
                conn.execute(
                    insert(table),
                    [{"trial_id": trial_id, "position": i, **r} for i, r in enumerate(rows)],
                )
        return trial_id

    def finish_run(self, run_id: int, status: str, finished_at: float | None = None) -> None:
        final = RunStatus(status)
        when = time.time() if finished_at is None else finished_at

        def finish(conn: Connection, _retried: bool) -> None:
            self._require_run(conn, run_id)
            conn.execute(
                update(schema.runs)
                .where(schema.runs.c.id == run_id)
                .values(status=final.value, finished_at=when)
            )

        self._write(finish)

    # Reading

    def list_runs(self) -> list[RunSummary]:
        t = schema.trials
        with self._reading() as conn:
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
        self,
        run_id: int | None = None,
        *,
        intervals: bool | Literal["packed"] = True,
        outputs: bool = True,
        commands: bool = True,
    ) -> RunRecord:
        """A run with every outcome rebuilt; None: the latest run.

        outputs=False leaves the raw outputs empty: each tool's text and stderr
        (RawOutput.text, .stderr) and each sampler's stream (MonitorRecord.raw). They are
        most of a run's bytes (a sampler's stream is about 1.2 KB per second of trial),
        kept so that parsing can be redone; reports show what was parsed of them.
        commands=False leaves out the tools' runs altogether (TrialOutcome.raw is empty):
        only the JSON report lists them (their argv, exit status).

        intervals=False leaves every interval series (streams and sums) empty: they are
        most of the rows of a run, and only the JSON and HTML reports show them.
        intervals="packed" leaves them empty too, and gives them as the store keeps them
        in RunRecord.packed, for those reports: making an object of each of hundreds of
        thousands of intervals was a third of the time of writing them.
        """
        with self._reading() as conn:
            if run_id is None:
                run_id = conn.execute(select(func.max(schema.runs.c.id))).scalar_one_or_none()
                if run_id is None:
                    raise UsageError(
                        "no runs stored yet", hint="`wirespeed run PLAN` makes the first"
                    )
            run = self._require_run(conn, run_id)
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
        info = RunInfo(
            title=run["title"],
            started_at=run["started_at"],
            argv=tuple(run["argv"]),
            plan_path=run["plan_path"],
            plan_text=run["plan_text"],
            wirespeed_version=run["wirespeed_version"],
            provenance=run["provenance"],
        )
        return RunRecord(
            id=run_id,
            info=info,
            status=RunStatus(run["status"]),
            finished_at=run["finished_at"],
            outcomes=outcomes,
            packed=None if packed is None else tuple(packed),
        )

    @staticmethod
    def _require_run(conn: Connection, run_id: int) -> RowMapping:
        run = (
            conn.execute(select(schema.runs).where(schema.runs.c.id == run_id))
            .mappings()
            .one_or_none()
        )
        if run is None:
            raise UsageError(f"no run {run_id}; `wirespeed runs` lists them")
        return run


def _insert_trial(conn: Connection, run_id: int, position: int, outcome: TrialOutcome) -> int:
    trial, result = outcome.trial, outcome.result
    inserted = conn.execute(
        insert(schema.trials).values(
            run_id=run_id,
            position=position,
            key=trial.key,
            test_id=trial.test.id,
            test_name=trial.test.name,
            tool=trial.test.tool.value,
            protocol="" if trial.test.bench else trial.test.spec.protocol.value,
            spec=codec.encode_spec(trial.test.spec),
            bench=codec.encode_bench(trial.test.bench),
            path_name=trial.path.name,
            path=codec.encode_path(trial.path),
            variant=trial.variant,
            repetition=trial.repetition,
            status=outcome.status.value,
            reason=outcome.reason,
            started_at=outcome.started_at,
            finished_at=outcome.finished_at,
            has_result=result is not None,
            result_tool=None if result is None else result.tool.value,
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
    if result.measurements:
        conn.execute(
            insert(schema.measurements),
            [
                {"trial_id": trial_id, "position": i, **codec.encode_measurement(m)}
                for i, m in enumerate(result.measurements)
            ],
        )
    if result.warnings:
        conn.execute(
            insert(schema.warnings),
            [
                {"trial_id": trial_id, "position": i, "kind": w.kind.value, "message": w.message}
                for i, w in enumerate(result.warnings)
            ],
        )


def _group(rows: Iterable[Mapping[str, Any]], key: str) -> dict[int, list[Mapping[str, Any]]]:
    grouped: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row[key]].append(row)
    return grouped


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


class _Decoded:
    """Decodes each distinct JSON text once: a run's trials repeat a handful of specs and
    paths thousands of times, and the model objects are immutable, so they are shared."""

    def __init__(self) -> None:
        self._specs: dict[str, TestSpec] = {}
        self._paths: dict[str, PathSpec] = {}

    def spec(self, text: str) -> TestSpec:
        found = self._specs.get(text)
        if found is None:
            found = self._specs[text] = codec.decode_spec(json.loads(text))
        return found

    def path(self, text: str) -> PathSpec:
        found = self._paths.get(text)
        if found is None:
            found = self._paths[text] = codec.decode_path(json.loads(text))
        return found


# The trial columns _load_outcomes reads, spec and path as their JSON text (see _Decoded).
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

# The result columns _rebuild_directions reads, by position; with the intervals, their
# packed series last.
_RESULT_COLUMNS = tuple(
    schema.results.c[name]
    for name in (
        "id",
        "trial_id",
        "parent_id",
        "flow",
        "stream_id",
        "sent_bytes",
        "sent_seconds",
        "sent_bps",
        "received_bytes",
        "received_seconds",
        "received_bps",
        "retransmits",
        "has_udp",
        "jitter_ms",
        "lost",
        "packets",
        "out_of_order",
    )
)


def _results_of_run(
    conn: Connection, run_id: int, *, intervals: bool | Literal["packed"]
) -> dict[int, list[Sequence[Any]]]:
    """Each trial's result rows, in order, as the driver's tuples: numbers, a flow name,
    has_udp (a bool, or SQLite's 0/1) and the packed intervals (bytes, or psycopg2's
    memoryview), none of which SQLAlchemy would convert, and building a Row around each
    of them cost as much as reading it."""
    r, t = schema.results, schema.trials
    columns = _RESULT_COLUMNS + ((r.c.intervals,) if intervals else ())
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
    decoded = _Decoded()
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
                packed.append(_packed_directions(rows))
            result = _new(Result)
            _set_result(
                result,
                {
                    "tool": _TOOLS.get(result_tool) or codec.decode_tool(result_tool),
                    "protocol": (
                        None
                        if result_protocol is None
                        else _PROTOCOLS.get(result_protocol) or Proto(result_protocol)
                    ),
                    "directions": _rebuild_directions(rows, unpack),
                    "warnings": _each(warnings, trial_id, codec.decode_warning),
                    "tool_version": tool_version,
                    "measurements": _each(measured, trial_id, codec.decode_measurement_row),
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
                bench=None if bench is None else codec.decode_bench(json.loads(bench)),
            )
        trial = _new(Trial)
        _set_trial(
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
            "status": _STATUSES.get(status) or TrialStatus(status),
            "started_at": started_at,
            "finished_at": finished_at,
            "result": result,
            "reason": reason,
            "raw": _each(raws, trial_id, _raw_output),
            "monitors": _each(monitors, trial_id, codec.decode_monitor),
            "findings": _each(findings, trial_id, codec.decode_finding),
        }
        if (fields["status"] is TrialStatus.OK and result is None) or (
            fields["status"] is TrialStatus.FAILED and not reason
        ):
            outcomes.append(TrialOutcome(**fields))  # its own checks: let it raise its error
            continue
        outcome = _new(TrialOutcome)
        _set_outcome(outcome, fields)
        outcomes.append(outcome)
    return tuple(outcomes)


# Enumerations by stored value: a dict lookup, where calling the class costs ten times
# more, 10,000 times a run. Unknown values go through the class, which says what is wrong.
_FLOWS = {flow.value: flow for flow in Flow}
_TOOLS = {tool.value: tool for tool in Tool}
_PROTOCOLS = {protocol.value: protocol for protocol in Proto}
_STATUSES = {status.value: status for status in TrialStatus}

# The loader makes these as direct.py says: 65,000 measurements, 33,000 directions and
# streams, and 10,000 of each of the rest in a run of 10,000 trials.
_set_measurement = field_setter(Transfer, ("bytes", "seconds", "bits_per_second"))
_SHARED = ("flow", "sent", "received", "retransmits", "udp")
_set_stream = field_setter(StreamResult, ("id", *_SHARED, "intervals"))
_set_direction = field_setter(DirectionResult, (*_SHARED, "streams", "intervals"))
_set_result = field_setter(
    Result, ("tool", "protocol", "directions", "warnings", "tool_version", "measurements")
)
_set_trial = field_setter(Trial, ("test", "path", "variant", "repetition"))
_set_outcome = field_setter(
    TrialOutcome,
    (
        "trial",
        "status",
        "started_at",
        "finished_at",
        "result",
        "reason",
        "raw",
        "monitors",
        "findings",
    ),
)
_new = object.__new__


def _raw_output(row: Mapping[str, Any]) -> RawOutput:
    """codec.decode_raw, made as direct.py says: 20,000 of them in a run of 10,000."""
    side = _SIDES.get(row["side"])
    if side is None:
        return codec.decode_raw(row)  # which says what is wrong
    raw = _new(RawOutput)
    _set_raw(
        raw,
        {
            "host": row["host"],
            "side": side,
            "argv": tuple(row["argv"]),
            "format": row["format"],
            "text": row["text"],
            "stderr": row["stderr"],
            "exit_status": row["exit_status"],
        },
    )
    return raw


_SIDES = {side.value: side for side in Side}
_set_raw = field_setter(
    RawOutput, ("host", "side", "argv", "format", "text", "stderr", "exit_status")
)

# What outputs=False leaves out of raw_outputs.
_OUTPUT_TEXTS = ("text", "stderr")


def _each(
    grouped: dict[int, list[Mapping[str, Any]]], trial_id: int, decode: Callable[[Any], T]
) -> tuple[T, ...]:
    """A trial's rows of a per-trial table, decoded; most trials have none of most."""
    rows = grouped.get(trial_id)
    return () if rows is None else tuple(map(decode, rows))


def _measurement(size: int | None, seconds: float, bps: float) -> Transfer | None:
    if size is None:
        return None
    if size < 0 or seconds < 0:  # Transfer's own checks: let it raise its error
        return Transfer(bytes=size, seconds=seconds, bits_per_second=bps)
    measurement = _new(Transfer)
    _set_measurement(measurement, {"bytes": size, "seconds": seconds, "bits_per_second": bps})
    return measurement


def _packed_directions(rows: list[Sequence[Any]]) -> tuple[PackedDirection, ...]:
    """The packed series of a result's rows (in _RESULT_COLUMNS order, the series last),
    per direction as RunRecord.packed has them."""
    sums: list[bytes | None] = []
    streams: dict[int, list[bytes | None]] = {}
    for row in rows:
        blob = None if row[17] is None else bytes(row[17])  # psycopg2: a memoryview
        if row[2] is None:  # parent_id: a direction's row, before its streams'
            sums.append(blob)
            streams[row[0]] = []
        else:
            streams[row[2]].append(blob)
    return tuple(
        (total, tuple(of_direction))
        for total, of_direction in zip(sums, streams.values(), strict=True)
    )


def _rebuild_directions(
    rows: list[Sequence[Any]], unpack: packed_intervals.Unpacker | None
) -> tuple[DirectionResult, ...]:
    """A result's directions from its rows in _RESULT_COLUMNS order (by position: each
    direction before its streams); unpack None: without their interval series."""
    directions: list[tuple[int, dict[str, Any], tuple[Interval, ...]]] = []
    streams_of: dict[int, list[StreamResult]] = defaultdict(list)
    for row in rows:
        (
            row_id,
            _trial_id,
            parent_id,
            flow,
            stream_id,
            sent_bytes,
            sent_seconds,
            sent_bps,
            received_bytes,
            received_seconds,
            received_bps,
            retransmits,
            has_udp,
            jitter_ms,
            lost,
            packets,
            out_of_order,
        ) = row[:17]
        shared = {
            "flow": _FLOWS.get(flow) or codec.decode_flow(flow),
            "sent": _measurement(sent_bytes, sent_seconds, sent_bps),
            "received": _measurement(received_bytes, received_seconds, received_bps),
            "retransmits": retransmits,
            "udp": UdpStats(jitter_ms, lost, packets, out_of_order) if has_udp else None,
        }
        intervals = () if unpack is None else unpack(row[17])
        if parent_id is None:
            directions.append((row_id, shared, intervals))
        else:
            stream = _new(StreamResult)
            _set_stream(stream, {"id": stream_id, **shared, "intervals": intervals})
            streams_of[parent_id].append(stream)
    rebuilt = []
    for row_id, shared, intervals in directions:
        direction = _new(DirectionResult)
        streams = tuple(streams_of.get(row_id, ()))
        _set_direction(direction, {**shared, "streams": streams, "intervals": intervals})
        rebuilt.append(direction)
    return tuple(rebuilt)
