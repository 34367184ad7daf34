"""Outages from a soak's loss runs (RFC 6201: an outage is characterised by its lost
frames and their timestamps).

An outage is a stretch of at least `threshold` consecutive lost probes (10 by default:
100 ms at 100 probes a second, shorter than a link's renegotiation or a NIC's reset; on
a machine whose cores are busy with other work, runs of 3-9 probes, 30-91 ms, were lost
now and then with no event on the path: they stay in the loss figures, and a stored soak
can be reported again with `--outage 3` to count them). It starts at its first lost probe's send
time and ends at the send time of the first probe answered after it, so its length is
known to one interval (10 ms). Runs continue across chunks: a run that reaches one
chunk's end and one that opens the next (or a chunk that could not start at all: the
path was down) are one outage, if the chunks follow each other within JOIN_NS.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from wirespeed.soak.chunk import ChunkProbes, LossRun

__all__ = ["DEFAULT_THRESHOLD", "JOIN_NS", "Outage", "find_outages"]

DEFAULT_THRESHOLD = 10
# Chunks are started back to back (the next as the previous sends its last probe); a
# handover takes milliseconds. A longer gap is time nobody watched (wirespeed was not
# running): runs on either side of it stay apart.
JOIN_NS = 1_000_000_000


@dataclass(frozen=True)
class Outage:
    start: float  # wall clock, seconds
    end: float
    lost: int
    up: int
    down: int
    unknown: int
    blind: bool = False  # part of it no probe watched: irtt could not reach its server

    @property
    def duration(self) -> float:
        return self.end - self.start

    @property
    def direction(self) -> str:
        """ "up" (client -> server), "down", "both" or "unknown" (irtt could not tell)."""
        ways = [way for way, count in (("up", self.up), ("down", self.down)) if count]
        if len(ways) == 2:
            return "both"
        return ways[0] if ways else "unknown"

    def to_dict(self) -> dict[str, object]:
        return {
            "start": round(self.start, 3),
            "end": round(self.end, 3),
            "duration": round(self.duration, 3),
            "lost": self.lost,
            "lost_up": self.up,
            "lost_down": self.down,
            "lost_unknown": self.unknown,
            "direction": self.direction,
            "blind": self.blind,
        }


def _joined(runs: list[LossRun]) -> Outage:
    return Outage(
        start=runs[0].start_ns / 1e9,
        end=runs[-1].end_ns / 1e9,
        lost=sum(run.lost for run in runs),
        up=sum(run.up for run in runs),
        down=sum(run.down for run in runs),
        unknown=sum(run.unknown for run in runs),
        blind=any(run.blind for run in runs),
    )


def _runs_joined(chunks: Iterable[ChunkProbes]) -> Iterator[list[LossRun]]:
    """Each maximal run of loss, as the chunks' runs that make it up."""
    pending: list[LossRun] = []
    for chunk in chunks:
        for run in chunk.runs:
            continues = (
                pending
                and pending[-1].open_end
                and run.open_start
                and run.start_ns - pending[-1].end_ns <= JOIN_NS
            )
            if pending and not continues:
                yield pending
                pending = []
            pending.append(run)
        if pending and not chunk.runs:
            yield pending  # a chunk without loss ends whatever ran into it
            pending = []
        elif pending and not pending[-1].open_end:
            yield pending
            pending = []
    if pending:
        yield pending


def find_outages(chunks: Iterable[ChunkProbes], threshold: int = DEFAULT_THRESHOLD) -> list[Outage]:
    """Every outage in chunks (in the order they ran)."""
    return [outage for runs in _runs_joined(chunks) if (outage := _joined(runs)).lost >= threshold]
