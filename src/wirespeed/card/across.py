"""The card read across its parts: what one part's figure says about another's.

A device that forwards N packets/s carries about N x 2/3 x MSS of TCP (each data packet
and, with delayed ACKs, half an ACK share its budget), and a tunnel's TCP no more than
N x its MSS. So the forwarding rate is a measure for the other parts:
- TCP far below what the forwarding rate carries: the device drops TCP's bursts rather
  than queueing them (a policer, or a ring too short), or something else holds TCP back;
- a tunnel above what the packet budget can carry did not cross this device's budget;
- a bufferbloat grade comes from a queue: in the lab, the one the card built it with
  (the line rate's, or the DUT's ring at its packet rate, whichever is the bottleneck).

Pure: the parts' figures and the card plan's `lab:` in, words out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wirespeed.lab.limits import WIRE_OVERHEAD, ring_packets
from wirespeed.lab.links import parse_link
from wirespeed.model import ForwardingLimit, LinkModel
from wirespeed.units import format_delay, parse_delay, parse_rate

TCP_HEADERS = 52  # IP 20 + TCP 20 + timestamps 12 (LIMITS.md)
DATA_SHARE = 2 / 3  # of the packets of one TCP flow, with an ACK every second segment
FAR_BELOW = 0.5  # TCP under this share of what the packet rate carries is "far below"
ABOVE_BUDGET = 1.02  # a figure this much above what the budget carries: not through it


@dataclass(frozen=True)
class CardLab:
    """The lab the card built its DUT from: its link (with the queue) and its limit."""

    link: LinkModel
    limit: ForwardingLimit | None

    def queue_words(self) -> str | None:
        """The queue that makes the DUT's bufferbloat, in words; None: unknown."""
        limit = self.limit
        link = self.link
        packet_bound = limit is not None and self._packet_rate_is_bottleneck()
        if packet_bound and limit is not None:
            ring = ring_packets(limit, link, link.mtu)
            rate = _rate_words(limit)
            # Both ways cross the one ring: a round trip through it full waits twice.
            seconds = 2 * ring / _full_size_pps(limit, link.mtu)
            given = f"the {format_delay(link.queue)} queue: " if link.queue is not None else ""
            default = "" if limit.ring is not None or link.queue is not None else " (its default)"
            return (
                f"{given}the DUT's ring of {ring:,} packets{default} at its {rate}, "
                f"the bottleneck below the line rate: {seconds * 1000:.0f} ms a round trip "
                "when full"
            )
        if link.rate_bps is None:
            return None
        if link.queue is not None:
            return f"the {format_delay(link.queue)} queue at the line rate, the bottleneck"
        return "the lab's own short queue at the line rate (20 ms)"

    def queue_short(self) -> str | None:
        """The queue in a few words, for the card's sentence; None: unknown."""
        limit = self.limit
        if limit is not None and self._packet_rate_is_bottleneck():
            return f"the DUT's ring at {_rate_words(limit)}"
        if self.link.rate_bps is None:
            return None
        queue = format_delay(self.link.queue) if self.link.queue is not None else "20ms"
        return f"a {queue} queue at the line rate"

    def _packet_rate_is_bottleneck(self) -> bool:
        """TCP's full-size data packets: the DUT carries N x 2/3 of them, the line its
        frame rate a way."""
        limit = self.limit
        if limit is None:
            return False
        if self.link.rate_bps is None:
            return True
        line = self.link.rate_bps / ((self.link.mtu + WIRE_OVERHEAD) * 8)
        return _full_size_pps(limit, self.link.mtu) * DATA_SHARE < line


def _full_size_pps(limit: ForwardingLimit, mtu: int) -> float:
    rates = [float(limit.pps)] if limit.pps is not None else []
    if limit.bps is not None:
        rates.append(limit.bps / ((mtu + WIRE_OVERHEAD) * 8))
    return min(rates)


def _rate_words(limit: ForwardingLimit) -> str:
    words = []
    if limit.pps is not None:
        words.append(f"{limit.pps:,} packets/s")
    if limit.bps is not None:
        words.append(f"{limit.bps / 1e6:g} Mbit/s")
    return " and ".join(words)


