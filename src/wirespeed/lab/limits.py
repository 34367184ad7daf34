"""A lab DUT that forwards at most N packets/s (or bits/s): a CPU-bound router.

A slow router is limited by its CPU: it forwards so many packets a second, whichever way
they go. What it cannot reach yet waits in its NIC's ring and its backlog, and only what
finds them full is dropped; a packet that waits delays those behind it. TCP through
such a router fills the ring, slows down at its drops and carries on at the packet
rate; a policer that drops at once what exceeds the rate (the lab's first limit, an
nftables `limit rate over`) makes TCP lose packets in every burst and collapse into
retransmission timeouts (21,300 packets/s carried 5.8 Mbit/s of TCP instead of ~160).

The lab builds that CPU in the DUT's namespace from what this kernel has (no tc police,
netem or cake; measured in docs/benchmarks.md, "The lab's CPU-bound DUT"):

- `clsact` on each of the DUT's veth ports, with one u32 filter on its egress that
  matches every packet and a mirred action that redirects it to an ifb device,
  `backlog`. Both ports feed the one device: one budget for both directions, as one
  CPU serves both NICs. ifb hands each packet back to its port's transmit once its
  qdisc lets it go (tc classification skipped the second time), so it leaves through
  the link's own shaper. The budget sits where the DUT has decided where a packet goes
  (bridging, routing, NAT, a tunnel's end) and not on receive: a packet received is
  still its sender's socket's (veth keeps the owner across namespaces) until the
  DUT's IP receive lets it go, and a ring at ingress held the sender's send buffer.
  Measured: iperf2 UDP at twice an 8 Mbit/s ingress limit sent 7.7 Mbit/s and lost
  nothing (its socket blocked); at egress it sent all 2,656 datagrams and lost 41 %,
  bridge and router alike. Every packet the DUT sends counts: forwarded ones, and its
  own (a tunnel's encrypted packets, ARP, ICMP).
- On `backlog`'s egress, a tbf whose every packet costs the same: its rate is N x MPU
  bytes/s and its `mpu` MPU (65,535, more than any packet the lab forwards), so a
  packet of any size costs 1/N s. With a bit rate, a second tbf under it counts the wire
  as a link does (rate in bits, overhead 24, mpu 84: skb->len is the frame without FCS
  here, lab/shaping.py). Under them a pfifo of `ring` packets: the ring.
- Each tbf's burst is BURST_SECONDS of its rate (at least MIN_BURST_PACKETS packets):
  tbf refills from a timer that fires late on a busy machine, and tokens saved in the
  bucket make up for that lateness (with a burst of 2 packets, 10,000 packets/s on a
  busy 2-core machine drained 3 % below the rate). After an idle moment the first
  burst's packets pass at once, as the first 10 ms of a test always have in this lab.
- Offloads are off on the DUT's ports whenever it is limited (lab/build.py): a packet
  counts once, so GRO must not merge segments before the ring.

The ring's default, DEFAULT_RING = 256 packets, is the receive ring most routers' and
SBCs' gigabit NICs come with (igb, e1000e and r8169 256 descriptors; stmmac, mvneta
512): enough that TCP through the DUT runs at its packet rate, short enough that a
short UDP trial above the rate still loses (256 packets are 1.3 % of 2 s at 10,000
packets/s, which is what a search's NDR can read above the truth with 2-second trials).
`lab up --ring N` and a plan's `dut: {ring: N}` set it.

With a queue (`--queue DELAY`, `lab: {queue: ...}`), the queue sits at the bottleneck,
whichever it is: the link's shapers hold DELAY at the line rate (lab/shaping.py) and the
ring, unless named, holds DELAY at the DUT's packet rate: as every packet, its reply
too, crosses the one ring, a round trip through a full ring waits twice in it, so the
ring holds DELAY / 2 of packets (ring_for_queue). The bottleneck's queue fills; the
other stays short, so a loaded round trip rises by about DELAY either way.

The truth, for paced UDP of one size: at an offered rate at or below N the DUT loses
nothing; above it the ring fills and it loses about 1 - N/offered from then on, less
the ring's and the burst's packets over the test. A bit rate is exact at every packet
size (the wire's bytes are counted per packet).

Which DUTs: bridge, router and nat (the ports feed the bridge or the routing alike). An
endpoint DUT forwards nothing (it is the server); a limit there is refused.
"""

from __future__ import annotations

import math

from wirespeed.errors import UsageError
from wirespeed.model import ForwardingLimit, LinkModel, Topology

BACKLOG = "backlog"  # the ifb device in the DUT's namespace: the CPU's queue
BURST_SECONDS = 0.010
MIN_BURST_PACKETS = 5
DEFAULT_RING = 256
PACKET_COST = 65535  # tbf's mpu: every packet costs this many bytes, whatever its size
MAX_TC_BYTES = 2**32 - 1  # tc takes a tbf's burst and limit as 32-bit byte counts
ETHERNET_HEADER = 14  # what skb->len counts beyond the IP packet at the ifb
FRAMING_OVERHEAD = 24  # FCS 4 + preamble/SFD 8 + inter-frame gap 12
MIN_WIRE_FRAME = 84
WIRE_OVERHEAD = ETHERNET_HEADER + FRAMING_OVERHEAD  # 38, LIMITS.md


def check_forwards(topology: Topology) -> None:
    """A limit needs a DUT that forwards: UsageError for an endpoint DUT."""
    forward_family(topology)


