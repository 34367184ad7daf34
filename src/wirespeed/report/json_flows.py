"""A trial's flows, with their streams and interval series, as compact JSON text, fast:
the bulk of a large report's JSON (55 of the 61 MB of a run of 10,000 trials).

json.dumps of a dict per flow, stream and interval took longer than loading the run.
Here each object is one f-string (compiled once, where %-formatting would parse its
template again for each of hundreds of thousands of intervals), and the text is exactly
what json.dumps(..., separators=(",", ":"), allow_nan=False) writes for json_export's
dicts, which stay the definition of the format (the tests compare the two): repr() of an
int or a float is how json writes it, None is null, the flow and side names are plain
words, and NaN or infinity raise ValueError as there.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence

from wirespeed.model import DirectionResult, Flow, Interval, Measurement, UdpStats
from wirespeed.store.packed_intervals import plain_records, unpack
from wirespeed.store.records import PackedDirection

_OPTIONAL = operator.attrgetter("retransmits", "jitter_ms", "lost", "packets")
_NONE = (None, None, None, None)


def _number(value: float | None) -> str:
    return "null" if value is None else repr(value)


def _finite(text: str) -> str:
    """The text, if no number in it is NaN or infinite (repr writes nan, inf): no key,
    flow or side name of these objects contains either."""
    if "nan" in text or "inf" in text:
        raise ValueError("Out of range float values are not JSON compliant")
    return text


def _measurement(m: Measurement | None) -> str:
    if m is None:
        return "null"
    return (
        f'{{"bytes":{m.bytes!r},"seconds":{m.seconds!r},"bits_per_second":{m.bits_per_second!r}}}'
    )


def _udp(u: UdpStats | None) -> str:
    if u is None:
        return "null"
    return (
        f'{{"jitter_ms":{_number(u.jitter_ms)},"lost":{u.lost!r},"packets":{u.packets!r},'
        f'"loss_percent":{_number(u.loss_percent)},"out_of_order":{_number(u.out_of_order)}}}'
    )


def series_json(series: Sequence[Interval]) -> str:
    """An interval series as a JSON array of interval objects."""
    if not series:
        return "[]"
    if set(map(_OPTIONAL, series)) == {_NONE}:  # TCP receivers: the common case
        text = ",".join(
            [
                f'{{"start":{i.start!r},"end":{i.end!r},"bytes":{i.bytes!r},'
                f'"bits_per_second":{i.bits_per_second!r},"retransmits":null,'
                f'"jitter_ms":null,"lost":null,"packets":null}}'
                for i in series
            ]
        )
    else:
        text = ",".join(
            [
                f'{{"start":{i.start!r},"end":{i.end!r},"bytes":{i.bytes!r},'
                f'"bits_per_second":{i.bits_per_second!r},"retransmits":{i.retransmits!r},'
                f'"jitter_ms":{i.jitter_ms!r},"lost":{i.lost!r},"packets":{i.packets!r}}}'
                for i in series
            ]
        ).replace("None", "null")  # no key holds "None": only values become null
    return "[" + _finite(text) + "]"


def _packed(blob: bytes | None) -> str:
    """series_json of a series as the store keeps it."""
    if blob is None:
        return "[]"
    records = plain_records(blob)
    if records is None:  # optional fields: rare, and written from Interval objects
        return series_json(unpack(blob))
    text = ",".join(
        [
            f'{{"start":{start!r},"end":{end!r},"bytes":{size!r},"bits_per_second":{bps!r},'
            f'"retransmits":null,"jitter_ms":null,"lost":null,"packets":null}}'
            for start, end, size, bps in records
        ]
    )
    # Its floats are finite if their sum is (or, rarely, the sum is too large, and the
    # text is searched): cheaper than searching the text of every series.
    floats = memoryview(blob)[2:].cast("d")
    total = sum(floats[0::4]) + sum(floats[1::4]) + sum(floats[3::4])
    return "[" + (text if math.isfinite(total) else _finite(text)) + "]"


class FlowsWriter:
    """Writes flows; a series several objects share (the store's single stream's sum is
    that stream's series) is written once."""

    def __init__(self) -> None:
        self._series: dict[int, str] = {}  # by id(): the report keeps them all alive
        self._packed: dict[bytes | None, str] = {}

    def _series_text(self, intervals: tuple[Interval, ...]) -> str:
        text = self._series.get(id(intervals))
        if text is None:
            text = self._series[id(intervals)] = series_json(intervals)
        return text

    def _packed_text(self, blob: bytes | None) -> str:
        text = self._packed.get(blob)
        if text is None:
            text = self._packed[blob] = _packed(blob)
        return text

    def flows(
        self,
        flows: Sequence[tuple[Flow, DirectionResult | None, PackedDirection | None]],
        out: list[str],
    ) -> None:
        """A trial's flows, as a JSON array, appended to `out` in pieces (the series are
        shared, not copied, until `out` is joined): each direction with its packed
        series if it has them (Report.packed_series), else with its own. Each series'
        numbers are checked when it is written, the rest of the trial's all at once."""
        start = len(out)
        heads: list[str] = []  # every object's text but its series
        out.append("[")
        for flow, d, packed in flows:
            if len(out) > start + 1:
                out.append(",")
            self._flow(flow, d, packed, out, heads)
        out.append("]")
        _finite("".join(heads))

    def _flow(
        self,
        flow: Flow,
        d: DirectionResult | None,
        packed: PackedDirection | None,
        out: list[str],
        heads: list[str],
    ) -> None:
        if d is None:
            out.append(f'{{"flow":"{flow.value}","measured":false}}')
            return
        source = d.goodput_source
        side = "null" if source is None else f'"{source.value}"'
        head = (
            f'{{"flow":"{flow.value}","measured":true,"goodput_bps":{_number(d.goodput_bps)},'
            f'"goodput_source":{side},"sent":{_measurement(d.sent)},'
            f'"received":{_measurement(d.received)},"retransmits":{_number(d.retransmits)},'
            f'"udp":{_udp(d.udp)},"intervals":'
        )
        heads.append(head)
        if packed is None:
            total = self._series_text(d.intervals)
            series = [self._series_text(s.intervals) for s in d.streams]
        else:
            total = self._packed_text(packed[0])
            series = [self._packed_text(blob) for blob in packed[1]]
        out += (head, total, ',"streams":[')
        for number, (s, text) in enumerate(zip(d.streams, series, strict=True)):
            stream_head = (
                f'{"," if number else ""}{{"id":{s.id!r},"sent":{_measurement(s.sent)},'
                f'"received":{_measurement(s.received)},"retransmits":{_number(s.retransmits)},'
                f'"udp":{_udp(s.udp)},"intervals":'
            )
            heads.append(stream_head)
            out += (stream_head, text, "}")
        out.append("]}")
