"""The soak tables, on the store's own metadata (store/columns.py) (as journal_table.py: importing
this module is what adds them; an older store gets them when next opened for writing,
no schema version changes).

One `soak` row per soak, one `soak_chunk` row per chunk of its probe stream, committed
as each chunk ends: a soak killed at any moment loses at most the chunk in progress.
A chunk's `data` is JSON (soak/records.py): its loss runs, round-trip figures, the
kernel events and interface counters seen during it, the faults injected and the load
bursts run. A few hundred bytes when nothing happened.
"""

from __future__ import annotations

from sqlalchemy import Column, Double, ForeignKey, Index, Integer, String, Table, Text

from wirespeed.store.columns import FreeText, Id, metadata

__all__ = ["soak", "soak_chunk"]

soak = Table(
    "soak",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("title", FreeText),
    Column("plan_text", Text, nullable=False),
    Column("lab", FreeText),  # the lab's name; NULL on real hosts
    Column("status", String(16), nullable=False),  # running, complete, interrupted, failed
    Column("created_at", Double, nullable=False),
    Column("updated_at", Double, nullable=False),
    Column("owner", FreeText),  # process_owner() of the process running it
    Column("info", Text),  # JSON: hosts, tool versions, settings
)

soak_chunk = Table(
    "soak_chunk",
    metadata,
    Column("id", Id, primary_key=True, autoincrement=True),
    Column("soak_id", Id, ForeignKey("soak.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("kind", String(16), nullable=False),  # probes, blind
    Column("started_at", Double, nullable=False),
    Column("ended_at", Double, nullable=False),
    Column("data", Text, nullable=False),
    Index("ix_soak_chunk_soak", "soak_id", "position", unique=True),
)