def card_lab(plan_text: str | None) -> CardLab | None:
    """The `lab:` of a card plan's text (card/plan_text.py writes it as JSON); None for
    a card of real hosts or a text this cannot read."""
    for line in (plan_text or "").splitlines():
        if line.startswith("lab: "):
            try:
                value = json.loads(line.removeprefix("lab: "))
                return _lab_of(value) if isinstance(value, dict) else None
            except (ValueError, TypeError):
                return None
    return None


def _lab_of(value: Mapping[str, Any]) -> CardLab:
    queue = value.get("queue")
    link = parse_link(
        str(value.get("link", "gbe")),
        mtu=int(value.get("mtu", 1500)),
        queue=parse_delay(queue) if isinstance(queue, str) else None,
    )
    dut = value.get("dut") or {}
    limit = None
    if dut.get("forward_pps") is not None or dut.get("forward_rate") is not None:
        rate = dut.get("forward_rate")
        limit = ForwardingLimit(
            pps=None if dut.get("forward_pps") is None else int(dut["forward_pps"]),
            bps=None if rate is None else parse_rate(str(rate)),
            ring=None if dut.get("ring") is None else int(dut["ring"]),
        )
    return CardLab(link, limit)


def tcp_against_forwarding(
    best_tcp: float | None, packets_per_s: float | None, mtu: int, line_tcp: float | None
) -> str:
    """What TCP's best figure says beside the forwarding rate (the smallest frames' NDR,
    the most the device forwards): "" when there is nothing to say."""
    if best_tcp is None or not packets_per_s:
        return ""
    carried = packets_per_s * DATA_SHARE * (mtu - TCP_HEADERS) * 8
    expected = min(carried, line_tcp) if line_tcp else carried
    said = (
        f"{packets_per_s:,.0f} packets/s carry about {carried / 1e6:.1f} Mbit/s of TCP "
        f"(2/3 of them full {mtu - TCP_HEADERS}-byte segments, the rest ACKs)"
    )
    if best_tcp < FAR_BELOW * expected:
        return (
            f"TCP at {best_tcp / 1e6:.1f} Mbit/s is far below what the forwarding rate "
            f"carries: {said}. The device drops TCP's bursts rather than queueing them "
            "(a policer, or a ring too short), or something else held TCP back"
        )
    if line_tcp and carried < line_tcp:
        return (
            f"TCP at {best_tcp / 1e6:.1f} Mbit/s is bounded by the forwarding rate, not "
            f"the line: {said}, {best_tcp / carried * 100:.0f} % of it reached"
        )
    return ""


def tunnels_against_budget(
    tunnels: Sequence[tuple[str, float]], packets_per_s: float | None, mtu: int
) -> tuple[str, ...]:
    """Each tunnel's TCP beside the packet budget: a tunnel's inner MSS is below the
    link's, so N x (MTU - 52) bytes/s is more than any tunnel through N packets/s
    carries."""
    if not packets_per_s:
        return ()
    most = packets_per_s * (mtu - TCP_HEADERS) * 8
    typical = most * DATA_SHARE
    said = []
    for name, value in tunnels:
        if value > most * ABOVE_BUDGET:
            said.append(
                f"{name} at {value / 1e6:.1f} Mbit/s is more than {packets_per_s:,.0f} "
                f"packets/s can carry (at most {most / 1e6:.1f} Mbit/s, every packet a full "
                "segment): its tunnel did not cross this device's packet budget"
            )
        else:
            said.append(
                f"{name} at {value / 1e6:.1f} Mbit/s within the packet budget: "
                f"{value / typical * 100:.0f} % of the {typical / 1e6:.1f} Mbit/s that "
                f"{packets_per_s:,.0f} packets/s carry of TCP"
            )
    return tuple(said)


def elsewhere(tunnel_labs: Mapping[str, str], routed_lab: str) -> tuple[str, ...]:
    """Tunnels that ran on another lab DUT than the routed path's, said plainly."""
    return tuple(
        f"{name} ran on a second lab DUT ({where}), not the {routed_lab} DUT of the other "
        "parts, without its limits"
        for name, where in tunnel_labs.items()
        if where != routed_lab
    )


def compute_words(lab: CardLab | None) -> str:
    """Where a lab card's crypto and compute ran: "" for a card of a real device."""
    if lab is None:
        return ""
    return (
        "crypto and compute ran in a lab namespace on this machine's CPUs, as every lab "
        "DUT's programs do: the DUT's limits are on what it forwards, not on its compute"
    )
