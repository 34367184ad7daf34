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
import re
import statistics
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn

__all__ = ["ChunkProbes", "LossRun", "blind_chunk", "parse_chunk", "probes_of"]

ROUND_TRIPS = '"round_trips":'
WHITESPACE = re.compile(r"\s*")


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
    return probes_of(_round_trips(text), interval_ns)


def probes_of(trips: Iterable[dict[str, Any]], interval_ns: int) -> ChunkProbes:
    """irtt's round trips, in the order sent -> ChunkProbes."""
    rtts = array("d")  # one buffer, not 6000 float objects among the parser's garbage
    counts = {"up": 0, "down": 0, "unknown": 0}
    runs: list[LossRun] = []
    current: dict[str, int] | None = None
    first_send: int | None = None
    last_send: int | None = None
    sent = 0
    for index, trip in enumerate(trips):
        sent += 1
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
    ordered = sorted(rtts)
    return ChunkProbes(
        first_send_ns=first_send,
        last_send_ns=last_send,
        sent=sent,
        lost_up=counts["up"],
        lost_down=counts["down"],
        lost_unknown=counts["unknown"],
        runs=tuple(runs),
        rtt_p50_ms=statistics.median(ordered) if ordered else None,
        rtt_p99_ms=ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else None,
        rtt_max_ms=ordered[-1] if ordered else None,
    )


def _round_trips(text: str) -> Iterator[dict[str, Any]]:
    """irtt's round trips one at a time, each decoded and dropped before the next.

    Decoding the whole document builds some 200,000 small objects a chunk at once, and
    CPython's allocator keeps the memory they leave behind in part: a soak's resident
    size grew by about 1 MB a chunk for its first 15 chunks (docs/benchmarks.md). irtt
    writes "round_trips" last; what comes before it is decoded as a whole (it is small),
    so the document is still checked to be one JSON object."""
    key = text.find(ROUND_TRIPS)
    if key < 0:
        _no_round_trips(text)
    try:
        head = json.loads(text[:key].rstrip().removesuffix(",") + "}")
    except json.JSONDecodeError:
        head = None
    if not isinstance(head, dict):
        raise ValueError("irtt's output is not one JSON object")
    at = _skip(text, key + len(ROUND_TRIPS))
    if not text.startswith("[", at):
        raise ValueError("irtt's output has no round_trips")
    decoder = json.JSONDecoder()
    at = _skip(text, at + 1)
    if text.startswith("]", at):
        at += 1
    else:
        while True:
            try:
                trip, at = decoder.raw_decode(text, at)
            except json.JSONDecodeError as error:
                raise ValueError(f"irtt's output is cut short: {error}") from None
            if not isinstance(trip, dict):
                raise ValueError("irtt's round_trips holds something other than objects")
            yield trip
            at = _skip(text, at)
            if text.startswith(",", at):
                at = _skip(text, at + 1)
            elif text.startswith("]", at):
                at += 1
                break
            else:
                raise ValueError(f"irtt's output is cut short at character {at}")
    if text[_skip(text, at) :].strip() != "}":
        raise ValueError("irtt's output goes on after its round_trips")


def _skip(text: str, at: int) -> int:
    return WHITESPACE.match(text, at).end()  # type: ignore[union-attr]  # \s* always matches


def _no_round_trips(text: str) -> NoReturn:
    """What to say of output without round trips: irtt's own last words if it is no JSON."""
    try:
        json.loads(text)
    except json.JSONDecodeError as error:
        if text.lstrip().startswith("{"):
            raise ValueError(f"irtt's output is cut short: {error}") from None
        said = [line.strip() for line in text.strip().splitlines() if line.strip()]
        raise ValueError(said[-1] if said else "irtt printed nothing") from None
    raise ValueError("irtt's output has no round_trips")


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
