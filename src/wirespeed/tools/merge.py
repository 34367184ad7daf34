"""One Result per test from what the client and the server printed.

Each number comes from the end that measured it: what was sent from the sending end
(the client for up, the server for down), what arrived, the UDP loss and jitter, and the
interval series (goodput over time) from the receiving end. The other end's copy fills
in only where the measuring end printed nothing (an iperf2 UDP client's "Server Report",
an iperf3 client's copy of the server's numbers).

Streams are paired by ID only when both ends report the same IDs: iperf2 numbers its
threads per process, so the server's [3] may be the client's [1] (see the -d captures).
Otherwise the receiving end's streams are kept.
"""

from __future__ import annotations

from dataclasses import replace

from wirespeed.model import DirectionResult, Flow, Result, StreamResult, WarningKind
from wirespeed.tools.assemble import dedupe_warnings, warning

# A receiver whose report covers much less time than the sender's stopped early (killed,
# crashed, or lost the end of the test); its numbers are not the test's.
SHORT_REPORT_RATIO = 0.8


def merge(client: Result, server: Result | None) -> Result:
    if server is None:
        return client
    directions = []
    for flow in (Flow.UP, Flow.DOWN):
        from_client, from_server = client.direction(flow), server.direction(flow)
        sender, receiver = (
            (from_client, from_server) if flow is Flow.UP else (from_server, from_client)
        )
        merged = _merge_direction(flow, sender, receiver)
        if merged is not None:
            directions.append(merged)
    warnings = [*client.warnings, *server.warnings]
    for direction in directions:
        sent, received = direction.sent, direction.received
        if sent and received and received.seconds < SHORT_REPORT_RATIO * sent.seconds:
            warnings.append(
                warning(
                    WarningKind.TRUNCATED,
                    f"{direction.flow}: the receiver's report covers {received.seconds:g} s "
                    f"of the sender's {sent.seconds:g} s",
                )
            )
    return Result(
        tool=client.tool,
        protocol=client.protocol,
        directions=tuple(directions),
        warnings=dedupe_warnings(warnings),
        tool_version=client.tool_version or server.tool_version,
    )


def _merge_direction(
    flow: Flow, sender: DirectionResult | None, receiver: DirectionResult | None
) -> DirectionResult | None:
    if sender is None or receiver is None:
        return sender or receiver
    return DirectionResult(
        flow=flow,
        sent=sender.sent or receiver.sent,
        received=receiver.received or sender.received,
        retransmits=sender.retransmits if sender.retransmits is not None else receiver.retransmits,
        udp=receiver.udp or sender.udp,
        streams=_merge_streams(sender.streams, receiver.streams),
        intervals=receiver.intervals or sender.intervals,
    )


def _merge_streams(
    sender: tuple[StreamResult, ...], receiver: tuple[StreamResult, ...]
) -> tuple[StreamResult, ...]:
    by_id = {s.id: s for s in sender}
    if not receiver or sorted(by_id) != sorted(s.id for s in receiver):
        return receiver or sender
    merged = []
    for got in receiver:
        put = by_id[got.id]
        merged.append(
            replace(
                got,
                sent=put.sent or got.sent,
                received=got.received or put.received,
                retransmits=put.retransmits if put.retransmits is not None else got.retransmits,
                udp=got.udp or put.udp,
                intervals=got.intervals or put.intervals,
            )
        )
    return tuple(merged)
