"""From per-stream findings of a parser to the normalized Result.

Parsers collect what each stream reported into a StreamDraft; `build_result` sums the
streams of each flow into a DirectionResult. Direction totals are computed from the
streams, not taken from the tools' own [SUM] lines: iperf 2.0.x prints one [SUM] for
several directions without saying which, and the sum of the streams is what both tools
print anyway (bytes added, rates added, the longest stream's duration).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    Measurement,
    Proto,
    Result,
    StreamResult,
    Tool,
    ToolWarning,
    UdpStats,
    WarningKind,
)


@dataclass
class StreamDraft:
    """What one stream of one flow reported, while a parser is still reading."""

    id: int
    flow: Flow
    sent: Measurement | None = None
    received: Measurement | None = None
    retransmits: int | None = None
    udp: UdpStats | None = None
    intervals: list[Interval] = field(default_factory=list)

    def freeze(self) -> StreamResult:
        return StreamResult(
            id=self.id,
            flow=self.flow,
            sent=self.sent,
            received=self.received,
            retransmits=self.retransmits,
            udp=self.udp,
            intervals=tuple(self.intervals),
        )


def sum_measurements(items: Iterable[Measurement | None]) -> Measurement | None:
    known = [m for m in items if m is not None]
    if not known:
        return None
    return Measurement(
        bytes=sum(m.bytes for m in known),
        seconds=max(m.seconds for m in known),
        bits_per_second=sum(m.bits_per_second for m in known),
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
    received_totals: Mapping[Flow, Measurement] | None = None,
) -> Result:
    """received_totals: a flow's receiver total where the tool gives it only per flow."""
    streams = [d.freeze() for d in drafts]
    directions = []
    for flow in (Flow.UP, Flow.DOWN):
        of_flow = [s for s in streams if s.flow is flow]
        if not of_flow:
            continue
        direction = direction_from_streams(flow, of_flow)
        if received_totals and flow in received_totals:
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
