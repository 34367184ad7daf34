"""The tuning journal's table, on the store's own metadata (store/columns.py).

Defined here rather than in store/schema.py so that importing it is what adds it: the
Store creates every table of that metadata that is missing when it opens, so a store
opened after this import has the table (an older store gets it added), and no schema
version changes: the other tables are untouched.

One row per knob change (tune/journal.py). The row is committed *before* the knob is
written, state "pending"; "applied" once the write was read back; "restored" once the
previous value is back; "expired" when the host rebooted since (procfs/sysfs knobs do not
survive a reboot, and IRQ numbers may differ); "forgotten" when a user dropped the row of
a host that is gone. A file `tune keep --install` added is a row in state "kept" until
`tune restore HOST --keep` removes it ("restored").
"""

from __future__ import annotations

from sqlalchemy import Column, Double, Index, Integer, String, Table

from wirespeed.store.columns import FreeText, Id, metadata

tune_journal = Table(
    "tune_journal",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("session", String(64), nullable=False),  # one apply: restored as a unit
    Column("position", Integer, nullable=False),  # write order within the session
    Column("host", FreeText, nullable=False),  # "local", a namespace, later an SSH host
    # The host's /proc/sys/kernel/random/boot_id when written; NULL when it has none.
    Column("host_boot", FreeText),
    # Who wrote it: "hostname/boot_id/pid/starttime" of the wirespeed process, so a
    # later process can tell a crashed owner from one still running.
    Column("owner", FreeText, nullable=False),
    Column("target", FreeText, nullable=False),  # a path, or ethtool:IF:FEATURE
    Column("previous", FreeText, nullable=False),  # exactly as read, newline and all
    Column("new", FreeText, nullable=False),
    Column("why", FreeText),
    Column("state", String(16), nullable=False),
    Column("created_at", Double, nullable=False),
    Column("updated_at", Double, nullable=False),
    Index("ix_tune_journal_state_host", "state", "host"),
    Index("ix_tune_journal_session", "session", "position"),
)
