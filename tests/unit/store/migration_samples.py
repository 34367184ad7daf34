"""Runs whose intervals exercise every corner of a store's interval layout: sums and
streams, UDP counters, retransmits on some intervals only, negative and 64-bit counters,
times that are not round, series of one interval and none. The fixture
`fixtures/store-v1.sql` holds them as schema version 1 stored them."""

from __future__ import annotations

import dataclasses

from store_samples import (
    BR0,
    DUAL_TCP,
    INFO,
    WAN,
    dual_outcome,
    failed_outcome,
    udp_outcome_with_loss,
)

from wirespeed.model import (
    DirectionResult,
    Finding,
    FindingKind,
    Flow,
    Interval,
    MonitorRecord,
    Proto,
    Result,
    StreamResult,
    TestCase,
    TestSpec,
    Tool,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.store import RunInfo, RunStatus

TCP3 = TestCase(id="#1", name="TCP up", tool=Tool.IPERF3, spec=TestSpec(duration=10))

# Retransmits on the first and last interval only, as a sender's series may report them.
MIXED = (
    Interval(start=0.0, end=0.1 + 0.2, bytes=0, bits_per_second=0.0, retransmits=3),
    Interval(start=0.1 + 0.2, end=1.0000000000000002, bytes=1, bits_per_second=5e-324),
    Interval(
        start=1.0000000000000002,
        end=2.5,
        bytes=2**63 - 1,
        bits_per_second=1.7976931348623157e308,
        retransmits=0,
        jitter_ms=0.0,
        lost=-4,  # iperf2 counts reordered datagrams as negative loss
        packets=2**40,
    ),
)


def odd_intervals_outcome() -> TrialOutcome:
    stream = StreamResult(
        id=5,
        flow=Flow.UP,
        sent=Transfer(bytes=1_250_000_000, seconds=10.0, bits_per_second=1e9),
        retransmits=17,
        intervals=MIXED,
    )
    single = StreamResult(
        id=7,
        flow=Flow.DOWN,
        received=Transfer(bytes=10, seconds=10.0, bits_per_second=8.0),
        intervals=(Interval(start=9.5, end=9.5, bytes=10, bits_per_second=8.0, jitter_ms=1.25),),
    )
    return TrialOutcome(
        trial=Trial(test=TCP3, path=WAN, variant="irq-a72", repetition=3),
        status=TrialStatus.OK,
        started_at=1607547000.123456789,
        finished_at=1607547010.987654321,
        result=Result(
            tool=Tool.IPERF3,
            protocol=Proto.TCP,
            directions=(
                # A sum series that is its one stream's (as iperf3 reports one stream).
                DirectionResult(
                    flow=Flow.UP,
                    sent=stream.sent,
                    retransmits=17,
                    streams=(stream,),
                    intervals=MIXED,
                ),
                # No sum series, one stream with one.
                DirectionResult(flow=Flow.DOWN, received=single.received, streams=(single,)),
            ),
            tool_version="3.12",
        ),
        findings=(Finding(FindingKind.LINE_RATE, "at line rate", Flow.UP),),
        monitors=(
            MonitorRecord(
                host="r4s",
                role="dut",
                interval=0.1,
                raw="t 1\n",
                summary="",  # the stream held nothing to summarize
                partial=True,
                reason="the host went away",
            ),
        ),
    )


def summary_only_outcome() -> TrialOutcome:
    """A result with no interval series at all (an import of a summary line)."""
    base = dual_outcome(BR0, repetition=2)
    assert base.result is not None
    directions = tuple(
        dataclasses.replace(
            d,
            intervals=(),
            streams=tuple(dataclasses.replace(s, intervals=()) for s in d.streams),
        )
        for d in base.result.directions
    )
    return dataclasses.replace(base, result=dataclasses.replace(base.result, directions=directions))


@dataclasses.dataclass(frozen=True)
class SampleRun:
    info: RunInfo
    outcomes: tuple[TrialOutcome, ...]
    status: RunStatus
    finished_at: float | None


RUNS = (
    SampleRun(
        info=INFO,
        outcomes=(
            dual_outcome(),
            udp_outcome_with_loss(),
            failed_outcome(),
            odd_intervals_outcome(),
            summary_only_outcome(),
        ),
        status=RunStatus.COMPLETE,
        finished_at=1607548000.5,
    ),
    # A run that died half-way: status running, no finish time.
    SampleRun(
        info=RunInfo(title="R2S", started_at=1607600000.0, argv=("wirespeed", "run")),
        outcomes=(
            dual_outcome(WAN, repetition=1),
            TrialOutcome(
                trial=Trial(test=DUAL_TCP, path=WAN, repetition=2),
                status=TrialStatus.FAILED,
                started_at=1607600200.0,
                finished_at=1607600201.0,
                reason="killed",
            ),
        ),
        status=RunStatus.RUNNING,
        finished_at=None,
    ),
)
