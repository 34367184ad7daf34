"""From per-stream findings of a parser to the normalized Result.

Parsers collect what each stream reported into a StreamDraft; `build_result` sums the
streams of each flow into a DirectionResult: their bytes added, over the longest
stream's time. Their rates are not added: iperf2 times each stream from its own start,
so with many streams the rates add up to more than what crossed the wire (-P 128 over
1 GbE: 1126 Mbit/s against its own [SUM] of 951). A parser that knows the span of all
the streams together (iperf2's [SUM] line, iperf3's common start) passes the flow's
total in `sent_totals` / `received_totals`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    Proto,
    Result,
    StreamResult,
    Tool,
    ToolWarning,
    Transfer,
    UdpStats,
    WarningKind,
)


@dataclass
class StreamDraft:
    """What one stream of one flow reported, while a parser is still reading: a
    StreamResult's fields, in its order (tests/unit/tools/test_assemble.py), its
    intervals still a list that grows."""

    id: int
    flow: Flow
    sent: Transfer | None = None
    received: Transfer | None = None
    retransmits: int | None = None
    udp: UdpStats | None = None
    intervals: list[Interval] = field(default_factory=list)

    def freeze(self) -> StreamResult:
        return StreamResult(**{**vars(self), "intervals": tuple(self.intervals)})


def sum_measurements(items: Iterable[Transfer | None]) -> Transfer | None:
    """Several streams' figures as one: all their bytes over the longest one's time."""
    known = [m for m in items if m is not None]
    if not known:
        return None
    if len(known) == 1:
        return known[0]
    total = sum(m.bytes for m in known)
    longest = max(m.seconds for m in known)
    return Transfer(
        bytes=total,
        seconds=longest,
        bits_per_second=total * 8 / longest if longest > 0 else 0.0,
    )


def sum_optional(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return sum(known) if known else None


def sum_udp(items: Iterable[UdpStats | None]) -> UdpStats | None:
    known = [u for u in items if u is not None]
    if not known:
        return None
    jitters = [u.jitter_ms for u in known if u.jitter_ms is not None]
    return UdpStats(
        # The worst stream's jitter: averaging would hide the one that suffers.
        jitter_ms=max(jitters) if jitters else None,
        lost=sum(u.lost for u in known),
        packets=sum(u.packets for u in known),
        out_of_order=sum_optional(u.out_of_order for u in known),
    )


def sum_intervals(series: Sequence[Sequence[Interval]]) -> tuple[Interval, ...]:
    """The sum series of several streams: intervals matched by their rounded bounds."""
    if len(series) == 1:
        return tuple(series[0])
    groups: dict[tuple[float, float], list[Interval]] = {}
    for stream in series:
        for interval in stream:
            key = (round(interval.start, 1), round(interval.end, 1))
            groups.setdefault(key, []).append(interval)
    summed = []
    for (start, end), items in sorted(groups.items()):
        jitters = [i.jitter_ms for i in items if i.jitter_ms is not None]
        summed.append(
            Interval(
                start=start,
                end=end,
                bytes=sum(i.bytes for i in items),
                bits_per_second=sum(i.bits_per_second for i in items),
                retransmits=sum_optional(i.retransmits for i in items),
                jitter_ms=max(jitters) if jitters else None,
                lost=sum_optional(i.lost for i in items),
                packets=sum_optional(i.packets for i in items),
            )
        )
    return tuple(summed)


def direction_from_streams(flow: Flow, streams: Sequence[StreamResult]) -> DirectionResult:
    return DirectionResult(
        flow=flow,
        sent=sum_measurements(s.sent for s in streams),
        received=sum_measurements(s.received for s in streams),
        retransmits=sum_optional(s.retransmits for s in streams),
        udp=sum_udp(s.udp for s in streams),
        streams=tuple(streams),
        intervals=sum_intervals([s.intervals for s in streams if s.intervals]),
    )


def dedupe_warnings(warnings: Iterable[ToolWarning]) -> tuple[ToolWarning, ...]:
    return tuple(dict.fromkeys(warnings))


def build_result(
    tool: Tool,
    protocol: Proto,
    drafts: Iterable[StreamDraft],
    warnings: Iterable[ToolWarning],
    *,
    tool_version: str | None = None,
    sent_totals: Mapping[Flow, Transfer] | None = None,
    received_totals: Mapping[Flow, Transfer] | None = None,
) -> Result:
    """sent_totals, received_totals: a flow's total as the tool gives it for the flow as
    a whole (over the span of all its streams), which wins over the sum of its streams.
    A flow with a total and no stream (iperf2 --sum-only) still gets its direction."""
    streams = [d.freeze() for d in drafts]
    sent_totals = sent_totals or {}
    received_totals = received_totals or {}
    directions = []
    for flow in (Flow.UP, Flow.DOWN):
        of_flow = [s for s in streams if s.flow is flow]
        if not of_flow and flow not in sent_totals and flow not in received_totals:
            continue
        direction = direction_from_streams(flow, of_flow)
        if flow in sent_totals:
            direction = replace(direction, sent=sent_totals[flow])
        if flow in received_totals:
            direction = replace(direction, received=received_totals[flow])
        directions.append(direction)
    return Result(
        tool=tool,
        protocol=protocol,
        directions=tuple(directions),
        warnings=dedupe_warnings(warnings),
        tool_version=tool_version,
    )


def warning(kind: WarningKind, message: str) -> ToolWarning:
    return ToolWarning(kind=kind, message=message.strip())
