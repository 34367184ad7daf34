"""iperf2's human output (2.0.x and 2.1.x, with or without -e and -i) to a Result.

Which flow a report line belongs to, in order of trust:

1. Its own columns (2.1.x with -e): `Write/Err` columns are the sending end,
   `Reads=Dist` or `Jitter Lost/Total` columns the receiving end. Client sends = up,
   server sends = down.
2. A star in the ID (2.1.x, `[ *1]`): the thread that carries the reverse (down) flow.
3. Its connection line: `(reverse)` is down; on the client, a socket whose local port is
   the port its own listener printed ("Server listening on TCP port 5001", -d) was opened
   by the server: down; on the server, a socket on its listening port is up, one it
   opened itself (-d) is down. `(full-duplex)` carries both flows on one ID.
4. iperf 2.0.x with -d may report the reverse streams under IDs that no connection line
   announced (the seeds' test #4: connected [6] and [7], reported [8] and [6]). Such an ID
   goes to the flow that has fewer reported streams than connections; failing that, to the
   reverse flow if this end listened for one.

A flow of several streams: iperf2 times each stream from its own start (a thread's
connect), so their rates add up to more than what crossed the wire, by 18 % with -P 128
over 1 GbE. The flow's total is its streams' bytes over the span from the first start to
the last end, which only iperf's own [SUM] line knows: a final [SUM] whose bytes are
those of one flow's streams is that flow's total. (2.0.x does not say a [SUM]'s
direction, and with -d 2.1.8 prints one [SUM] of both flows together: no flow's bytes,
so it is not taken.) A sender's [SUM] may end before its own streams do (2.1.8 stops its
clock when the writes end, its streams when their data has drained): then the span is
the longest stream's. Without a usable [SUM], the total is the bytes over the longest
stream's time (assemble.py). With --sum-only the [SUM-n] lines are all there is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from wirespeed.model import (
    Flow,
    Proto,
    Result,
    Side,
    Tool,
    ToolWarning,
    Transfer,
    UdpStats,
    WarningKind,
)
from wirespeed.tools.assemble import StreamDraft, build_result, warning
from wirespeed.tools.iperf2_lines import FLOW_ROLE, ROLE_FLOW, ReportLine, final_line, sum_lines
from wirespeed.tools.textunits import to_bits_per_second, to_bytes
from wirespeed.tools.udpcheck import implausible_counters, udp_warnings

_CLIENT_BANNER = re.compile(r"^Client connecting to (?P<host>\S+), (?P<proto>TCP|UDP) port (\d+)")
_SERVER_BANNER = re.compile(r"^Server listening on (?P<proto>TCP|UDP) port (?P<port>\d+)")
_CONNECTED = re.compile(
    r"^\[\s*(?P<star>\*?)(?P<id>\d+)\]\s+local\s+\S+\s+port\s+(?P<lport>\d+)\s+"
    r"connected\s+with\s+\S+\s+port\s+(?P<rport>\d+)(?P<rest>.*)$"
)
_REPORT = re.compile(
    r"^\[\s*(?P<star>\*?)(?P<id>\d+|SUM(?:-\d+)?|FD\d+)\]\s+"
    r"(?P<start>\d+(?:\.\d+)?)\s*-\s*(?P<end>\d+(?:\.\d+)?)\s+sec\s+"
    r"(?P<num>[\d.]+)\s+(?P<unit>[KMGT]?Bytes)\s+"
    r"(?P<rate>[\d.]+)\s+(?P<rate_unit>[KMGT]?(?:bits|Bytes)/sec)(?P<rest>.*)$"
)
_UDP_RECEIVED = re.compile(
    r"(?P<jitter>[\d.]+)\s+ms\s+(?P<lost>-?\d+)/\s*(?P<total>-?\d+)\s+(?P<pct>\([^)]*\))"
)
_UDP_SENT = re.compile(r"^\s*\d+/\d+\s+\d+\s+pps")
_TCP_SENT = re.compile(r"^\s*\d+/\d+\s+(?P<retry>\d+)\s")
_TCP_READ = re.compile(r"^\s*\d+=[\d:]+")
_SENT_DATAGRAMS = re.compile(r"^\[\s*\*?(?P<id>\d+)\]\s+Sent\s+(?P<n>\d+)\s+datagrams")
_SERVER_REPORT = re.compile(r"^\[\s*\*?(?P<id>\d+)\]\s+Server Report:")
_OUT_OF_ORDER = re.compile(
    r"^\[\s*\*?(?P<id>\d+)\]\s+[\d.]+\s*-\s*[\d.]+\s+sec\s+"
    r"(?P<n>\d+)\s+datagrams received out-of-order"
)


@dataclass
class _Connection:
    flow: Flow | None  # None: full duplex, both flows on this ID
    no_udp_fin: bool


@dataclass
class _Stream:
    """The report lines of one ID in one flow, as this end measured them."""

    role: str  # "sent" or "received"
    lines: list[ReportLine] = field(default_factory=list)
    server_report: ReportLine | None = None  # the receiver's numbers relayed to a UDP client


@dataclass
class _State:
    side: Side
    protocol: Proto | None = None
    listen_ports: set[int] = field(default_factory=set)
    connections: dict[int, _Connection] = field(default_factory=dict)
    streams: dict[tuple[int, Flow | None], _Stream] = field(default_factory=dict)
    sent_datagrams: dict[int, int] = field(default_factory=dict)
    out_of_order: dict[int, int] = field(default_factory=dict)
    awaiting_server_report: set[int] = field(default_factory=set)
    sums: list[tuple[ReportLine, str | None]] = field(default_factory=list)  # with its role
    warnings: list[ToolWarning] = field(default_factory=list)


def parse_text(text: str, side: Side) -> Result:
    """iperf2 human output of one end (stdout and stderr together) to a Result."""
    state = _State(side=side)
    for raw in text.splitlines():
        _read_line(state, raw.strip())
    protocol = state.protocol or Proto.TCP
    _resolve_unknown_ids(state)
    drafts = [_draft(state, key, stream, protocol) for key, stream in state.streams.items()]
    _check_completeness(state, drafts)
    sent_totals, received_totals = _flow_totals(state, drafts)
    return build_result(
        Tool.IPERF2,
        protocol,
        drafts,
        state.warnings,
        sent_totals=sent_totals,
        received_totals=received_totals,
    )


def _read_line(state: _State, line: str) -> None:
    if match := _CLIENT_BANNER.match(line):
        state.protocol = Proto(match["proto"].lower())
    elif match := _SERVER_BANNER.match(line):
        state.protocol = Proto(match["proto"].lower())
        state.listen_ports.add(int(match["port"]))
    elif match := _CONNECTED.match(line):
        _read_connection(state, match)
    elif match := _REPORT.match(line):
        _read_report(state, match)
    elif match := _SERVER_REPORT.match(line):
        state.awaiting_server_report.add(int(match["id"]))
    elif match := _SENT_DATAGRAMS.match(line):
        state.sent_datagrams[int(match["id"])] = int(match["n"])
    elif match := _OUT_OF_ORDER.match(line):
        state.out_of_order[int(match["id"])] = int(match["n"])
    _read_warning(state, line)


def _read_warning(state: _State, line: str) -> None:
    lowered = line.lower()
    if "warning: requested" in lowered:
        state.warnings.append(warning(WarningKind.WINDOW_ADJUSTED, line))
    elif "ack of last datagram" in lowered:
        state.warnings.append(warning(WarningKind.ACK_OF_LAST_DATAGRAM, line))
        if "did not receive" in lowered:
            state.warnings.append(
                warning(
                    WarningKind.NO_SERVER_REPORT,
                    "the server's report never arrived: loss and received rate are unknown",
                )
            )
    elif "connect failed" in lowered:
        state.warnings.append(warning(WarningKind.CONNECT_FAILED, line))
    elif "bind failed" in lowered or lowered.startswith("error"):
        state.warnings.append(warning(WarningKind.TOOL_ERROR, line))


def _read_connection(state: _State, match: re.Match[str]) -> None:
    rest = match["rest"]
    flow: Flow | None
    if "(full-duplex)" in rest:
        flow = None
    elif "(reverse)" in rest or match["star"]:
        flow = Flow.DOWN
    elif state.side is Side.CLIENT:
        flow = Flow.DOWN if int(match["lport"]) in state.listen_ports else Flow.UP
    else:
        flow = Flow.UP if int(match["lport"]) in state.listen_ports else Flow.DOWN
    state.connections[int(match["id"])] = _Connection(flow, "(no-udp-fin)" in rest)


def _role(line: ReportLine, rest: str) -> str | None:
    """ "sent" or "received" by the columns after the rate (-e), filling in what they say."""
    if udp := _UDP_RECEIVED.search(rest):
        line.jitter_ms = float(udp["jitter"])
        line.lost, line.total = int(udp["lost"]), int(udp["total"])
        line.printed_percent = udp["pct"]
        return "received"
    if _TCP_READ.match(rest):
        return "received"
    if _UDP_SENT.match(rest):
        return "sent"
    if tcp := _TCP_SENT.match(rest):
        line.retransmits = int(tcp["retry"])
        return "sent"
    return None


def _read_report(state: _State, match: re.Match[str]) -> None:
    line = ReportLine(
        start=float(match["start"]),
        end=float(match["end"]),
        bytes=to_bytes(match["num"], match["unit"]),
        bits_per_second=to_bits_per_second(match["rate"], match["rate_unit"]),
    )
    role = _role(line, match["rest"])
    if match["id"].startswith("SUM"):
        state.sums.append((line, role))  # [SUM], --sum-only's [SUM-4]
        return
    if not match["id"].isdigit():
        return  # [FD1]: full duplex's two flows together, each also reported on its own
    stream_id = int(match["id"])

    if stream_id in state.awaiting_server_report:
        state.awaiting_server_report.discard(stream_id)
        # The receiver's numbers for the flow this end sends (on the server: -d's reverse).
        key = (stream_id, ROLE_FLOW[(state.side, "sent")])
        state.streams.setdefault(key, _Stream(role="sent")).server_report = line
        return

    connection = state.connections.get(stream_id)
    flow: Flow | None
    if role is not None:
        flow = ROLE_FLOW[(state.side, role)]
    elif match["star"]:
        flow = Flow.DOWN
    elif connection is not None:
        flow = connection.flow or Flow.UP  # full duplex without -e: the unstarred is up
    else:
        flow = None  # an ID no connection line announced: resolved at the end
    if role is None and flow is not None:
        role = FLOW_ROLE[(state.side, flow)]
    state.streams.setdefault((stream_id, flow), _Stream(role=role or "")).lines.append(line)


def _resolve_unknown_ids(state: _State) -> None:
    unknown = [key for key in state.streams if key[1] is None]
    for key in unknown:
        flow = _flow_missing_a_stream(state) or (
            Flow.DOWN if state.side is Side.CLIENT and state.listen_ports else Flow.UP
        )
        stream = state.streams.pop(key)
        stream.role = FLOW_ROLE[(state.side, flow)]
        state.streams[(key[0], flow)] = stream


def _flow_missing_a_stream(state: _State) -> Flow | None:
    deficits = {}
    for flow in (Flow.UP, Flow.DOWN):
        connected = sum(1 for c in state.connections.values() if c.flow in (flow, None))
        reported = sum(1 for (_, f) in state.streams if f is flow)
        deficits[flow] = connected - reported
    best = max(deficits, key=lambda f: deficits[f])
    return best if deficits[best] > 0 else None


def _draft(
    state: _State, key: tuple[int, Flow | None], stream: _Stream, protocol: Proto
) -> StreamDraft:
    stream_id, flow = key
    assert flow is not None  # resolved by _resolve_unknown_ids
    draft = StreamDraft(id=stream_id, flow=flow)
    final = final_line(stream.lines)
    draft.intervals = [line.interval() for line in stream.lines if line is not final]
    if final is None and stream.lines:
        state.warnings.append(
            warning(
                WarningKind.TRUNCATED,
                f"stream {stream_id} ({flow}): no final report; numbers are the sum of "
                "its interval reports",
            )
        )
        final = sum_lines(stream.lines)
    if final is not None:
        if stream.role == "sent":
            draft.sent = final.measurement()
            draft.retransmits = final.retransmits
        else:
            draft.received = final.measurement()
            draft.udp = _udp_stats(state, stream_id, final, None)
            if protocol is Proto.UDP and _no_udp_fin(state, stream_id):
                _cut_to_traffic(state, draft, stream_id, stream.lines, final)
    if stream.server_report is not None:
        draft.received = stream.server_report.measurement()
        sent = state.sent_datagrams.get(stream_id)
        draft.udp = _udp_stats(state, stream_id, stream.server_report, sent)
    elif (
        protocol is Proto.UDP
        and state.side is Side.CLIENT
        and draft.sent is not None
        and not _no_udp_fin(state, stream_id)
        and not any(w.kind is WarningKind.NO_SERVER_REPORT for w in state.warnings)
    ):
        state.warnings.append(
            warning(
                WarningKind.NO_SERVER_REPORT,
                f"stream {stream_id}: no server report: loss and received rate are unknown",
            )
        )
    return draft


def _cut_to_traffic(
    state: _State, draft: StreamDraft, stream_id: int, lines: list[ReportLine], final: ReportLine
) -> None:
    """A `(no-udp-fin)` receiver (UDP --full-duplex) learns that the test ended from one
    unacknowledged datagram; when it is lost (at saturation, as often as any other), the
    receiver waits about 3 s for it and its final report averages the wait in: 34 of 85
    Mbit/s in tests/fixtures/iperf2/udp-bidir-end-lost. The silent intervals after the
    traffic are dropped and the span ends where the traffic did: in the last interval
    with bytes, after as long as its bytes took at the rate of the interval before it."""
    intervals = sorted((line for line in lines if line is not final), key=lambda line: line.start)
    carrying = [line for line in intervals if line.bytes > 0]
    if not carrying or not any(line.start >= carrying[-1].end - 1e-6 for line in intervals):
        return  # no silence after the traffic: the end datagram arrived
    last = carrying[-1]
    end = last.end
    if len(carrying) > 1 and (before := carrying[-2]).end > before.start:
        rate = before.bytes / (before.end - before.start)
        end = min(last.end, last.start + last.bytes / rate)
    seconds = end - final.start
    if seconds <= 0 or end >= final.end:
        return
    draft.received = Transfer(final.bytes, seconds, final.bytes * 8 / seconds)
    draft.intervals = [line.interval() for line in intervals if line.start < end]
    state.warnings.append(
        warning(
            WarningKind.OTHER,
            f"stream {stream_id}: iperf2's end-of-test datagram was lost (UDP full duplex "
            f"sends one, unacknowledged) and the receiver waited {final.end - end:.1f} s "
            f"for it: its rate is taken over the {seconds:.2f} s the traffic lasted, not "
            f"the {final.end - final.start:.2f} s it printed",
        )
    )


def _no_udp_fin(state: _State, stream_id: int) -> bool:
    connection = state.connections.get(stream_id)
    return connection is not None and connection.no_udp_fin


def _udp_stats(
    state: _State, stream_id: int, line: ReportLine, sent_datagrams: int | None
) -> UdpStats | None:
    if line.lost is None or line.total is None:
        return None
    why = implausible_counters(line.lost, line.total, line.end - line.start, sent_datagrams)
    state.warnings.extend(
        udp_warnings(str(stream_id), line.lost, line.total, line.printed_percent, why)
    )
    if why is not None:
        return None
    return UdpStats(
        jitter_ms=line.jitter_ms,
        lost=line.lost,
        packets=line.total,
        out_of_order=state.out_of_order.get(stream_id),
    )


def _check_completeness(state: _State, drafts: list[StreamDraft]) -> None:
    connect_failed = any(w.kind is WarningKind.CONNECT_FAILED for w in state.warnings)
    if state.connections and not drafts and not connect_failed:
        state.warnings.append(
            warning(WarningKind.TRUNCATED, "connected, but the output ends before any report")
        )
    if state.side is Side.SERVER and state.listen_ports and not state.connections:
        # A UDP server hears of a test from its first datagram: none came.
        state.warnings.append(
            warning(
                WarningKind.OTHER,
                "the server listened, but no connection and no datagram reached it",
            )
        )
    # A client with a listener of its own ran -d: the server should have connected back.
    dual_client = state.side is Side.CLIENT and bool(state.listen_ports)
    if dual_client and drafts and not any(d.flow is Flow.DOWN for d in drafts):
        state.warnings.append(
            warning(
                WarningKind.CONNECT_FAILED,
                "dual test (-d): the server never connected back to the client, so the "
                "down direction is missing (NAT or a firewall in between?)",
            )
        )


# iperf prints bytes in its adaptive units with 3 significant digits ("25.1 MBytes"): a
# [SUM] and the sum of its streams, each rounded, agree within this share.
_ROUNDING = 0.006


def _same_bytes(printed: int, counted: int) -> bool:
    return abs(printed - counted) <= _ROUNDING * max(printed, counted) + 1


def _flow_totals(
    state: _State, drafts: list[StreamDraft]
) -> tuple[dict[Flow, Transfer], dict[Flow, Transfer]]:
    """(sent, received) totals of the flows of several streams, from the final [SUM]."""
    sent: dict[Flow, Transfer] = {}
    received: dict[Flow, Transfer] = {}
    from_zero = [(line, role) for line, role in state.sums if line.start == 0]
    if not drafts:
        _sum_only_totals(state, from_zero, sent, received)
        return sent, received
    # flow -> (role, bytes, longest stream, the final [SUM]s whose bytes are the flow's)
    candidates: dict[Flow, tuple[str, int, float, list[ReportLine]]] = {}
    for flow in {d.flow for d in drafts}:
        role = FLOW_ROLE[(state.side, flow)]
        measured = [
            m
            for d in drafts
            if d.flow is flow and (m := d.sent if role == "sent" else d.received) is not None
        ]
        if len(measured) < 2:
            continue  # one stream's own report is the flow's
        total = sum(m.bytes for m in measured)
        longest = max(m.seconds for m in measured)
        matching = [
            line
            for line, sum_role in from_zero
            if sum_role in (None, role) and _same_bytes(line.bytes, total)
        ]
        candidates[flow] = (role, total, longest, matching)
    for flow, (role, total, longest, sums) in candidates.items():
        # A [SUM] the other flow's bytes match as well (2.0.x -d, both ways alike) could
        # be either's: the sum of the streams it is.
        others = [line for f, c in candidates.items() if f is not flow for line in c[3]]
        own = [line for line in sums if not any(line is o for o in others)]
        if not own:
            continue  # the sum of the streams (assemble.py)
        final = max(own, key=lambda line: line.end)
        span = final.end - final.start
        if span >= longest:
            measurement = Transfer(total, span, final.bits_per_second)
        else:  # the sender's clock stopped before its streams' data had drained
            measurement = Transfer(total, longest, total * 8 / longest)
        (sent if role == "sent" else received)[flow] = measurement
    return sent, received


def _sum_only_totals(
    state: _State,
    from_zero: list[tuple[ReportLine, str | None]],
    sent: dict[Flow, Transfer],
    received: dict[Flow, Transfer],
) -> None:
    """--sum-only: the final [SUM-n] of each role is the flow's figure. Without -e's
    columns, a client's is what it sent, a server's what it received (up)."""
    default = "sent" if state.side is Side.CLIENT else "received"
    by_role: dict[str, list[ReportLine]] = {}
    for line, role in from_zero:
        by_role.setdefault(role or default, []).append(line)
    for role, lines in by_role.items():
        final = max(lines, key=lambda line: line.end)
        flow = ROLE_FLOW[(state.side, role)]
        (sent if role == "sent" else received)[flow] = final.measurement()
