"""Reading an iperf trial's two ends into one result, and the reason it failed when
their outputs say it did: an error the tool printed, a direction it never measured, a UDP
flow that never arrived, a flow the other end cut short.
"""

from __future__ import annotations

from typing import Protocol

from wirespeed.model import (
    Direction,
    Flow,
    Proto,
    RawOutput,
    Result,
    Side,
    TestSpec,
    WarningKind,
)
from wirespeed.run.trial_life import both_streams
from wirespeed.tools.merge import merge
from wirespeed.units import format_rate

# Warnings that mean the numbers are not a measurement at all.
FATAL_WARNINGS = frozenset({WarningKind.CONNECT_FAILED, WarningKind.TOOL_ERROR})


class Parser(Protocol):
    """An iperf driver's reading of one end's output (tools/iperf2.py, tools/iperf3.py)."""

    def parse(self, text: str, side: Side) -> Result: ...


def parse_ends(
    driver: Parser, raw: list[RawOutput], spec: TestSpec
) -> tuple[Result | None, str | None]:
    """The trial's result from both ends' outputs, or the reason it has none (or is not
    the test asked for: a direction missing, a UDP flow never received, cut short)."""
    by_side = {r.side: r for r in raw}
    client_raw = by_side.get(Side.CLIENT)
    if client_raw is None:
        return None, "the client never ran"
    try:
        # Both iperfs print their errors ("connect failed", "unable to connect") on stderr.
        client_result = driver.parse(both_streams(client_raw), Side.CLIENT)
    except ValueError as error:
        said = client_raw.stderr.strip().splitlines()
        detail = said[-1] if said else str(error)
        return None, f"the client's output could not be read: {detail}"
    server_result: Result | None = None
    server_raw = by_side.get(Side.SERVER)
    if server_raw is not None and server_raw.text.strip():
        try:
            server_result = driver.parse(both_streams(server_raw), Side.SERVER)
        except ValueError:
            server_result = None  # the client's numbers stand; merge notes what is missing
    result = merge(client_result, server_result)
    fatal = [w for w in result.warnings if w.kind in FATAL_WARNINGS]
    if fatal:
        return result, "; ".join(w.message for w in fatal)
    if not result.directions:
        stderr = client_raw.stderr.strip().splitlines()
        return result, stderr[-1] if stderr else "iperf reported no measurement"
    missing = [flow.value for flow in spec.flows if result.direction(flow) is None]
    if missing:
        return result, _missing_direction(missing, spec)
    unheard = _not_received(result, spec)
    if unheard is not None:
        return result, unheard
    short = _cut_short(result, spec, client_raw)
    if short is not None:
        return result, short
    return result, None


def _missing_direction(missing: list[str], spec: TestSpec) -> str:
    said = f"no measurement of the {' and '.join(missing)} direction (asked for {spec.direction})"
    if spec.direction is Direction.DUAL:
        # iperf2 -d through NAT or a firewall: the reverse connection is refused, iperf
        # measures one direction and still exits 0. A half result is not the test asked for.
        return (
            f"{said}: the reverse flow never started; iperf2 -d needs the server to "
            "connect back to the client, which NAT and firewalls block (use bidir or "
            "down instead)"
        )
    return f"{said}: iperf reported none"


def _not_received(result: Result, spec: TestSpec) -> str | None:
    """Why a UDP flow has no figure of its receiver, or None. A UDP sender writes at its
    rate whether or not anything arrives (a gateway nobody answers drops every datagram
    in the sender's own ARP queue, and iperf2 exits 0): its rate is not goodput, and a
    trial that has no other is not measured. (TCP delivers what it sends, and
    its connection fails when nothing arrives.) What it sent stays in the result."""
    if spec.protocol is not Proto.UDP:
        return None
    for flow in spec.flows:
        direction = result.direction(flow)
        if direction is None or direction.received is not None:
            continue
        receiver = "server" if flow is Flow.UP else "client"
        sent = direction.sent
        rate = "" if sent is None else f" ({format_rate(sent.bits_per_second)})"
        return (
            f"the {receiver} reported nothing received of the {flow} flow: what was sent"
            f"{rate} never reached it, or its report was lost; a sender's rate is not "
            "goodput (check the route between client and server: a gateway that does "
            "not answer, a firewall)"
        )
    return None


# A flow measured over less than this share of the test's duration was cut short.
SHORT_FRACTION = 0.9


def _cut_short(result: Result, spec: TestSpec, client_raw: RawOutput) -> str | None:
    """Why the result covers only part of the test, or None. A server killed mid-test
    makes iperf2's client print "write failed: Connection reset by peer", a summary of
    the seconds it managed, and exit 0: a number that looks whole but is not."""
    for direction in result.directions:
        spans = [m.seconds for m in (direction.sent, direction.received) if m is not None]
        if spans and max(spans) < SHORT_FRACTION * spec.duration:
            said = client_raw.stderr.strip().splitlines()
            detail = f" ({said[0]})" if said else ""
            return (
                f"the {direction.flow.value} flow stopped after {max(spans):.1f} s of the "
                f"{spec.duration:g} s asked for{detail}: the other end went away mid-test"
            )
    return None
