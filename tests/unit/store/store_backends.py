"""The backends the store's tests run on: SQLite in a temporary file, and PostgreSQL in a
database of its own, created for one test and dropped after it.

PostgreSQL needs a server: WIRESPEED_TEST_POSTGRES_URL names a database on it that the
tests connect to in order to create and drop theirs (so its role needs CREATEDB);
`scripts/postgres-for-tests.sh` starts one and prints that URL. Without the variable the
PostgreSQL cases are skipped; with it, a server that cannot be reached fails them, since
the run asked for PostgreSQL.
"""

from __future__ import annotations

import itertools
import os
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import URL, Engine, create_engine, make_url
from sqlalchemy.exc import DBAPIError, SQLAlchemyError

from wirespeed.store.redaction import display_url

POSTGRES_ENV = "WIRESPEED_TEST_POSTGRES_URL"
BACKENDS = ("sqlite", "postgresql")
DATABASE_PREFIX = "wirespeed_t_"

_serial = itertools.count(1)


def engine_url(db: str) -> URL:
    """A store's --db value as an engine URL for direct access: a path is a SQLite file,
    a bare postgresql:// gets psycopg, the driver the tests use."""
    if "://" not in db:
        return URL.create("sqlite", database=db)
    url = make_url(db)
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    return url


def engine_for(db: str) -> Engine:
    return create_engine(engine_url(db))


@contextmanager
def fresh_store(backend: str, tmp_path: Path) -> Iterator[str]:
    """A --db value for an empty store on `backend`, removed after the test."""
    if backend == "sqlite":
        yield str(tmp_path / "runs.db")
        return
    base = os.environ.get(POSTGRES_ENV)
    if not base:
        pytest.skip(f"no PostgreSQL: set {POSTGRES_ENV} (scripts/postgres-for-tests.sh)")
    name = f"{DATABASE_PREFIX}{os.getpid()}_{next(_serial)}_{secrets.token_hex(3)}"
    admin = create_engine(engine_url(base), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    except (SQLAlchemyError, ImportError) as error:
        admin.dispose()
        reason = str(getattr(error, "orig", error)).strip().splitlines()[0]
        pytest.fail(f"{POSTGRES_ENV}={display_url(base)}: cannot create a database: {reason}")
    try:
        yield make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        _drop(admin, name)
        admin.dispose()


def _drop(admin: Engine, name: str) -> None:
    """FORCE: a store a failed test left open must not keep its database alive. It may
    not end another role's backend: a server's autovacuum worker in the database (the
    test server runs without one) is waited out, a second at most."""
    for attempt in range(10):
        try:
            with admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            return
        except DBAPIError as error:
            if attempt == 9 or "pg_signal_backend" not in str(error.orig):
                raise
            time.sleep(0.1)
