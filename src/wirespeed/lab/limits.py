"""A lab DUT that forwards at most N packets/s (or bits/s): the truth a search must find.

A slow router is limited by its CPU: it forwards so many packets a second, whichever way
they go, and drops the rest. The lab emulates that with one nftables table in the DUT's
namespace, `wirespeed-limit`, whose forward chain drops what exceeds a token bucket
(`limit rate over`): one bucket for the device's total, both directions together. (tc's
police and netem, the usual tools, are not in this kernel; nftables' limit is.)

Which hook sees the forwarded traffic:
- router and nat: `table ip`, hook forward (after the NAT's prerouting DNAT). It sees
  IPv4 only; ARP never crosses a router.
- bridge: `table bridge`, hook forward: every frame the bridge passes from one port to
  the other, ARP included. Bridged IPv4 also reaches the ip forward hook, but only
  while br_netfilter is loaded and bridge-nf-call-iptables is 1 (it is on this kernel,
  not on every one); the bridge family does not depend on it.
- endpoint: nothing is forwarded (the DUT is the server); a limit there is refused.

What the buckets count: a packet is one packet whatever its size. Bytes are the IP
packet (skb->len at these hooks: 46 for an 18-byte UDP payload, in both families), not
the frame: `bps`, which means bits on the wire as a link rate does (IP + 38 bytes a
frame, LIMITS.md), is converted at the lab's MTU, exact for full-size packets. Smaller
packets pass more wire bits than `bps` (64-byte frames: 84/46, 1.8 times as many), a
real limit on them comes from the packet rate.

The truth, for paced UDP (iperf2 `-b Npps`) of one size: at an offered rate at or below
the packet rate the DUT loses nothing (the bucket's burst covers the pacing's jitter and
the batches softirqs deliver in), above it it loses about 1 - N/offered, plus the burst's
worth of packets once at the start of each test. The burst is BURST_SECONDS of packets,
at least MIN_BURST_PACKETS: measured at 15,000 pps (iperf2 18-byte datagrams, 2 s, two
runs each, on a busy 2-core machine) a burst of 0.33 ms lost 0.45-1.3 % at 98 % of the
limit, 1 ms 0.02-0.7 %, 3 ms and 10 ms none; 10 ms leaves room for a busier machine and
adds 0.5 % of a 2-second test's packets.

The byte bucket is the kernel's and larger: nftables gives a byte limit a bucket of one
second of the rate plus the burst (nft_limit: tokens_max = unit * (rate + burst) / rate,
and the unit is at least a second), full when the rule is loaded and refilled while the
device idles. A test that starts on an idle DUT passes up to a second's worth of bytes
above the rate before the limit bites; from then on it holds exactly. Measured: a limit
of 1,000,000 bytes/s, 16 Mbit/s of 1470-byte datagrams offered for 4 s: 0 and 2.7 % lost
in the first two half-seconds, then 51 % (667 datagrams of 1498 IP bytes a second, 999 kB/s)
in every half-second after. A test of T seconds at an offered wire rate above bps loses
about 1 - bps * (T + 1) / (offered * T) instead of 1 - bps/offered; the packet limit
has no such second (its bucket is the burst alone).
"""

from __future__ import annotations

import math

from wirespeed.errors import UsageError
from wirespeed.model import ForwardingLimit, Topology

LIMIT_TABLE = "wirespeed-limit"
BURST_SECONDS = 0.010
MIN_BURST_PACKETS = 5
WIRE_OVERHEAD = 38  # Ethernet header 14, FCS 4, preamble+SFD 8, inter-frame gap 12


def limit_family(topology: Topology) -> str:
    """The nftables family whose forward hook sees what the DUT of this topology forwards."""
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


def ip_bytes_per_second(bps: int, mtu: int) -> int:
    """The IP bytes/s nftables counts for bps of wire bits, at full-size packets."""
    return max(1, math.floor(bps / 8 * mtu / (mtu + WIRE_OVERHEAD)))


def burst_bytes(ip_rate: int, mtu: int) -> int:
    return max(MIN_BURST_PACKETS * mtu, math.ceil(ip_rate * BURST_SECONDS))


def limit_rules(limit: ForwardingLimit, mtu: int) -> list[str]:
    rules = []
    if limit.pps is not None:
        burst = burst_packets(limit.pps)
        rules.append(f"limit rate over {limit.pps}/second burst {burst} packets drop")
    if limit.bps is not None:
        rate = ip_bytes_per_second(limit.bps, mtu)
        burst = burst_bytes(rate, mtu)
        rules.append(f"limit rate over {rate} bytes/second burst {burst} bytes drop")
    return rules


def limit_ruleset(limit: ForwardingLimit, topology: Topology, mtu: int) -> str:
    """The table, replaced whole in one transaction: loading it again (a new MTU) swaps
    the rules without a moment unlimited. (Adding an empty table first makes the delete
    succeed when there is none yet.)"""
    family = limit_family(topology)
    table = f"table {family} {LIMIT_TABLE}"
    rules = "".join(f"    {rule}\n" for rule in limit_rules(limit, mtu))
    return (
        f"{table} {{}}\n"
        f"delete {table}\n"
        f"{table} {{\n"
        "  chain forward {\n"
        "    type filter hook forward priority filter; policy accept;\n"
        f"{rules}"
        "  }\n"
        "}\n"
    )
