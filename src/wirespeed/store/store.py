"""The Store: runs and their trials in a database, one transaction per trial.

SQLite by default (one file per user), PostgreSQL for a shared lab (any SQLAlchemy URL is
passed on). A trial is committed before add_outcome returns, so a run killed at any
moment keeps every trial it finished, and several runs may write to one store at once.

This module opens a store and holds its transactions; beside it, backends.py makes the
engine, schema_setup.py the tables, writing.py and loading.py the runs' rows. Modules
that keep data of their own in the store (store/resume.py, the tune journal) use
reading(), write() and connect(), never the engine.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, TypeVar

from sqlalchemy import URL, Connection, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError, OperationalError, SQLAlchemyError

from wirespeed.errors import UsageError
from wirespeed.model import TrialOutcome
from wirespeed.process_owner import process_owner
from wirespeed.store import loading, location, sqlite_file, writing
from wirespeed.store.backends import POSTGRES_EXTRA_HINT, NoDriverError, open_backend
from wirespeed.store.errors import StoreError, StoreUnavailableError, reason
from wirespeed.store.postgres import Timeouts, is_outage
from wirespeed.store.records import RunInfo, RunRecord, RunStatus, RunSummary
from wirespeed.store.redaction import display_url
from wirespeed.store.schema_setup import (
    NeedsWriter,
    check_schema_version,
    create_schema,
    refuse_if_damaged,
)

T = TypeVar("T")


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
        backend = open_backend(given, access, self.timeouts)
        self._engine = backend.engine
        self._watchdog = backend.watchdog
        self.read_only = backend.read_only
        try:
            if self.read_only:
                check_schema_version(self._engine, self.url)
            else:
                if self._engine.url.get_backend_name() == "sqlite" and given.database:
                    refuse_if_damaged(self._engine, self.url, given.database)
                create_schema(self._engine, self.url, self._watchdog)
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
    def open(
        cls, db: str | Path | None, *, read_only: bool = False, existing: bool = False
    ) -> Store:
        """None: the per-user default file; a path: SQLite there; a URL: as it is.

        read_only: for commands that only read (runs, report, compare). A SQLite file
        that exists is opened read-only (on a read-only mount too), and is not checked
        for damage: SQLite finds damage in every page a reader reads. A writer's SQLite
        file must be writable and whole, or it is refused before anything is measured.
        Under sudo the default file is the invoking user's, and stays theirs.

        existing: for commands that write only to what a store holds already (`tune
        restore` marks journal rows): a store that does not exist is not made, as for a
        reader; a SQLite file that does is opened for writing.
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
                    f"cannot open the store {shown}: not a database URL ({reason(error)})",
                    hint="e.g. postgresql://USER:PASSWORD@HOST:5432/DATABASE or --db FILE",
                ) from None
            except NoDriverError as error:
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
                    f"cannot open the store {shown}: {reason(error)}",
                    hint="check the URL, the server and the credentials",
                ) from None
        else:
            path = Path(db).expanduser()
        if read_only and path.is_file():
            reader = cls._open_sqlite_reader(path)
            if reader is not None:
                return reader
        elif (read_only or existing) and not path.exists():
            if db is not None:
                # A reader never makes a store: a mistyped --db would read as an empty one.
                raise UsageError(
                    f"no store at {path}: the file does not exist",
                    hint="check the name; `wirespeed runs` names the store in use",
                )
            return cls._empty_default(path)
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
            why = error.strerror if isinstance(error, OSError) else reason(error)
            raise UsageError(
                f"cannot open the store at {path}: {why}",
                hint="give a writable file with --db FILE",
            ) from None

    @classmethod
    def _empty_default(cls, path: Path) -> Store:
        """The default store before anything was stored in it: an empty store in memory,
        named by its path, so that a reading command says nothing is stored there yet
        without making the file."""
        store = cls(URL.create("sqlite"))
        store.url = str(URL.create("sqlite", database=str(path)))
        store.read_only = True
        return store

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
        except NeedsWriter:
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
                f"cannot open the store at {path}: {reason(error)}",
                hint=f"check the file: sqlite3 {shlex.quote(str(path))} 'PRAGMA quick_check'",
            ) from None

    def close(self) -> None:
        self._engine.dispose()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    # Transactions: for the run methods below, and for the modules that keep data of
    # their own in the store (store/resume.py, the tune journal).

    def connect(self, *, write: bool = False) -> Connection:
        """A connection to the store, for a module that keeps a table of its own in it
        (the tune journal): the caller begins and commits, and gets the database's
        errors as SQLAlchemy raises them; nothing is retried. write=True: its
        transactions begin as a writer's (on SQLite IMMEDIATE: it waits its turn for
        the write lock, backends.py says why); readers' do not wait for writers."""
        conn = self._engine.connect()
        if write:
            conn.execution_options(wirespeed_write=True)
        return conn

    @contextmanager
    def reading(self) -> Iterator[Connection]:
        """A connection to read with; a database failure a StoreError. Not retried: a
        reading command fails within the call timeout (postgres.py) and says why."""
        cuts = self._cuts()
        try:
            with self._engine.connect() as conn:
                yield conn
        except DBAPIError as error:
            raise StoreError(f"the store {self.url} failed: {self._failure(error, cuts)}") from None

    def write(self, work: Callable[[Connection, bool], T]) -> T:
        """work(conn, retried) in one write transaction, committed before this returns.
        On PostgreSQL, an outage (server restarted, down, not answering) is retried with
        backoff for timeouts.retry_s; then StoreUnavailableError. A retried `work` must
        first look whether its earlier attempt committed: the server may have committed
        it and the answer been lost. Any other database failure is a StoreError."""
        retrying = self._watchdog is not None
        give_up_at: float | None = None
        pause = 0.25
        while True:
            cuts = self._cuts()
            try:
                with self.connect(write=True) as conn, conn.begin():
                    return work(conn, give_up_at is not None)
            except DBAPIError as error:
                why = self._failure(error, cuts)
                if not (retrying and is_outage(error)):
                    raise StoreError(
                        f"the store {self.url} failed: {why}",
                        hint="the trials committed before this are kept",
                    ) from None
                now = time.monotonic()
                give_up_at = now + self.timeouts.retry_s if give_up_at is None else give_up_at
                if now >= give_up_at:
                    raise StoreUnavailableError(
                        f"the store {self.url} failed: {why}; "
                        f"still failing after {self.timeouts.retry_s:g} s of retrying",
                        hint="the trials committed before this are kept",
                    ) from None
                time.sleep(min(pause, give_up_at - now))
                pause = min(pause * 2, 4.0)

    def _cuts(self) -> int:
        return 0 if self._watchdog is None else self._watchdog.cuts

    def _failure(self, error: DBAPIError, cuts_before: int) -> str:
        """What went wrong, as errors.reason says, or that the server did not answer in
        time when the watchdog had to cut a connection during the call."""
        if self._watchdog is not None and self._watchdog.cuts != cuts_before:
            return f"no answer from the server within {self.timeouts.call_s:g} s"
        return reason(error)

    # Writing (writing.py)

    def begin_run(self, info: RunInfo) -> int:
        """A new run, owned by this process (process_owner.py); its id. A password in
        argv (--db URL) is stored masked."""
        owner = process_owner()
        return self.write(
            lambda conn, retried: writing.insert_run(conn, info, owner, retried=retried)
        )

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
        return self.write(
            lambda conn, retried: writing.insert_outcome(
                conn, run_id, outcome, replace_failed=replace_failed, once=once or retried
            )
        )

    def finish_run(self, run_id: int, status: str, finished_at: float | None = None) -> None:
        final = RunStatus(status)
        when = time.time() if finished_at is None else finished_at
        self.write(lambda conn, _retried: writing.finish_run(conn, run_id, final, when))

    # Reading (loading.py)

    def list_runs(self) -> list[RunSummary]:
        with self.reading() as conn:
            return loading.list_runs(conn)

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
        with self.reading() as conn:
            return loading.load_run(
                conn, run_id, intervals=intervals, outputs=outputs, commands=commands
            )
