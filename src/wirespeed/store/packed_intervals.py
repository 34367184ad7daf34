"""One interval series (a direction's sum or a stream's) as one packed value.

A run of 10,000 trials holds hundreds of thousands of intervals; as one row each they were
most of the time of loading a run. Packed, a series is one value read with its result
row, and numbers come back exactly: floats as IEEE doubles, counts as 64-bit integers,
the same ranges the one-row-per-interval columns had (DOUBLE PRECISION, BIGINT).

Layout, little-endian (also in docs/store.md):

    byte 0   LAYOUT (1)
    byte 1   flags: bit 0 retransmits, 1 jitter_ms, 2 lost, 3 packets: the optional
             fields the records hold; bit 4 (MIXED): each record starts with one byte of
             these bits saying which of them it has (the others are written as 0)
    then one record per interval: start f64, end f64, bytes i64, bits_per_second f64,
             then the optional fields named by the flags, in that order (i64, f64, i64, i64)

An optional field is left out when no interval of the series has it; MIXED is set only
when some intervals have a field and others do not, which iperf never prints but a
series must survive anyway.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from wirespeed.model import Interval
from wirespeed.store.direct import field_setter

LAYOUT = 1
MIXED = 0x10
_OPTIONAL = ("retransmits", "jitter_ms", "lost", "packets")
_OPTIONAL_CODES = ("q", "d", "q", "q")
_HEADER = struct.Struct("<BB")
_FIELDS = ("start", "end", "bytes", "bits_per_second", *_OPTIONAL)  # Interval's, in order
_values = operator.attrgetter(*_FIELDS)
_PLAIN = struct.Struct("<ddqd")  # no optional field: TCP receivers, the common case

_set_fields = field_setter(Interval, _FIELDS)


@cache
def _record(flags: int) -> struct.Struct:
    present = "".join(code for bit, code in enumerate(_OPTIONAL_CODES) if flags & (1 << bit))
    return struct.Struct("<" + ("B" if flags & MIXED else "") + "ddqd" + present)


def pack(series: Sequence[Interval]) -> bytes | None:
    """The packed series; None for an empty one (stored as NULL)."""
    return pack_rows(list(map(_values, series)))


def pack_rows(rows: Sequence[Sequence[Any]]) -> bytes | None:
    """pack() from the values of each interval in Interval's field order, unchecked: an
    older store's rows are carried over as they are."""
    if not rows:
        return None
    flags = 0
    mixed = False
    for bit in range(len(_OPTIONAL)):
        known = sum(1 for row in rows if row[4 + bit] is not None)
        if known:
            flags |= 1 << bit
            mixed = mixed or known != len(rows)
    present = [4 + bit for bit in range(len(_OPTIONAL)) if flags & (1 << bit)]
    if mixed:
        flags |= MIXED
    record = _record(flags)
    parts = [_HEADER.pack(LAYOUT, flags)]
    try:
        for row in rows:
            values = [*row[:4], *(0 if row[i] is None else row[i] for i in present)]
            if mixed:
                values.insert(0, sum(1 << (i - 4) for i in present if row[i] is not None))
            parts.append(record.pack(*values))
    except struct.error as error:
        # A count beyond 64 bits, or a fraction where a count belongs: the BIGINT columns
        # of the earlier layout refused those too.
        raise ValueError(f"interval cannot be stored: {error}") from None
    return b"".join(parts)


def unpack(blob: bytes) -> tuple[Interval, ...]:
    """The series packed by pack(), as Interval objects equal to those given."""
    layout, flags = _HEADER.unpack_from(blob)
    if layout != LAYOUT:
        raise ValueError(f"unknown interval layout {layout}: written by a newer wirespeed?")
    body = memoryview(blob)[_HEADER.size :]
    if flags == 0:
        return _plain(body)
    names = _FIELDS[:4] + tuple(n for bit, n in enumerate(_OPTIONAL) if flags & (1 << bit))
    records = _record(flags).iter_unpack(body)
    rows: list[dict[str, Any]] = []
    if flags & MIXED:
        for has, *given in records:
            known = dict(zip(names, given, strict=True))
            for bit, name in enumerate(_OPTIONAL):
                if not has & (1 << bit):
                    known[name] = None
            rows.append(known)
    else:
        absent = dict.fromkeys(n for n in _OPTIONAL if n not in names)
        for values in records:
            known = dict(zip(names, values, strict=True))
            known.update(absent)
            rows.append(known)
    return _intervals(rows)


def plain_records(blob: bytes) -> list[tuple[float, float, int, float]] | None:
    """A series without optional fields (the common layout) as its records' values,
    (start, end, bytes, bits_per_second), checked as Interval checks them; None for any
    other layout (unpack() it). For the reports that write hundreds of thousands of
    intervals and need no object of each."""
    if blob[0] != LAYOUT or blob[1] != 0:
        return None
    body = memoryview(blob)[_HEADER.size :]
    # Interval's checks, column by column in C: its record's 8-byte words are start,
    # end, bytes and bits_per_second.
    floats, counts = body.cast("d"), body.cast("q")
    if any(map(operator.lt, floats[1::4], floats[0::4])) or min(counts[2::4], default=0) < 0:
        for start, end, size, bps in _PLAIN.iter_unpack(body):
            Interval(start, end, size, bps)  # the first that fails raises its own error
    records: list[tuple[float, float, int, float]] = list(_PLAIN.iter_unpack(body))
    return records


def _plain(body: memoryview) -> tuple[Interval, ...]:
    """A series without optional fields (TCP receivers): the common case, built as
    _intervals() does with the dict written out in one go, which takes half the time."""
    new, set_fields = object.__new__, _set_fields
    decoded = []
    for start, end, size, bps in _PLAIN.iter_unpack(body):
        if end < start or size < 0:
            decoded.append(Interval(start, end, size, bps))
            continue
        interval = new(Interval)
        set_fields(
            interval,
            {
                "start": start,
                "end": end,
                "bytes": size,
                "bits_per_second": bps,
                "retransmits": None,
                "jitter_ms": None,
                "lost": None,
                "packets": None,
            },
        )
        decoded.append(interval)
    return tuple(decoded)


def _intervals(rows: Iterable[dict[str, Any]]) -> tuple[Interval, ...]:
    """Interval objects from each one's fields (a fresh dict each, which becomes the
    object's own), made as direct.py says: Interval's check formats the whole interval
    into its message on every call, valid or not."""
    new, set_fields = object.__new__, _set_fields
    decoded = []
    for fields in rows:
        if fields["end"] < fields["start"] or fields["bytes"] < 0:
            decoded.append(Interval(**fields))
            continue
        interval = new(Interval)
        set_fields(interval, fields)
        decoded.append(interval)
    return tuple(decoded)


class Unpacker:
    """unpack() with each distinct value decoded once per load: a series stored twice
    (a single stream's sum is that stream's series) comes back as one shared tuple, which
    costs nothing to build again; the objects are immutable, so sharing them is safe."""

    def __init__(self) -> None:
        self._seen: dict[bytes, tuple[Interval, ...]] = {}

    def __call__(self, blob: bytes | memoryview | None) -> tuple[Interval, ...]:
        if blob is None:
            return ()
        if not isinstance(blob, bytes):
            blob = bytes(blob)  # psycopg2 returns BYTEA as a memoryview
        found = self._seen.get(blob)
        if found is None:
            # The common layout (no optional field) straight to _plain: a run has tens of
            # thousands of series.
            plain = blob[0] == LAYOUT and blob[1] == 0
            found = _plain(memoryview(blob)[_HEADER.size :]) if plain else unpack(blob)
            self._seen[blob] = found
        return found
