"""Report lines of iperf2 (text or CSV) of one stream, and which is the final one."""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed.model import Flow, Interval, Side, Transfer

ROLE_FLOW = {
    (Side.CLIENT, "sent"): Flow.UP,
    (Side.CLIENT, "received"): Flow.DOWN,
    (Side.SERVER, "received"): Flow.UP,
    (Side.SERVER, "sent"): Flow.DOWN,
}
FLOW_ROLE = {(side, flow): role for (side, role), flow in ROLE_FLOW.items()}


@dataclass
class ReportLine:
    """One report line: an Interval's figures in its order (its packets iperf2's total,
    tests/unit/tools/test_iperf2_lines.py), and the loss % as iperf2 printed it."""

    start: float
    end: float
    bytes: int
    bits_per_second: float
    retransmits: int | None = None
    jitter_ms: float | None = None
    lost: int | None = None
    total: int | None = None
    printed_percent: str = ""

    def interval(self) -> Interval:
        # By position: one call per line of a long run's output, and the order is checked.
        figures = (self.start, self.end, self.bytes, self.bits_per_second, self.retransmits)
        return Interval(*figures, self.jitter_ms, self.lost, self.total)

    def measurement(self) -> Transfer:
        return Transfer(self.bytes, self.end - self.start, self.bits_per_second)


def final_line(lines: list[ReportLine]) -> ReportLine | None:
    """The whole-test report: the last line from 0 that reaches the furthest end.

    With -i the first interval also starts at 0; it is the final one only if nothing
    reaches further (a test no longer than its interval)."""
    if not lines:
        return None
    furthest = max(line.end for line in lines)
    from_zero = [line for line in lines if line.start == 0 and line.end >= furthest - 1e-6]
    return from_zero[-1] if from_zero else None


def sum_lines(lines: list[ReportLine]) -> ReportLine:
    total = sum(line.bytes for line in lines)
    start, end = min(line.start for line in lines), max(line.end for line in lines)
    seconds = end - start
    return ReportLine(start, end, total, total * 8 / seconds if seconds > 0 else 0.0)
