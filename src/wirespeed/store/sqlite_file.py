"""A SQLite store's file: may this process write it, how a reader opens it, is it whole.

Reading commands (`runs`, `report`, `compare`) open the file read-only, so a store on a
read-only mount, or one the user may only read, can still be reported. Writing commands
refuse such a store before they start, and refuse a damaged one (PRAGMA quick_check):
SQLite reports damage only in the pages a statement reads, so a run would otherwise add
its trials to a file that is already broken, and exit 0.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

from sqlalchemy import URL

# How a Store opens a SQLite file: to write it (the tables made or migrated if needed),
# to read it (mode=ro), or to read a file nobody can change while it is read (immutable).
Access = Literal["write", "read", "immutable"]

# How many of quick_check's findings a refusal shows: the first says the file is damaged,
# a few more say how badly; a badly damaged file has thousands.
SHOWN_PROBLEMS = 3


def engine_url(path: Path, access: Access) -> URL:
    """The SQLAlchemy URL that opens the file at `path` (absolute) as `access` says."""
    if access == "write":
        return URL.create("sqlite", database=str(path))
    # A URI filename: its query asks SQLite for read-only access. quote() keeps "/" and
    # escapes what a URI would read otherwise (%, ?, #, spaces).
    option = {"read": {"mode": "ro"}, "immutable": {"immutable": "1"}}[access]
    query = {"uri": "true", **option}
    return URL.create("sqlite", database=f"file:{quote(str(path))}", query=query)


def why_not_writable(path: Path) -> str | None:
    """Why this process cannot write the store at `path`, or None if it can: the file if
    it exists, else the directory that would hold it (SQLite writes its -wal and -shm
    files beside the database, so the directory must be writable too)."""
    directory = next((p for p in (path.parent, *path.parent.parents) if p.exists()), None)
    if directory is None:
        return None
    if _read_only_file_system(directory):
        return "it is on a read-only file system"
    if path.exists() and not os.access(path, os.W_OK):
        return "this user may not write the file"
    if not os.access(directory, os.W_OK):
        return f"this user may not write in {directory}"
    return None


def _read_only_file_system(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def may_open_immutable(path: Path) -> bool:
    """Whether a reader that mode=ro could not open may read the file as immutable.

    SQLite opens a WAL database read-only only if its -shm file exists or can be made:
    not on a read-only mount whose store was closed cleanly, nor in a directory this user
    may not write. There this process cannot change the file, and no -wal holds commits
    that immutable would not read. (Another process that may write it could still change
    it: a run writing it keeps a -wal file beside it, which this check sees.)
    """
    wal = path.with_name(path.name + "-wal")
    has_commits_aside = wal.exists() and wal.stat().st_size > 0
    return not has_commits_aside and why_not_writable(path) is not None


def quick_check_problems(dbapi_connection: Any) -> list[str]:
    """What SQLite's quick_check finds wrong with the file (empty when it is whole): its
    b-trees, pages and records, in one pass over the file (about 0.1 s for a store of
    10,000 trials, 200 MB), not the agreement of indexes with their tables."""
    import sqlite3

    try:
        rows = dbapi_connection.execute(f"PRAGMA quick_check({SHOWN_PROBLEMS})").fetchall()
    except sqlite3.DatabaseError as error:
        return [str(error)]
    # A row may hold several lines, the first "*** in database main ***": which attached
    # database the rest is of.
    lines = (line.strip() for row in rows for line in str(row[0]).splitlines())
    problems = [line for line in lines if line and not line.startswith("*** ")]
    return [] if problems == ["ok"] else problems[:SHOWN_PROBLEMS]