def forward_family(topology: Topology) -> str:
    """The nftables family whose forward hook sees what the DUT of this topology forwards
    (where a soak's faults drop it): bridge for a bridge, ip for a router or nat. A bridge
    family's forward hook sees every bridged frame, ARP too, whether br_netfilter is
    loaded or not; UsageError for an endpoint DUT, which forwards nothing."""
    if topology is Topology.BRIDGE:
        return "bridge"
    if topology in (Topology.ROUTER, Topology.NAT):
        return "ip"
    raise UsageError(
        f"a forwarding limit needs a DUT that forwards; in the {topology.value} topology "
        "it does not",
        hint="use it on a bridge, router or nat lab (the endpoint DUT is the server)",
    )


def burst_packets(pps: int) -> int:
    return max(MIN_BURST_PACKETS, math.ceil(pps * BURST_SECONDS))


def burst_bytes(bps: int, mtu: int) -> int:
    """A bit rate's bucket: BURST_SECONDS of wire bytes, at least MIN_BURST_PACKETS
    full-size frames (tbf drops a packet larger than its bucket)."""
    frame = mtu + WIRE_OVERHEAD
    return max(MIN_BURST_PACKETS * frame, math.ceil(bps * BURST_SECONDS / 8))


def full_size_rate(limit: ForwardingLimit, mtu: int) -> float:
    """Packets/s the DUT forwards of full-size frames: the lower of its two limits."""
    rates = []
    if limit.pps is not None:
        rates.append(float(limit.pps))
    if limit.bps is not None:
        rates.append(limit.bps / ((mtu + WIRE_OVERHEAD) * 8))
    return min(rates)


def ring_for_queue(limit: ForwardingLimit, mtu: int, queue: float) -> int:
    """The ring that holds `queue` seconds of a round trip at the DUT's rate: half of it
    each way (a packet and its reply each cross the one ring), at least two packets."""
    return max(2, math.ceil(full_size_rate(limit, mtu) * queue / 2))


def ring_packets(limit: ForwardingLimit, link: LinkModel, mtu: int) -> int:
    """The ring the DUT gets: the limit's own, else the link's queue at the DUT's rate,
    else DEFAULT_RING."""
    if limit.ring is not None:
        return limit.ring
    if link.queue is not None:
        return ring_for_queue(limit, mtu, link.queue)
    return DEFAULT_RING


def redirect_argvs(namespace: str, ports: tuple[str, ...]) -> list[list[str]]:
    """The backlog device, and every packet leaving the DUT's ports sent into it."""
    argvs = [
        ["ip", "-n", namespace, "link", "add", BACKLOG, "type", "ifb"],
        ["ip", "-n", namespace, "link", "set", "dev", BACKLOG, "up"],
    ]
    for port in ports:
        argvs.append(["tc", "-n", namespace, "qdisc", "add", "dev", port, "clsact"])
        argvs.append(
            [
                "tc", "-n", namespace, "filter", "add", "dev", port, "egress",
                "protocol", "all", "u32", "match", "u32", "0", "0",
                "action", "mirred", "egress", "redirect", "dev", BACKLOG,
            ]
        )  # fmt: skip
    return argvs


def _tbf(
    namespace: str, where: list[str], rate: str, burst: int, cost: tuple[int, int]
) -> list[str]:
    """One tbf on the backlog at `where` (["root", "handle", "1:"] or a parent's
    class); cost: (mpu, overhead), what one packet counts. tbf needs a limit when it is
    made; the bfifo it makes with it goes once the ring is grafted under it."""
    mpu, overhead = cost
    return [
        "tc", "-n", namespace, "qdisc", "replace", "dev", BACKLOG, *where,
        "tbf", "rate", rate, "burst", str(burst), "limit", str(burst),
        "mpu", str(mpu), "overhead", str(overhead),
    ]  # fmt: skip


def budget_argvs(
    namespace: str, limit: ForwardingLimit, link: LinkModel, mtu: int
) -> list[list[str]]:
    """The CPU's budget and ring on the backlog device: `replace` both installs and
    retunes them (a new MTU: the bit rate's bucket must hold a frame)."""
    argvs = []
    parent, handle = ["root"], 1
    if limit.pps is not None:
        rate = f"{limit.pps * PACKET_COST * 8}bit"
        # Above 6.5 million packets/s the burst is the most tc takes: under 10 ms.
        burst = min(burst_packets(limit.pps) * PACKET_COST, MAX_TC_BYTES)
        where = [*parent, "handle", f"{handle}:"]
        argvs.append(_tbf(namespace, where, rate, burst, (PACKET_COST, 0)))
        parent, handle = ["parent", f"{handle}:1"], handle + 1
    if limit.bps is not None:
        burst = burst_bytes(limit.bps, mtu)
        where = [*parent, "handle", f"{handle}:"]
        cost = (MIN_WIRE_FRAME, FRAMING_OVERHEAD)
        argvs.append(_tbf(namespace, where, f"{limit.bps}bit", burst, cost))
        parent, handle = ["parent", f"{handle}:1"], handle + 1
    ring = ring_packets(limit, link, mtu)
    argvs.append(
        [
            "tc", "-n", namespace, "qdisc", "replace", "dev", BACKLOG, *parent,
            "handle", f"{handle}:", "pfifo", "limit", str(ring),
        ]
    )  # fmt: skip
    return argvs
