"""Interval series as JSON text, by orjson: the bulk of a large report's JSON (55 of the
61 MB of a run of 10,000 trials).

A series is written once however many objects hold it (the store's single stream's sum
is that stream's series) and put in the report as a Fragment, text orjson copies as it
is. A series the store keeps packed is written from its records, without an Interval
object of each; it is looked at in C (the sum of its floats, the text written), and only
a series with a NaN, an infinity or a float orjson writes otherwise than json (json_text)
is written again the careful way, from Interval objects.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import orjson

from wirespeed.model import Interval
from wirespeed.report.json_text import Fragment, OrjsonRefused, compact, orjson_text
from wirespeed.store.records import series_rows, unpack_series


def interval_entry(i: Interval) -> dict[str, Any]:
    """An interval as the report's JSON holds it."""
    return {
        "start": i.start,
        "end": i.end,
        "bytes": i.bytes,
        "bits_per_second": i.bits_per_second,
        "retransmits": i.retransmits,
        "jitter_ms": i.jitter_ms,
        "lost": i.lost,
        "packets": i.packets,
    }


def series_json(series: Sequence[Interval]) -> str:
    """An interval series as a JSON array of interval objects, compact."""
    return compact([interval_entry(i) for i in series])


def _objects_text(series: Sequence[Interval]) -> bytes:
    dicts = [interval_entry(i) for i in series]
    try:
        return orjson_text(dicts)
    except OrjsonRefused:  # a count beyond 64 bits: not from a store, which keeps 64
        return compact(dicts).encode()


def _packed_text(blob: bytes | None) -> bytes:
    """The text of a series as the store keeps it."""
    if blob is None:
        return b"[]"
    records = series_rows(blob)
    if records is None:  # optional fields: rare, and written from Interval objects
        return _objects_text(unpack_series(blob))
    # NaN or an infinity: orjson would write null. The sum of every 8-byte word as a
    # float is finite if they are (the bytes column's whole numbers read as floats are
    # tiny, or at worst send a series the careful way for nothing).
    if not math.isfinite(sum(memoryview(blob)[2:].cast("d"))):
        return _objects_text(unpack_series(blob))
    text = orjson.dumps(
        [
            {
                "start": start,
                "end": end,
                "bytes": size,
                "bits_per_second": bps,
                "retransmits": None,
                "jitter_ms": None,
                "lost": None,
                "packets": None,
            }
            for start, end, size, bps in records
        ]
    )
    # A float orjson writes otherwise than json (0.00001, 1e-7): a series has no string,
    # so either text in it is one.
    if b"0.0000" in text or b"e-" in text:
        return _objects_text(unpack_series(blob))
    return text


class SeriesWriter:
    """A series as a Fragment of its JSON text, from its Interval objects or as the store
    packs it; each distinct series is written once."""

    def __init__(self) -> None:
        self._objects: dict[int, Fragment] = {}  # by id(): the report keeps them alive
        self._packed: dict[bytes | None, Fragment] = {}

    def __call__(self, series: tuple[Interval, ...] | bytes | None) -> Fragment:
        if isinstance(series, tuple):
            text = self._objects.get(id(series))
            if text is None:
                text = self._objects[id(series)] = Fragment(_objects_text(series))
            return text
        text = self._packed.get(series)
        if text is None:
            text = self._packed[series] = Fragment(_packed_text(series))
        return text
