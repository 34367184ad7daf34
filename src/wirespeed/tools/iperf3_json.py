"""iperf3's JSON output (-J) of one end to a Result.

Which flow a stream carries: every stream record says whether *this* end sends on it
(`"sender": true`); the client sending is up, the server sending is down. (The `sender`
flags of 3.12's `sum_*` records are not reliable for UDP, so totals are summed from the
streams.) The client learns the server's numbers at the end of the test; the server's
JSON holds zeros for the client's half, which are dropped here.

TCP: each stream's end record has the sender's and the receiver's numbers.
UDP: the stream's record has the sender's bytes and rate, and the receiver's jitter and
counters; the receiver's bytes and rate appear only in `sum_received*`, per direction.
"""

from __future__ import annotations

import json
from typing import Any

from wirespeed.model import (
    Flow,
    Interval,
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
from wirespeed.tools.udpcheck import implausible_counters

JsonObject = dict[str, Any]


def load_json(text: str) -> JsonObject | None:
    """The JSON object in iperf3's output; warnings printed before it are skipped."""
    start = text.find("{")
    if start < 0:
        return None
    try:
        value, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def leading_warnings(text: str) -> list[ToolWarning]:
    """Lines iperf3 prints before its JSON, e.g. 'warning: Block size 32768 > sending
    socket buffer size 8192'."""
    head = text[: max(text.find("{"), 0)]
    found = []
    for line in head.splitlines():
        if line.strip().lower().startswith(("warning", "iperf3: error")):
            found.append(warning(WarningKind.OTHER, line))
    return found


def _flow(side: Side, *, this_end_sends: bool) -> Flow:
    return Flow.UP if (side is Side.CLIENT) == this_end_sends else Flow.DOWN


def _measurement(record: JsonObject) -> Transfer:
    return Transfer(
        bytes=int(record["bytes"]),
        seconds=float(record["seconds"]),
        bits_per_second=float(record["bits_per_second"]),
    )


def _interval(record: JsonObject) -> Interval:
    return Interval(
        start=float(record["start"]),
        end=float(record["end"]),
        bytes=int(record["bytes"]),
        bits_per_second=float(record["bits_per_second"]),
        retransmits=record.get("retransmits"),
        jitter_ms=record.get("jitter_ms"),
        lost=record.get("lost_packets"),
        packets=record.get("packets") if "lost_packets" in record else None,
    )


def parse_json(text: str, side: Side) -> Result:
    """iperf3 -J output of one end to a Result. iperf3 3.12 exits 0 on errors: the
    "error" key is what tells.

    JSON of another shape than iperf3's (edited, or another program's: `"end": []`, a
    number as a string of letters) holds no measurement, with a warning that says so."""
    data = load_json(text)
    warnings = leading_warnings(text)
    if data is None:
        warnings.append(warning(WarningKind.TRUNCATED, "no complete JSON object in the output"))
        return build_result(Tool.IPERF3, Proto.TCP, [], warnings)
    try:
        return _parse_object(data, side, warnings)
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        # ModelError (a negative byte count) is a ValueError too.
        why = f"no {error} key" if isinstance(error, KeyError) else str(error)
        message = f"the JSON does not have the shape of iperf3's -J output ({why})"
        return build_result(
            Tool.IPERF3, Proto.TCP, [], [*warnings, warning(WarningKind.OTHER, message)]
        )


def _parse_object(data: JsonObject, side: Side, warnings: list[ToolWarning]) -> Result:
    start = data.get("start", {})
    test_start = start.get("test_start", {})
    protocol = Proto.UDP if test_start.get("protocol") == "UDP" else Proto.TCP
    version = str(start.get("version", "")).removeprefix("iperf ") or None
    if error := data.get("error"):
        kind = WarningKind.CONNECT_FAILED if "connect" in error else WarningKind.TOOL_ERROR
        warnings.append(warning(kind, f"iperf3: {error}"))
    _window_warning(start, warnings)

    drafts: dict[int, StreamDraft] = {}
    for stream in data.get("end", {}).get("streams", []):
        draft = _end_stream(stream, side, warnings)
        drafts[draft.id] = draft
    for interval in data.get("intervals", []):
        for record in interval.get("streams", []):
            if record.get("omitted"):
                continue
            socket = int(record["socket"])
            flow = _flow(side, this_end_sends=bool(record.get("sender")))
            drafts.setdefault(socket, StreamDraft(id=socket, flow=flow))
            drafts[socket].intervals.append(_interval(record))
    if data.get("intervals") and not data.get("end", {}).get("streams") and not error:
        warnings.append(warning(WarningKind.TRUNCATED, "no end summary in the JSON"))
    totals = _received_totals(data, side, test_start)
    for flow, total in totals.items():
        streams = [d for d in drafts.values() if d.flow is flow]
        if protocol is Proto.UDP and len(streams) == 1:
            streams[0].received = total
    return build_result(
        Tool.IPERF3,
        protocol,
        drafts.values(),
        warnings,
        tool_version=version,
        received_totals=totals,
    )


def _window_warning(start: JsonObject, warnings: list[ToolWarning]) -> None:
    requested = start.get("sock_bufsize") or 0
    actual = [start.get("sndbuf_actual"), start.get("rcvbuf_actual")]
    if requested and any(a is not None and a != requested for a in actual):
        warnings.append(
            warning(
                WarningKind.WINDOW_ADJUSTED,
                f"requested a {requested} byte socket buffer, got send "
                f"{actual[0]} / receive {actual[1]} bytes",
            )
        )


def _end_stream(stream: JsonObject, side: Side, warnings: list[ToolWarning]) -> StreamDraft:
    if "udp" in stream:
        udp = stream["udp"]
        sends = bool(udp.get("sender"))
        draft = StreamDraft(id=int(udp["socket"]), flow=_flow(side, this_end_sends=sends))
        # The sender's half is known to the client always, to the server only if it sent.
        if sends or side is Side.CLIENT:
            draft.sent = _measurement(udp)
        # The receiver's counters: known to the client always, to the server if it received.
        if not sends or side is Side.CLIENT:
            lost, packets = int(udp.get("lost_packets", 0)), int(udp.get("packets", 0))
            why = implausible_counters(lost, packets, float(udp.get("seconds", 0)))
            if why is not None:
                warnings.append(warning(WarningKind.IMPLAUSIBLE_COUNTERS, why))
            else:
                draft.udp = UdpStats(
                    jitter_ms=udp.get("jitter_ms"),
                    lost=lost,
                    packets=packets,
                    out_of_order=udp.get("out_of_order"),
                )
        return draft
    sender, receiver = stream["sender"], stream["receiver"]
    sends = bool(sender.get("sender"))
    draft = StreamDraft(id=int(sender["socket"]), flow=_flow(side, this_end_sends=sends))
    if sends or side is Side.CLIENT:
        draft.sent = _measurement(sender)
        draft.retransmits = sender.get("retransmits")
    if not sends or side is Side.CLIENT:
        draft.received = _measurement(receiver)
    return draft


def _received_totals(data: JsonObject, side: Side, test_start: JsonObject) -> dict[Flow, Transfer]:
    """Receiver bytes and rate per flow, from `sum_received*`: UDP gives them per flow
    only; TCP per stream too, but a client's copy of a stream's receiver record has the
    client's seconds (2.000116 for the server's 2.015455), the sum the server's own.

    The non-suffixed sum belongs to the test's main direction (down with -R), the
    `_bidir_reverse` one to the other."""
    end = data.get("end", {})
    main = Flow.DOWN if test_start.get("reverse") else Flow.UP
    other = Flow.UP if main is Flow.DOWN else Flow.DOWN
    totals = {}
    for key, flow in (("sum_received", main), ("sum_received_bidir_reverse", other)):
        record = end.get(key)
        this_end_receives = _flow(side, this_end_sends=False) is flow
        # The server's copy of the client's half is zeros.
        if record and (this_end_receives or side is Side.CLIENT):
            totals[flow] = _measurement(record)
    return totals
