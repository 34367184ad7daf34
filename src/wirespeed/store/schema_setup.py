"""What opening a store does to its tables: a writer refuses a damaged SQLite file, makes
the tables that are missing and migrates an older schema; a reader only checks that the
tables are there, of this version.
"""

from __future__ import annotations

import shlex

from sqlalchemy import Connection, Engine, func, insert, select

from wirespeed.errors import UsageError
from wirespeed.store import columns, migrations, schema, sqlite_file
from wirespeed.store.postgres import MIGRATION_TIMEOUT_S, Watchdog

# Serializes creating the tables of a new PostgreSQL store: two runs started at once on an
# empty database would otherwise both try to create them. Any constant: "wirespeed".
_SCHEMA_LOCK = 0x77697265737065


class NeedsWriter(Exception):
    """A store a reader cannot read as it is: no tables yet, or an older version."""


def refuse_if_damaged(engine: Engine, shown_url: str, path: str) -> None:
    """Refuse to write into a SQLite file that quick_check finds damaged: writing
    works in the pages a trial touches, and the run would end with exit status 0 in
    a store whose other runs can no longer be read."""
    with engine.connect() as conn:
        problems = sqlite_file.quick_check_problems(conn.connection.driver_connection)
    if problems:
        raise UsageError(
            f"the store {shown_url} is damaged; wirespeed does not write into it "
            f"(SQLite's quick_check: {'; '.join(problems)})",
            hint="`wirespeed runs` and `report` read what is left of it; "
            f"`sqlite3 {shlex.quote(path)} .recover | sqlite3 NEW.db` saves what can be "
            "saved; "
            "or give another file with --db",
        )


def check_schema_version(engine: Engine, shown_url: str) -> None:
    """A reader's check: the tables are there, of this version (a writer makes,
    migrates or refuses them; create_schema)."""
    # Not Store.reading(): the caller tells a file mode=ro cannot open by its error.
    with engine.connect() as conn:
        if schema.meta.name not in _table_names(conn):
            raise NeedsWriter
        found = conn.execute(
            select(schema.meta.c.value).where(schema.meta.c.key == "schema_version")
        ).scalar_one_or_none()
    if found is None or int(found) in migrations.STEPS:
        raise NeedsWriter
    if int(found) != schema.SCHEMA_VERSION:
        raise UsageError(
            f"the database {shown_url} has schema version {found}, "
            f"this wirespeed reads version {schema.SCHEMA_VERSION}",
            hint="use the wirespeed version that wrote it, or another --db",
        )


def create_schema(engine: Engine, shown_url: str, watchdog: Watchdog | None) -> None:
    """The tables if they are missing and the schema version, in one transaction, so
    that two runs opening a new store at once create it once, and two opening an
    older store migrate it once."""
    with engine.connect() as conn:
        conn.execution_options(wirespeed_write=True)
        with conn.begin():
            if conn.dialect.name == "postgresql":
                conn.execute(select(func.pg_advisory_xact_lock(_SCHEMA_LOCK)))
            columns.metadata.create_all(conn)
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
                _allow_long_call(conn, watchdog)
                try:
                    migrations.migrate(conn, int(found))
                except ValueError as error:
                    raise UsageError(
                        f"cannot migrate the store {shown_url} from schema version "
                        f"{found} to {schema.SCHEMA_VERSION}: {error}",
                        hint="the store is unchanged; "
                        "the wirespeed version that wrote it still reads it",
                    ) from None
            elif int(found) != schema.SCHEMA_VERSION:
                raise UsageError(
                    f"the database {shown_url} has schema version {found}, "
                    f"this wirespeed reads version {schema.SCHEMA_VERSION}",
                    hint="use the wirespeed version that wrote it, or another --db",
                )


def _allow_long_call(conn: Connection, watchdog: Watchdog | None) -> None:
    """This connection may stay out for a migration of a big store."""
    if watchdog is not None:
        watchdog.extend(conn.connection.dbapi_connection, MIGRATION_TIMEOUT_S)
        conn.exec_driver_sql("SET LOCAL statement_timeout = 0")


def _table_names(conn: Connection) -> set[str]:
    return set(conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='table'").scalars())
