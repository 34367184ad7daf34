"""The tuning journal: every knob's previous value, committed before the knob is written.

Lives in the store (table tune_journal, store/journal_table.py), so it is as durable as
the trials: SQLite in WAL mode with synchronous=FULL survives a killed process and a power
cut, and a shared PostgreSQL store journals the same way.

A row's life: pending (committed, the write may or may not have happened) -> applied
(written and read back) -> restored (the previous value is back). A pending row is
restored like an applied one: writing back a value that was never changed is harmless,
and skipping a write that did happen would leave a trace.

Each row names its owner, the wirespeed process that wrote it (hostname, boot id, pid,
start time). Rows of an owner that is still running belong to it; rows of an owner that
is gone (killed, crashed, the machine rebooted) are what recovery restores.
"""

from __future__ import annotations

import enum
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wirespeed.process_owner import process_owner
from wirespeed.record_fields import record_of
from wirespeed.store import journal_table  # adds tune_journal to the store's metadata

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from wirespeed.store import Store


class State(enum.StrEnum):
    PENDING = "pending"
    APPLIED = "applied"
    RESTORED = "restored"
    EXPIRED = "expired"  # the host rebooted since: the change died with the old boot
    FORGOTTEN = "forgotten"  # dropped by hand (the host is gone for good)
    # A file, directory or link a `tune keep --install` added: it is meant to outlive the
    # process and the boot, so recovery leaves it; `tune restore HOST --keep` removes it.
    KEPT = "kept"


OPEN_STATES = (State.PENDING, State.APPLIED)


@dataclass(frozen=True)
class Entry:
    id: int
    session: str
    position: int
    host: str
    host_boot: str | None
    owner: str
    target: str
    previous: str
    new: str
    why: str | None
    state: State


class Journal:
    """Rows of tune_journal in one store. `owner` is for tests that play a dead process."""

    def __init__(self, store: Store, owner: str | None = None) -> None:
        self._store = store
        self.owner = owner or process_owner()

    @classmethod
    def open(
        cls, db: str | Path | None, owner: str | None = None, *, existing: bool = False
    ) -> Journal:
        """The journal in the store `db` (None: the per-user default store). existing:
        for restoring, which must not make a store (a mistyped --db would read as an
        empty journal and say there is nothing to restore): UsageError if `db` does
        not exist, an empty journal if the default store does not exist yet."""
        from wirespeed.store import Store

        return cls(Store.open(db, existing=existing), owner)

    @property
    def where(self) -> str:
        return self._store.url

    def close(self) -> None:
        self._store.close()

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    @staticmethod
    def new_session() -> str:
        return uuid.uuid4().hex

    def _write(self) -> Connection:
        # The store's own connection: on SQLite its pragmas (WAL, synchronous=FULL, busy
        # timeout), and a writer's transaction begins IMMEDIATE: it waits its turn. Not
        # Store.write: a row inserted again after an outage would be a second row.
        return self._store.connect(write=True)

    def record(
        self,
        *,
        session: str,
        position: int,
        host: str,
        host_boot: str | None,
        target: str,
        previous: str,
        new: str,
        why: str | None,
        state: State = State.PENDING,
    ) -> int:
        """A new row, committed (and on SQLite fsynced) before this returns."""
        from sqlalchemy import insert

        now = time.time()
        with self._write() as conn, conn.begin():
            result = conn.execute(
                insert(journal_table.tune_journal).values(
                    session=session,
                    position=position,
                    host=host,
                    host_boot=host_boot,
                    owner=self.owner,
                    target=target,
                    previous=previous,
                    new=new,
                    why=why,
                    state=state.value,
                    created_at=now,
                    updated_at=now,
                )
            )
            key = result.inserted_primary_key
            assert key is not None
            return int(key[0])

    def set_state(self, entry_id: int, state: State) -> None:
        from sqlalchemy import update

        table = journal_table.tune_journal
        with self._write() as conn, conn.begin():
            conn.execute(
                update(table)
                .where(table.c.id == entry_id)
                .values(state=state.value, updated_at=time.time())
            )

    def open_entries(self, host: str | None = None, session: str | None = None) -> list[Entry]:
        """Rows not yet restored, oldest first; of one host and/or one session if given."""
        from sqlalchemy import select

        table = journal_table.tune_journal
        query = select(table).where(table.c.state.in_([s.value for s in OPEN_STATES]))
        if host is not None:
            query = query.where(table.c.host == host)
        if session is not None:
            query = query.where(table.c.session == session)
        with self._store.connect() as conn:
            rows = conn.execute(query.order_by(table.c.id)).mappings().all()
        return [_entry(row) for row in rows]

    def kept_entries(self, host: str) -> list[Entry]:
        """A host's installed boot files not yet removed, oldest first."""
        from sqlalchemy import select

        table = journal_table.tune_journal
        query = select(table).where(table.c.state == State.KEPT.value, table.c.host == host)
        with self._store.connect() as conn:
            rows = conn.execute(query.order_by(table.c.id)).mappings().all()
        return [_entry(row) for row in rows]

    def entries(self, session: str) -> list[Entry]:
        """Every row of a session, in write order, whatever its state."""
        from sqlalchemy import select

        table = journal_table.tune_journal
        with self._store.connect() as conn:
            rows = (
                conn.execute(select(table).where(table.c.session == session).order_by(table.c.id))
                .mappings()
                .all()
            )
        return [_entry(row) for row in rows]


def _entry(row: Any) -> Entry:
    return record_of(
        Entry, row, id=int(row["id"]), position=int(row["position"]), state=State(row["state"])
    )
