"""A bundle checked whole as store/bundle.py's unpack checks it (its format and version,
its digest, each run's id, each run rebuilt), at the cost of a site of thousands: the
canonical JSON that the digest and the ids are of is not written again where the file
is that JSON, as `wirespeed export` writes it.

The file's digest covers the document's canonical JSON without its digest; where the
file's bytes, the digest's own key and value taken out, have that digest, they are that
JSON, and a run's canonical JSON is a slice of them: its id is the digest of that slice
without its id and what is derived from it (each a small piece, written again to find
its place). Anything else (several runs in one file, a file written otherwise) has its
runs' fields written once each, the run, its content and the document joined from them
as sort_keys joins them. Anything unpack would refuse is left to unpack, which says why.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Iterable
from typing import Any

import orjson

from wirespeed.store.bundle import (
    DERIVED,
    FORMAT,
    MAX_JSON_BYTES,
    VERSION,
    Bundle,
    canonical,
    run_record,
)
from wirespeed.store.records import RunRecord

Json = dict[str, Any]
NOT_CONTENT = (*DERIVED, "id")  # what a run's id is not the digest of (store/bundle.py)
BIG = "trials"  # the field of a run that is most of its bytes: never written again


def read_whole(data: bytes, shown: str) -> tuple[Bundle, tuple[RunRecord, ...]] | None:
    """The bundle in `data` and its runs (numbered 1, 2 ...), if unpack would take it
    whole; None for anything else."""
    try:
        text = _inflated(data)
        if text is None:
            return None
        # orjson reads JSON as json does, twice as fast; what it does not read (integers
        # past 64 bits, NaN) is left to unpack.
        document = orjson.loads(text)
    except (zlib.error, orjson.JSONDecodeError):
        return None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        return None
    version, runs = document.get("version"), document.get("runs")
    if type(version) is not int or not 1 <= version <= VERSION or not isinstance(runs, list):
        return None
    if not all(isinstance(run, dict) for run in runs):
        return None
    said = document.pop("digest", None)
    try:
        ids = _ids_of_canonical_file(text, document, said)
        if ids is None:
            ids = _ids_written_once(document, said)
    except ValueError:  # NaN, which unpack does not take either
        return None
    if ids is None or any(run.get("id") != found for run, found in zip(runs, ids, strict=True)):
        return None
    try:
        records = tuple(run_record(run, number) for number, run in enumerate(runs, start=1))
    except (LookupError, TypeError, ValueError, AttributeError):
        return None
    names, written_by = str(document.get("names")), str(document.get("written_by"))
    return Bundle(shown, tuple(runs), names, written_by), records


def _inflated(data: bytes) -> bytes | None:
    """One whole gzip member, no bigger than unpack takes; None otherwise."""
    inflater = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
    text = inflater.decompress(data, MAX_JSON_BYTES + 1)
    if len(text) > MAX_JSON_BYTES or not inflater.eof or inflater.unused_data:
        return None
    return text


def _ids_of_canonical_file(text: bytes, document: Json, said: object) -> list[str] | None:
    """The run's id worked out from the file's bytes where the file holds one run and is
    the canonical JSON of the document whose digest it says; None where not."""
    runs = document["runs"]
    if len(runs) != 1 or BIG not in runs[0] or not isinstance(said, str):
        return None
    if not text.endswith(b"}\n"):
        return None
    small = {k: _piece(k, v) for k, v in document.items() if k != "runs"}
    keys = sorted(document)
    # The file is the document with its digest's piece among the others, in key order
    # (before the runs': "digest" < "runs").
    mark = _piece("digest", said)
    at = 1 + sum(len(small[k]) + 1 for k in keys if k < "digest")
    end = at + len(mark)
    if text[at:end] != mark or text[end : end + 1] != b",":
        return None
    body = text[:at] + text[end + 1 : -1]
    if _digest(body) != said:
        return None
    # `body` is the canonical JSON of the document: its run is the list's one item.
    start = 1 + sum(len(small[k]) + 1 for k in keys if k < "runs") + len(b'"runs":[')
    stop = len(body) - 2 - sum(len(small[k]) + 1 for k in keys if k > "runs")
    if body[start - len(b'"runs":[') : start] != b'"runs":[' or body[stop : stop + 1] != b"]":
        return None
    found = _id_of_slice(body[start:stop], runs[0])
    return None if found is None else [found]


def _id_of_slice(text: bytes, run: Json) -> str | None:
    """The digest of the run's content, from its canonical JSON: its fields are `text`'s
    slices in key order, each but the big one written again to know its length."""
    keys = sorted(run)
    pieces = {k: _piece(k, v) for k, v in run.items() if k != BIG}
    big = len(text) - 2 - (len(keys) - 1) - sum(len(p) for p in pieces.values())
    at, sliced = 1, {}
    for key in keys:
        length = big if key == BIG else len(pieces[key])
        sliced[key] = text[at : at + length]
        if key != BIG and sliced[key] != pieces[key]:
            return None
        at += length + 1
    if at != len(text) or not text.startswith(b"{") or not text.endswith(b"}"):
        return None
    return _digest(_joined(sliced, (k for k in keys if k not in NOT_CONTENT)))


def _ids_written_once(document: Json, said: object) -> list[str] | None:
    """Each run's id, and the document's digest checked, each field written once."""
    runs_text, ids = [], []
    for run in document["runs"]:
        pieces = {k: _piece(k, v) for k, v in run.items()}
        ids.append(_digest(_joined(pieces, (k for k in pieces if k not in NOT_CONTENT))))
        runs_text.append(_joined(pieces, pieces))
    pieces = {k: _piece(k, v) for k, v in document.items() if k != "runs"}
    pieces["runs"] = canonical("runs") + b":[" + b",".join(runs_text) + b"]"
    return ids if said == _digest(_joined(pieces, pieces)) else None


def _piece(key: str, value: Any) -> bytes:
    """A member of a canonical JSON object: `"key":value`."""
    return canonical(key) + b":" + canonical(value)


def _joined(pieces: dict[str, bytes], keys: Iterable[str]) -> bytes:
    return b"{" + b",".join(pieces[k] for k in sorted(keys)) + b"}"


def _digest(text: bytes) -> str:
    return "sha256:" + hashlib.sha256(text).hexdigest()
