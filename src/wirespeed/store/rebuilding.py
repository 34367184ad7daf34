"""The model's objects rebuilt from a loaded run's rows, fast: a run of 10,000 trials is
hundreds of thousands of them (loading.py reads the rows).

Each object is made as direct.py says, after the checks its class would make; a value
they refuse goes through the class, which raises its own error. Enumerations are looked
up by stored value, and each distinct JSON text of a spec or a path is decoded once.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    PathSpec,
    Proto,
    RawOutput,
    Result,
    Side,
    StreamResult,
    TestSpec,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
    UdpStats,
)
from wirespeed.store import codec, packed_intervals, schema
from wirespeed.store.direct import field_setter
from wirespeed.store.records import PackedDirection

T = TypeVar("T")

# The result columns rebuild_directions reads, by position (loading.py selects them); with
# the intervals, their packed series last.
RESULT_COLUMNS = tuple(
    schema.results.c[name]
    for name in (
        "id",
        "trial_id",
        "parent_id",
        "flow",
        "stream_id",
        "sent_bytes",
        "sent_seconds",
        "sent_bps",
        "received_bytes",
        "received_seconds",
        "received_bps",
        "retransmits",
        "has_udp",
        "jitter_ms",
        "lost",
        "packets",
        "out_of_order",
    )
)


class Decoded:
    """Decodes each distinct JSON text once: a run's trials repeat a handful of specs and
    paths thousands of times, and the model objects are immutable, so they are shared."""

    def __init__(self) -> None:
        self._specs: dict[str, TestSpec] = {}
        self._paths: dict[str, PathSpec] = {}

    def spec(self, text: str) -> TestSpec:
        found = self._specs.get(text)
        if found is None:
            found = self._specs[text] = codec.decode_spec(json.loads(text))
        return found

    def path(self, text: str) -> PathSpec:
        found = self._paths.get(text)
        if found is None:
            found = self._paths[text] = codec.decode_path(json.loads(text))
        return found


# Enumerations by stored value: a dict lookup, where calling the class costs ten times
# more, 10,000 times a run. Unknown values go through the class, which says what is wrong.
FLOWS = {flow.value: flow for flow in Flow}
PROTOCOLS = {protocol.value: protocol for protocol in Proto}
STATUSES = {status.value: status for status in TrialStatus}

# The loader makes these as direct.py says: 65,000 measurements, 33,000 directions and
# streams, and 10,000 of each of the rest in a run of 10,000 trials.
_set_measurement = field_setter(Transfer, ("bytes", "seconds", "bits_per_second"))
_SHARED = ("flow", "sent", "received", "retransmits", "udp")
_set_stream = field_setter(StreamResult, ("id", *_SHARED, "intervals"))
_set_direction = field_setter(DirectionResult, (*_SHARED, "streams", "intervals"))
set_result = field_setter(
    Result, ("tool", "protocol", "directions", "warnings", "tool_version", "measurements")
)
set_trial = field_setter(Trial, ("test", "path", "variant", "repetition"))
set_outcome = field_setter(
    TrialOutcome,
    (
        "trial",
        "status",
        "started_at",
        "finished_at",
        "result",
        "reason",
        "raw",
        "monitors",
        "findings",
    ),
)
new = object.__new__


def raw_output(row: Mapping[str, Any]) -> RawOutput:
    """codec.decode_raw, made as direct.py says: 20,000 of them in a run of 10,000."""
    side = _SIDES.get(row["side"])
    if side is None:
        return codec.decode_raw(row)  # which says what is wrong
    raw = new(RawOutput)
    _set_raw(
        raw,
        {
            "host": row["host"],
            "side": side,
            "argv": tuple(row["argv"]),
            "format": row["format"],
            "text": row["text"],
            "stderr": row["stderr"],
            "exit_status": row["exit_status"],
        },
    )
    return raw


_SIDES = {side.value: side for side in Side}
_set_raw = field_setter(
    RawOutput, ("host", "side", "argv", "format", "text", "stderr", "exit_status")
)


def each(
    grouped: dict[int, list[Mapping[str, Any]]], trial_id: int, decode: Callable[[Any], T]
) -> tuple[T, ...]:
    """A trial's rows of a per-trial table, decoded; most trials have none of most."""
    rows = grouped.get(trial_id)
    return () if rows is None else tuple(map(decode, rows))


def measurement(size: int | None, seconds: float, bps: float) -> Transfer | None:
    if size is None:
        return None
    if size < 0 or seconds < 0:  # Transfer's own checks: let it raise its error
        return Transfer(bytes=size, seconds=seconds, bits_per_second=bps)
    made = new(Transfer)
    _set_measurement(made, {"bytes": size, "seconds": seconds, "bits_per_second": bps})
    return made


def packed_directions(rows: list[Sequence[Any]]) -> tuple[PackedDirection, ...]:
    """The packed series of a result's rows (in RESULT_COLUMNS order, the series last),
    per direction as RunRecord.packed has them."""
    sums: list[bytes | None] = []
    streams: dict[int, list[bytes | None]] = {}
    for row in rows:
        blob = None if row[17] is None else bytes(row[17])  # psycopg2: a memoryview
        if row[2] is None:  # parent_id: a direction's row, before its streams'
            sums.append(blob)
            streams[row[0]] = []
        else:
            streams[row[2]].append(blob)
    return tuple(
        (total, tuple(of_direction))
        for total, of_direction in zip(sums, streams.values(), strict=True)
    )


def rebuild_directions(
    rows: list[Sequence[Any]], unpack: packed_intervals.Unpacker | None
) -> tuple[DirectionResult, ...]:
    """A result's directions from its rows in RESULT_COLUMNS order (by position: each
    direction before its streams); unpack None: without their interval series."""
    directions: list[tuple[int, dict[str, Any], tuple[Interval, ...]]] = []
    streams_of: dict[int, list[StreamResult]] = defaultdict(list)
    for row in rows:
        (
            row_id,
            _trial_id,
            parent_id,
            flow,
            stream_id,
            sent_bytes,
            sent_seconds,
            sent_bps,
            received_bytes,
            received_seconds,
            received_bps,
            retransmits,
            has_udp,
            jitter_ms,
            lost,
            packets,
            out_of_order,
        ) = row[:17]
        shared = {
            "flow": FLOWS.get(flow) or codec.decode_flow(flow),
            "sent": measurement(sent_bytes, sent_seconds, sent_bps),
            "received": measurement(received_bytes, received_seconds, received_bps),
            "retransmits": retransmits,
            "udp": UdpStats(jitter_ms, lost, packets, out_of_order) if has_udp else None,
        }
        intervals = () if unpack is None else unpack(row[17])
        if parent_id is None:
            directions.append((row_id, shared, intervals))
        else:
            stream = new(StreamResult)
            _set_stream(stream, {"id": stream_id, **shared, "intervals": intervals})
            streams_of[parent_id].append(stream)
    rebuilt = []
    for row_id, shared, intervals in directions:
        direction = new(DirectionResult)
        streams = tuple(streams_of.get(row_id, ()))
        _set_direction(direction, {**shared, "streams": streams, "intervals": intervals})
        rebuilt.append(direction)
    return tuple(rebuilt)
