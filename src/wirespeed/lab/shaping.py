"""Make a veth pair behave like an Ethernet link of a given rate: tc tbf and ethtool.

Every veth end gets a token bucket (tbf) on its egress, so a link is shaped in both
directions. The numbers, and why:

- `overhead 24`: the qdisc sees the frame without FCS (4), preamble+SFD (8) and the
  inter-frame gap (12); counting them makes goodput land on Ethernet's real limits
  (LIMITS.md: 941.5 Mbit/s TCP and 957.0 Mbit/s UDP at 1 GbE, MTU 1500).
- `mpu 84`: a frame is at least 64 bytes with FCS, 84 with preamble and gap; the kernel
  applies mpu after adding the overhead, so a 42-byte ARP frame costs 84 like on a wire.
- burst = 2 ms at line rate (at least two full frames): tbf refills from a soft hrtimer
  that fires late when softirqs are busy; tokens saved in the bucket cover that
  lateness, so the link does not idle. In the lab at 1 Gbit/s, 1 ms gave 906-938 Mbit/s
  TCP from run to run, 2 ms 939-941; much more lets short bursts run above line rate.
- limit = 20 ms at line rate (at least 100 frames), about what a router's 1000-packet
  transmit queue holds at 1 GbE: TCP's small-queue limit (up to 4 MB per socket here)
  must not overflow it, or the sender sees losses a real link would not cause.
- Offloads off (tso, gso, gro). TCP still hands the qdisc GSO super-packets (it always
  builds them; the device segments after the qdisc), and tbf adds the overhead once
  per skb: a sender's own shaper admits about 1.5 % too much at 1500 bytes. Forwarded
  traffic reaches the next shaper frame by frame, so the forwarding node's egress, the
  real bottleneck, counts exactly: the DUT's in bridge, router and nat, the switch's
  in endpoint (lab/topology.py). (Forcing one segment per skb with
  gso_max_segs 1 costs so much CPU that a 2-core machine no longer reaches 1 Gbit/s.)
- RPS on each veth's receive queue: a veth delivers into the backlog of whichever CPU
  transmitted, and tbf transmits from its timer on any CPU, so without steering a
  flow's packets are processed in parallel and arrive reordered (TCP then retransmits
  and slows down). RPS hashes each flow to one CPU of the mask and keeps it in order.
  The forwarding nodes' ports (the DUT's, or the endpoint topology's switch's) and the
  endpoints' ports get separate halves of the CPUs, so the forwarding work and the
  endpoints' TCP work do not queue behind each other.

A link with a queue (`queue: 40ms`, a bufferbloated router) shapes only the bottleneck,
the forwarding nodes' ports, and sizes their limit to hold that much time of data at
the line rate: a full queue then delays every packet behind it by the queue. The ends'
ports are left unshaped, the fast side, as a gigabit LAN feeds a router's slower WAN:
a sender whose own port is the bottleneck is held back by TCP's small-queue limit and
builds no queue in the network (measured at 100 Mbit/s with every port shaped and a
40 ms queue: TCP cubic's RTT rose by 3 ms in the first seconds, then by the 1.5 % the
sender's shaper admits too much; with unshaped ends, by 28-40 ms as cubic's sawtooth
fills and drains the queue). tbf's limit counts bytes of skb (IP packet + 14), its
rate also the 24 bytes of framing: the limit is scaled by frame/(frame + 24) so that
full-size frames drain in exactly the queue's time (tc's own `latency` would add the
burst, and a queue 1.6 % too long at MTU 1500).

`unshaped` links get no qdisc and keep the offloads the kernel set (RPS still keeps
their flows in order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

ETHERNET_HEADER = 14  # what the qdisc counts on top of the IP packet (skb->len)
FRAMING_OVERHEAD = 24  # FCS 4 + preamble/SFD 8 + inter-frame gap 12
MIN_WIRE_FRAME = 84  # 64-byte minimum frame + preamble/SFD + gap
BURST_SECONDS = 0.002
QUEUE_SECONDS = 0.020
MIN_QUEUE_FRAMES = 100


@dataclass(frozen=True)
class TbfParams:
    rate_bps: int
    burst_bytes: int
    limit_bytes: int
    overhead: int = FRAMING_OVERHEAD
    mpu: int = MIN_WIRE_FRAME


def tbf_params(rate_bps: int, mtu: int, queue: float | None = None) -> TbfParams:
    """Token bucket parameters for a link of rate_bps carrying packets of up to mtu;
    with queue (seconds), a bottleneck whose queue holds that much time of data."""
    wire_frame = mtu + ETHERNET_HEADER + FRAMING_OVERHEAD
    burst = max(math.ceil(rate_bps * BURST_SECONDS / 8), 2 * wire_frame)
    if queue is None:
        limit = max(math.ceil(rate_bps * QUEUE_SECONDS / 8), MIN_QUEUE_FRAMES * wire_frame)
    else:
        limit = queue_limit_bytes(rate_bps, mtu, queue)
    return TbfParams(rate_bps=rate_bps, burst_bytes=burst, limit_bytes=limit)


def queue_limit_bytes(rate_bps: int, mtu: int, queue: float) -> int:
    """tbf's limit (bytes of skb) for a queue that drains in `queue` seconds at the line
    rate when full of full-size frames; at least two frames, or nothing would pass."""
    skb_frame = mtu + ETHERNET_HEADER
    wire_bytes = rate_bps * queue / 8
    return max(math.ceil(wire_bytes * skb_frame / (skb_frame + FRAMING_OVERHEAD)), 2 * skb_frame)


def tbf_argv(namespace: str, interface: str, params: TbfParams) -> list[str]:
    """`tc qdisc replace`: the same command installs the shaper and retunes it."""
    return [
        "tc", "-n", namespace, "qdisc", "replace", "dev", interface, "root", "tbf",
        "rate", f"{params.rate_bps}bit",
        "burst", str(params.burst_bytes),
        "limit", str(params.limit_bytes),
        "overhead", str(params.overhead),
        "mpu", str(params.mpu),
    ]  # fmt: skip


def offloads_off_argv(namespace: str, interface: str) -> list[str]:
    return [
        "ip", "netns", "exec", namespace,
        "ethtool", "-K", interface, "tso", "off", "gso", "off", "gro", "off",
    ]  # fmt: skip


# A fixed script; the interface and mask arrive as positional parameters, never spliced
# into the script text. It runs under `ip netns exec`, which mounts the namespace's /sys.
_RPS_SCRIPT = 'for q in /sys/class/net/"$1"/queues/rx-*; do echo "$2" > "$q/rps_cpus"; done'


def rps_argv(namespace: str, interface: str, mask: str) -> list[str]:
    return [
        "ip", "netns", "exec", namespace,
        "sh", "-c", _RPS_SCRIPT, "wirespeed-rps", interface, mask,
    ]  # fmt: skip


def rps_masks(cpu_count: int) -> tuple[str, str]:
    """(endpoints' mask, forwarding mask): the first half of the CPUs receive for the
    ends of a connection, the second half for the nodes that forward (the DUT, or the
    endpoint topology's switch); with one CPU, both get it."""
    if cpu_count < 1:
        raise ValueError(f"cpu_count must be positive, got {cpu_count}")
    if cpu_count == 1:
        return "1", "1"
    half = cpu_count // 2
    endpoints = (1 << half) - 1
    dut = ((1 << cpu_count) - 1) & ~endpoints
    return format_cpumask(endpoints), format_cpumask(dut)


def format_cpumask(bits: int) -> str:
    """A CPU set as sysfs writes it: hex, a comma every 32 bits ('3', 'f,ffffffff')."""
    digits = f"{bits:x}"
    groups = []
    while digits:
        groups.append(digits[-8:])
        digits = digits[:-8]
    return ",".join(reversed(groups))
