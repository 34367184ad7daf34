"""One chunk of a soak's probe stream: irtt's JSON -> what the store keeps of it.

A chunk is one irtt client run (60 s by default, 100 probes a second): 6000 round trips,
2.4 MB of JSON. What is kept is small: the runs of consecutive lost probes (each with
the send time of its first probe and of the first one answered after it, and how many
were lost which way), and the chunk's round-trip figures. Outages are found from the
runs (outages.py), also across chunks: a run that reaches a chunk's end is `open_end`,
one that starts at its first probe `open_start`.

irtt says per probe which way it was lost ("true_up": the server never saw it,
"true_down": the answer did not come back, "true": unknown, when the server's receive
window cannot tell); a lost probe still has its client send time (wall clock, ns).
"""

from __future__ import annotations

import json
import statistics
from dataclasses import dataclass
from typing import Any

__all__ = ["ChunkProbes", "LossRun", "blind_chunk", "parse_chunk"]


@dataclass(frozen=True)
class LossRun:
    """Consecutive lost probes of one chunk. Times are wall-clock nanoseconds."""

    start_ns: int  # the first lost probe's send time
    end_ns: int  # the next answered probe's send time; else the last lost's + interval
    lost: int
    up: int = 0  # client -> server
    down: int = 0  # server -> client
    unknown: int = 0
    open_start: bool = False  # begins at the chunk's first probe (or the chunk is blind)
    open_end: bool = False  # reaches the chunk's last probe
    blind: bool = False  # no probe went out: irtt could not reach its server

    def __post_init__(self) -> None:
        if self.end_ns < self.start_ns or self.lost < 0:
            raise ValueError(f"a loss run must not end before it starts: {self}")

    def to_list(self) -> list[int]:
        flags = int(self.open_start) | int(self.open_end) << 1 | int(self.blind) << 2
        return [self.start_ns, self.end_ns, self.lost, self.up, self.down, self.unknown, flags]

    @classmethod
    def from_list(cls, row: list[int]) -> LossRun:
        start, end, lost, up, down, unknown, flags = (int(value) for value in row)
        return cls(
            start, end, lost, up, down, unknown, bool(flags & 1), bool(flags & 2), bool(flags & 4)
        )


@dataclass(frozen=True)
class ChunkProbes:
    """What one irtt run saw. first/last_send_ns: the span it watched (None: no probe
    went out, the client could not reach its server)."""

    first_send_ns: int | None
    last_send_ns: int | None
    sent: int
    lost_up: int
    lost_down: int
    lost_unknown: int
    runs: tuple[LossRun, ...]
    rtt_p50_ms: float | None = None
    rtt_p99_ms: float | None = None
    rtt_max_ms: float | None = None

    @property
    def lost(self) -> int:
        return self.lost_up + self.lost_down + self.lost_unknown


def _way(lost: str) -> str | None:
    """irtt's `lost` value -> None (answered), "up", "down", "unknown"."""
    if lost == "false":
        return None
    return {"true_up": "up", "true_down": "down"}.get(lost, "unknown")


def parse_chunk(text: str, interval_ns: int) -> ChunkProbes:
    """irtt client JSON (`-o -`) -> ChunkProbes; ValueError with irtt's words when the
    output is no JSON (no server: "no reply from server")."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError:
        said = [line.strip() for line in text.strip().splitlines() if line.strip()]
        raise ValueError(said[-1] if said else "irtt printed nothing") from None
    if not isinstance(document, dict) or not isinstance(document.get("round_trips"), list):
        raise ValueError("irtt's output has no round_trips")
    trips: list[dict[str, Any]] = document["round_trips"]
    rtts: list[float] = []
    counts = {"up": 0, "down": 0, "unknown": 0}
    runs: list[LossRun] = []
    current: dict[str, int] | None = None
    first_send: int | None = None
    last_send: int | None = None
    for index, trip in enumerate(trips):
        sent_ns = int(trip["timestamps"]["client"]["send"]["wall"])
        if first_send is None:
            first_send = sent_ns
        last_send = sent_ns
        way = _way(str(trip.get("lost", "false")))
        if way is None:
            if current is not None:
                runs.append(_run(current, sent_ns, open_end=False))
                current = None
            rtts.append(trip["delay"]["rtt"] / 1e6)
            continue
        counts[way] += 1
        if current is None:
            current = {"start": sent_ns, "last": sent_ns, "open_start": int(index == 0)}
            current |= {"up": 0, "down": 0, "unknown": 0}
        current[way] += 1
        current["last"] = sent_ns
    if current is not None:
        runs.append(_run(current, current["last"] + interval_ns, open_end=True))
    rtts.sort()
    return ChunkProbes(
        first_send_ns=first_send,
        last_send_ns=last_send,
        sent=len(trips),
        lost_up=counts["up"],
        lost_down=counts["down"],
        lost_unknown=counts["unknown"],
        runs=tuple(runs),
        rtt_p50_ms=statistics.median(rtts) if rtts else None,
        rtt_p99_ms=rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))] if rtts else None,
        rtt_max_ms=rtts[-1] if rtts else None,
    )


def _run(current: dict[str, int], end_ns: int, *, open_end: bool) -> LossRun:
    up, down, unknown = current["up"], current["down"], current["unknown"]
    return LossRun(
        start_ns=current["start"],
        end_ns=end_ns,
        lost=up + down + unknown,
        up=up,
        down=down,
        unknown=unknown,
        open_start=bool(current["open_start"]),
        open_end=open_end,
    )


def blind_chunk(start_ns: int, end_ns: int, interval_ns: int) -> ChunkProbes:
    """A span no probe watched because irtt could not reach its server (the path was down
    as the chunk began): one loss run over all of it, the lost count what would have been
    sent, its direction unknown."""
    expected = max(1, round((end_ns - start_ns) / interval_ns))
    run = LossRun(
        start_ns, end_ns, expected, unknown=expected, open_start=True, open_end=True, blind=True
    )
    return ChunkProbes(None, None, 0, 0, 0, 0, (run,))
