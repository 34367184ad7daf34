"""A stored soak -> what every report shows: outages with their kernel events, the
sentence, and per-chunk series (easy to plot: outages as intervals, events as
instants, loss and round trip per chunk)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wirespeed.soak.device import DeviceEvent
from wirespeed.soak.matching import DEFAULT_WINDOW, KernelEvent, Matched, match
from wirespeed.soak.outages import DEFAULT_THRESHOLD, find_outages
from wirespeed.soak.records import ChunkRecord, SoakHeader
from wirespeed.soak.sentence import sentence

__all__ = ["UNFOLLOWED_PREFIXES", "SoakSummary", "summarize"]

# The notes soak/device.py writes when it cannot follow the kernel log.
UNFOLLOWED_PREFIXES = (
    "the kernel log could not be followed",
    "a kernel log reader was lost",
    "the kernel log of the silence was not read",
)


@dataclass(frozen=True)
class SoakSummary:
    header: SoakHeader
    watched: float
    started_at: float | None
    ended_at: float | None
    interval: float
    threshold: int
    matched: tuple[Matched, ...]
    events: tuple[KernelEvent, ...]
    device: tuple[DeviceEvent, ...]  # the DUT did not answer, or restarted
    faults: tuple[dict[str, Any], ...]
    bursts: tuple[tuple[float, float], ...]
    chunks: tuple[dict[str, Any], ...]
    notes: tuple[str, ...]
    sentence: str
    sent: int
    lost: int

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the report says at its top: the DUT's kernel log could not be followed
        (the soak saw no kernel event, which would otherwise read as "none happened")."""
        return tuple(dict.fromkeys(n for n in self.notes if n.startswith(UNFOLLOWED_PREFIXES)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "soak": self.header.id,
            "title": self.header.title,
            "status": self.header.status,
            "lab": self.header.lab,
            "started_at": self.started_at,
            "ended_at": self.ended_at,
            "watched_s": round(self.watched, 3),
            "interval_s": self.interval,
            "outage_threshold": self.threshold,
            "sentence": self.sentence,
            "probes": {"sent": self.sent, "lost": self.lost},
            "outages": [
                m.outage.to_dict() | {"events": [e.to_dict() for e in m.events]}
                for m in self.matched
            ],
            "events": [e.to_dict() for e in self.events],
            "device_events": [e.to_dict() for e in self.device],
            "faults": list(self.faults),
            "bursts": [list(b) for b in self.bursts],
            "chunks": list(self.chunks),
            "notes": list(self.notes),
            "warnings": list(self.warnings),
        }


def summarize(
    header: SoakHeader,
    chunks: Sequence[ChunkRecord],
    *,
    interval: float = 0.01,
    threshold: int = DEFAULT_THRESHOLD,
    window: float = DEFAULT_WINDOW,
) -> SoakSummary:
    outages = find_outages((c.probes for c in chunks), threshold)
    events = tuple(e for c in chunks for e in c.events)
    matched = tuple(match(outages, events, window))
    watched = sum(c.watched for c in chunks)
    device = tuple(sorted((e for c in chunks for e in c.device), key=lambda e: e.at))
    series = tuple(
        {
            "position": c.position,
            "kind": c.kind,
            "start": round(c.started_at, 3),
            "end": round(c.ended_at, 3),
            "sent": c.probes.sent,
            "lost_up": c.probes.lost_up,
            "lost_down": c.probes.lost_down,
            "lost_unknown": c.probes.lost_unknown,
            "rtt_p50_ms": c.probes.rtt_p50_ms,
            "rtt_p99_ms": c.probes.rtt_p99_ms,
            "rtt_max_ms": c.probes.rtt_max_ms,
            "counters": dict(c.counters),
        }
        for c in chunks
    )
    return SoakSummary(
        header=header,
        watched=watched,
        started_at=chunks[0].started_at if chunks else None,
        ended_at=chunks[-1].ended_at if chunks else None,
        interval=interval,
        threshold=threshold,
        matched=matched,
        events=events,
        device=device,
        faults=tuple(dict(f) for c in chunks for f in c.faults),
        bursts=tuple(b for c in chunks for b in c.bursts),
        chunks=series,
        notes=tuple(n for c in chunks for n in c.notes),
        sentence=sentence(matched, watched, device, window),
        sent=sum(c.probes.sent for c in chunks),
        lost=sum(c.probes.lost for c in chunks),
    )
