"""iperf2's CSV output (-y C) to a Result.

A line: time, address, port, address, port, ID, interval, bytes, bit/s and, for UDP,
jitter (ms), lost, total, loss %, out-of-order. Exact integers, unlike the text output.

iperf 2.1 prints the addresses in the direction the data flows (sender first) on both
ends, and the port the client connected to appears on every line of a test. A line whose
data goes to that port is up; a line whose data comes from it, or goes to the client's
own listener (-d), is down. With a single stream both ports appear equally often: the
lower one is taken for the server's. The two directions of a -d test cannot be told apart when
both ends listen on the same port number (the default): use the text output for -d.
The UDP sender never prints the receiver's counters (its final line has total -1):
loss and jitter come from the server's CSV (LIMITS.md).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from wirespeed.model import Flow, Proto, Result, Side, Tool, UdpStats
from wirespeed.tools.assemble import StreamDraft, build_result
from wirespeed.tools.iperf2_lines import FLOW_ROLE, ReportLine, final_line, sum_lines
from wirespeed.tools.udpcheck import implausible_counters, udp_warnings

CSV_LINE = re.compile(r"^\d{14}(?:\.\d+)?,[^,]*,\d+,[^,]*,\d+,-?\d+,")


@dataclass(frozen=True)
class _Row:
    src_port: int
    dst_port: int
    stream_id: int
    line: ReportLine
    out_of_order: int | None


def _row(fields: list[str]) -> _Row | None:
    if len(fields) < 9:
        return None
    start, _, end = fields[6].partition("-")
    line = ReportLine(float(start), float(end), int(fields[7]), float(fields[8]))
    out_of_order = None
    if len(fields) >= 13:
        line.jitter_ms, line.lost, line.total = float(fields[9]), int(fields[10]), int(fields[11])
        line.printed_percent = fields[12]
        out_of_order = int(fields[13]) if len(fields) >= 14 else None
    return _Row(int(fields[2]), int(fields[4]), int(fields[5]), line, out_of_order)


def parse_csv(text: str, side: Side) -> Result:
    """iperf2 -y C output of one end to a Result."""
    rows = [
        row
        for raw in text.splitlines()
        if CSV_LINE.match(raw.strip()) and (row := _row(raw.strip().split(","))) is not None
    ]
    protocol = Proto.UDP if any(r.line.total is not None for r in rows) else Proto.TCP
    ports = Counter(p for r in rows for p in {r.src_port, r.dst_port})
    # On a tie (one stream), the lower port: the server's is chosen (5001), the client's
    # is ephemeral (32768 and up on Linux).
    server_port = min(ports, key=lambda port: (-ports[port], port)) if ports else 0
    grouped: dict[tuple[int, Flow], list[_Row]] = {}
    for row in rows:
        up = row.dst_port == server_port and row.src_port != server_port
        grouped.setdefault((row.stream_id, Flow.UP if up else Flow.DOWN), []).append(row)
    drafts, warnings = [], []
    for (stream_id, flow), stream_rows in grouped.items():
        role = FLOW_ROLE[(side, flow)]
        lines = [r.line for r in stream_rows]
        if role == "sent":
            for line in lines:  # a sender's counters are what it sent, not a loss report
                line.jitter_ms = line.lost = line.total = None
        final = final_line(lines) or sum_lines(lines)
        draft = StreamDraft(id=stream_id, flow=flow)
        draft.intervals = [line.interval() for line in lines if line is not final]
        if role == "sent":
            draft.sent = final.measurement()
        else:
            draft.received = final.measurement()
            if final.lost is not None and final.total is not None:
                why = implausible_counters(final.lost, final.total, final.end - final.start)
                warnings += udp_warnings(
                    str(stream_id), final.lost, final.total, final.printed_percent, why
                )
                if why is None:
                    draft.udp = UdpStats(
                        jitter_ms=final.jitter_ms,
                        lost=final.lost,
                        packets=final.total,
                        out_of_order=stream_rows[-1].out_of_order,
                    )
        drafts.append(draft)
    return build_result(Tool.IPERF2, protocol, drafts, warnings)
