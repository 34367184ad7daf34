"""iperf3's human output of one end to a Result.

Flows: with --bidir each line carries a role, `[TX-C]` (client sends: up), `[RX-C]`,
`[TX-S]` (server sends: down), `[RX-S]`. Otherwise the client says "Reverse mode" for
-R; on the server, a line with a Retr column or no UDP counters on a UDP test is the
sending end. Lines after the `- - -` separator that end in "sender" or "receiver" are
the final summary; a client prints both ends' numbers there.
"""

from __future__ import annotations

import re

from wirespeed.model import Flow, Proto, Result, Side, Tool, ToolWarning, UdpStats, WarningKind
from wirespeed.tools.assemble import StreamDraft, build_result, warning
from wirespeed.tools.iperf2_lines import ReportLine
from wirespeed.tools.textunits import to_bits_per_second, to_bytes
from wirespeed.tools.udpcheck import implausible_counters, udp_warnings

_REPORT = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\](?:\[(?P<role>TX|RX)-(?P<end>[CS])\])?\s+"
    r"(?P<start>\d+(?:\.\d+)?)-(?P<stop>\d+(?:\.\d+)?)\s+sec\s+"
    r"(?P<num>[\d.]+)\s+(?P<unit>[KMGT]?Bytes)\s+"
    r"(?P<rate>[\d.]+)\s+(?P<rate_unit>[KMGT]?bits/sec)(?P<rest>.*)$"
)
_UDP = re.compile(r"(?P<jitter>[\d.]+)\s+ms\s+(?P<lost>\d+)/(?P<total>\d+)\s+(?P<pct>\([^)]*\))")
_RETR = re.compile(r"^\s+(?P<retr>\d+)(?:\s|$)")


def parse_text(text: str, side: Side) -> Result:
    """iperf3 human output of one end (stdout and stderr together) to a Result."""
    protocol = Proto.UDP if ("Datagrams" in text or "Jitter" in text) else Proto.TCP
    reverse = "Reverse mode" in text
    drafts: dict[tuple[int, Flow], StreamDraft] = {}
    warnings: list[ToolWarning] = []
    summary_seen = False
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("iperf3: error") or line.startswith("iperf3: interrupt"):
            kind = WarningKind.CONNECT_FAILED if "connect" in line else WarningKind.TOOL_ERROR
            warnings.append(warning(kind, line))
        elif line.lower().startswith("warning"):
            warnings.append(warning(WarningKind.OTHER, line))
        match = _REPORT.match(line)
        if match is None or match["id"] == "SUM":
            continue
        rest = match["rest"].rstrip()
        final = rest.endswith(("sender", "receiver"))
        summary_seen |= final
        report = ReportLine(
            start=float(match["start"]),
            end=float(match["stop"]),
            bytes=to_bytes(match["num"], match["unit"]),
            bits_per_second=to_bits_per_second(match["rate"], match["rate_unit"]),
        )
        udp = _UDP.search(rest)
        retr = _RETR.match(rest)
        flow = _flow(
            side,
            match,
            reverse=reverse,
            protocol=protocol,
            has_udp_counters=udp is not None,
            has_retransmits=retr is not None,
        )
        stream_id = int(match["id"])
        draft = drafts.setdefault((stream_id, flow), StreamDraft(id=stream_id, flow=flow))
        if not final:
            if udp:
                report.jitter_ms = float(udp["jitter"])
                report.lost, report.total = int(udp["lost"]), int(udp["total"])
            if retr and protocol is Proto.TCP:
                report.retransmits = int(retr["retr"])
            draft.intervals.append(report.interval())
        elif rest.endswith("sender"):
            draft.sent = report.measurement()
            if retr and protocol is Proto.TCP:
                draft.retransmits = int(retr["retr"])
        else:
            draft.received = report.measurement()
            if udp:
                lost, total = int(udp["lost"]), int(udp["total"])
                why = implausible_counters(lost, total, report.end - report.start)
                warnings += udp_warnings(str(stream_id), lost, total, udp["pct"], why)
                if why is None:
                    draft.udp = UdpStats(float(udp["jitter"]), lost, total)
    if drafts and not summary_seen:
        warnings.append(warning(WarningKind.TRUNCATED, "no final summary in the output"))
    return build_result(Tool.IPERF3, protocol, drafts.values(), warnings)


def _flow(
    side: Side,
    match: re.Match[str],
    *,
    reverse: bool,
    protocol: Proto,
    has_udp_counters: bool,
    has_retransmits: bool,
) -> Flow:
    if match["role"]:
        client_sends = (match["role"] == "TX") == (match["end"] == "C")
        return Flow.UP if client_sends else Flow.DOWN
    if side is Side.CLIENT:
        return Flow.DOWN if reverse else Flow.UP
    if protocol is Proto.UDP:
        return Flow.UP if has_udp_counters else Flow.DOWN
    return Flow.DOWN if has_retransmits else Flow.UP
