"""A parser's draft of a stream becomes the stream's result field for field."""

from __future__ import annotations

import dataclasses

from wirespeed.model import Flow, Interval, StreamResult, Transfer, UdpStats
from wirespeed.tools.assemble import StreamDraft


def test_a_draft_has_the_fields_of_a_stream_result_in_its_order() -> None:
    # freeze() hands the draft's fields over by name: a field added to one must be
    # added to the other.
    draft = [f.name for f in dataclasses.fields(StreamDraft)]
    assert draft == [f.name for f in dataclasses.fields(StreamResult)]


def test_a_frozen_draft_is_its_stream_and_stays_when_the_draft_grows() -> None:
    first = Interval(0.0, 1.0, 1_000, 8_000.0)
    draft = StreamDraft(
        id=3,
        flow=Flow.UP,
        sent=Transfer(2_000, 2.0, 8_000.0),
        received=Transfer(1_900, 2.0, 7_600.0),
        retransmits=4,
        udp=UdpStats(jitter_ms=0.5, lost=1, packets=20),
        intervals=[first],
    )
    frozen = draft.freeze()
    assert frozen == StreamResult(
        3,
        Flow.UP,
        Transfer(2_000, 2.0, 8_000.0),
        Transfer(1_900, 2.0, 7_600.0),
        4,
        UdpStats(jitter_ms=0.5, lost=1, packets=20),
        (first,),
    )
    draft.intervals.append(Interval(1.0, 2.0, 1_000, 8_000.0))
    assert frozen.intervals == (first,)
