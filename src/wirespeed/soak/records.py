"""A soak in the store: its header and its chunks, each committed as it ends.

    soak_id = begin(store, title, plan_text, lab)
    add_chunk(store, soak_id, ChunkRecord(...))        # one transaction per chunk
    finish(store, soak_id, "complete")
    header, chunks = load(store, soak_id)              # chunks in the order they ran

A chunk's data, JSON: {"probes": {...ChunkProbes, runs as lists}, "events": [...],
"counters": {iface: {name: delta}}, "faults": [...], "bursts": [[start, end]],
"notes": [...], "device": [...DeviceEvent: the DUT did not answer, or restarted]}.
Loading all of a 24 h soak's chunks (1440 of 60 s) reads a few MB.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, insert, select, update

from wirespeed.process_owner import process_owner
from wirespeed.record_fields import fields, record_of
from wirespeed.soak.chunk import ChunkProbes, LossRun
from wirespeed.soak.device import DeviceEvent
from wirespeed.soak.matching import KernelEvent
from wirespeed.store import Store
from wirespeed.store.soak_table import soak, soak_chunk

__all__ = [
    "ChunkRecord",
    "SoakHeader",
    "add_chunk",
    "begin",
    "finish",
    "latest",
    "load",
    "next_position",
    "set_lab",
]


# A chunk's probe figures in the order its data keeps them, its loss runs after them.
_PROBE_FIGURES = (
    "first_send_ns",
    "last_send_ns",
    "sent",
    "lost_up",
    "lost_down",
    "lost_unknown",
    "rtt_p50_ms",
    "rtt_p99_ms",
    "rtt_max_ms",
)


@dataclass(frozen=True)
class ChunkRecord:
    position: int
    kind: str  # "probes" or "blind"
    started_at: float
    ended_at: float
    probes: ChunkProbes
    events: tuple[KernelEvent, ...] = ()
    counters: Mapping[str, Mapping[str, int]] = field(default_factory=dict)
    faults: tuple[Mapping[str, object], ...] = ()
    bursts: tuple[tuple[float, float], ...] = ()
    notes: tuple[str, ...] = ()
    device: tuple[DeviceEvent, ...] = ()

    def data(self) -> str:
        p = self.probes
        return json.dumps(
            {
                "probes": {
                    **fields(p, _PROBE_FIGURES),
                    "runs": [run.to_list() for run in p.runs],
                },
                "events": [event.to_dict() for event in self.events],
                "counters": self.counters,
                "faults": list(self.faults),
                "bursts": [list(burst) for burst in self.bursts],
                "notes": list(self.notes),
                "device": [event.to_dict() for event in self.device],
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_row(cls, row: Any) -> ChunkRecord:
        data = json.loads(row.data)
        p = data["probes"]
        probes = record_of(ChunkProbes, p, runs=tuple(LossRun.from_list(run) for run in p["runs"]))
        return cls(
            position=row.position,
            kind=row.kind,
            started_at=row.started_at,
            ended_at=row.ended_at,
            probes=probes,
            events=tuple(KernelEvent.from_dict(event) for event in data["events"]),
            counters=data["counters"],
            faults=tuple(data["faults"]),
            bursts=tuple((float(a), float(b)) for a, b in data["bursts"]),
            notes=tuple(data["notes"]),
            device=tuple(DeviceEvent.from_dict(event) for event in data.get("device", ())),
        )

    @property
    def watched(self) -> float:
        """Seconds of the stream this chunk covers."""
        return max(0.0, self.ended_at - self.started_at)


@dataclass(frozen=True)
class SoakHeader:
    id: int
    title: str | None
    plan_text: str
    lab: str | None
    status: str
    created_at: float
    updated_at: float
    owner: str | None
    info: Mapping[str, Any]


def begin(
    store: Store, title: str | None, plan_text: str, lab: str | None, info: Mapping[str, Any]
) -> int:
    now = time.time()

    def work(conn: Any, _retried: bool) -> int:
        result = conn.execute(
            insert(soak).values(
                title=title,
                plan_text=plan_text,
                lab=lab,
                status="running",
                created_at=now,
                updated_at=now,
                owner=process_owner(),
                info=json.dumps(dict(info)),
            )
        )
        return int(result.inserted_primary_key[0])

    return store.write(work)


def set_status(store: Store, soak_id: int, status: str) -> None:
    def work(conn: Any, _retried: bool) -> None:
        conn.execute(
            update(soak)
            .where(soak.c.id == soak_id)
            .values(status=status, updated_at=time.time(), owner=process_owner())
        )

    store.write(work)


finish = set_status


def set_lab(store: Store, soak_id: int, lab: str) -> None:
    """The name of the lab the soak was built in, when it had to take another than the
    one asked for (that one was in use): where `--resume` builds it again."""

    def work(conn: Any, _retried: bool) -> None:
        conn.execute(update(soak).where(soak.c.id == soak_id).values(lab=lab))

    store.write(work)


def add_chunk(store: Store, soak_id: int, chunk: ChunkRecord) -> None:
    def work(conn: Any, retried: bool) -> None:
        if (
            retried
            and conn.execute(
                select(soak_chunk.c.id).where(
                    soak_chunk.c.soak_id == soak_id, soak_chunk.c.position == chunk.position
                )
            ).first()
        ):
            return  # the earlier attempt committed
        conn.execute(
            insert(soak_chunk).values(
                soak_id=soak_id,
                position=chunk.position,
                kind=chunk.kind,
                started_at=chunk.started_at,
                ended_at=chunk.ended_at,
                data=chunk.data(),
            )
        )
        conn.execute(update(soak).where(soak.c.id == soak_id).values(updated_at=time.time()))

    store.write(work)


def next_position(store: Store, soak_id: int) -> int:
    with store.reading() as conn:
        found = conn.execute(
            select(func.max(soak_chunk.c.position)).where(soak_chunk.c.soak_id == soak_id)
        ).scalar()
    return 0 if found is None else int(found) + 1


def latest(store: Store) -> int | None:
    """The latest soak that streamed (has a chunk), else the latest of all; None when the
    store holds none. A soak that failed before its first probe is no one's latest."""
    with store.reading() as conn:
        found = conn.execute(select(func.max(soak_chunk.c.soak_id))).scalar()
        if found is None:
            found = conn.execute(select(func.max(soak.c.id))).scalar()
    return None if found is None else int(found)


def load_header(store: Store, soak_id: int | None) -> SoakHeader | None:
    """A soak's header; soak_id None: the latest soak (latest())."""
    if soak_id is None:
        soak_id = latest(store)
        if soak_id is None:
            return None
    query = select(soak).where(soak.c.id == soak_id)
    with store.reading() as conn:
        row = conn.execute(query).first()
    if row is None:
        return None
    return SoakHeader(
        id=int(row.id), title=row.title, plan_text=row.plan_text, lab=row.lab,
        status=row.status, created_at=row.created_at, updated_at=row.updated_at,
        owner=row.owner, info=json.loads(row.info or "{}"),
    )  # fmt: skip


def load(store: Store, soak_id: int | None) -> tuple[SoakHeader, list[ChunkRecord]] | None:
    header = load_header(store, soak_id)
    if header is None:
        return None
    with store.reading() as conn:
        rows = conn.execute(
            select(soak_chunk)
            .where(soak_chunk.c.soak_id == header.id)
            .order_by(soak_chunk.c.position)
        ).all()
    return header, [ChunkRecord.from_row(row) for row in rows]


def list_soaks(store: Store, *, streamed: bool = False) -> Sequence[SoakHeader]:
    """The soaks in the order they began; streamed: only those with a chunk."""
    query = select(soak.c.id).order_by(soak.c.id)
    if streamed:
        query = query.where(soak.c.id.in_(select(soak_chunk.c.soak_id)))
    with store.reading() as conn:
        ids = [int(row.id) for row in conn.execute(query)]
    return [h for soak_id in ids if (h := load_header(store, soak_id)) is not None]
