"""What the hosts' own counters say crossed during one search trial: the UDP counters of
a lab's namespaces (/proc/net/snmp: clean, as they carry nothing else) and every host's
interface packet counters (/proc/net/dev), each host read once at each end of the trial.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.run.search_legs import Leg
from wirespeed.sampling.procfs import parse_net_dev, parse_udp_snmp
from wirespeed.search.log import Counters, InterfaceCounts

# (UDP datagrams sent, arrived, dropped by a socket after arriving) of one namespace.
UdpCounts = tuple[int, int, int]


def _udp_counters(host: Host) -> UdpCounts | None:
    """The host's network namespace's UDP counters (/proc/net/snmp): datagrams sent;
    datagrams that arrived, including those its sockets then dropped (InErrors: a
    busy receiver) and those for a closed port (NoPorts); and those socket drops.
    None when unreadable."""
    try:
        udp = parse_udp_snmp(host.read_file("/proc/net/snmp"))
    except (WirespeedError, OSError, ValueError):
        return None
    if "OutDatagrams" not in udp:
        return None
    dropped = udp.get("InErrors", 0)
    arrived = udp.get("InDatagrams", 0) + dropped + udp.get("NoPorts", 0)
    return udp["OutDatagrams"], arrived, dropped


def distinct_hosts(legs: Sequence[Leg]) -> list[tuple[Host | None, Host | None]]:
    """The legs' sending and receiving hosts, each once (several streams or legs may
    share one), paired for the readings: None where one list is longer."""
    senders = list({leg.sender.name: leg.sender for leg in legs}.values())
    receivers = list({leg.receiver.name: leg.receiver for leg in legs}.values())
    return list(itertools.zip_longest(senders, receivers))


def udp_readings(
    legs: Sequence[Leg],
) -> list[tuple[UdpCounts | None, UdpCounts | None] | None]:
    """The sending and receiving hosts' UDP counters, each host once, where the legs say
    they are clean (the lab's namespaces carry nothing else); None elsewhere."""
    if not all(leg.counted for leg in legs):
        return [None]
    return [
        (_udp_counters(s) if s else NOT_HERE_UDP, _udp_counters(r) if r else NOT_HERE_UDP)
        for s, r in distinct_hosts(legs)
    ]


def wire_readings(legs: Sequence[Leg]) -> list[tuple[Packets | None, Packets | None]]:
    """The sending and receiving hosts' interface counters, each host once."""
    return [
        (_interface_packets(s) if s else NOT_HERE, _interface_packets(r) if r else NOT_HERE)
        for s, r in distinct_hosts(legs)
    ]


# /proc/net/dev of a 32-bit kernel (OpenWrt on many routers) counts in 32 bits.
COUNTER_WRAP = 2**32


# Per interface other than loopback: (packets sent, packets received) as /proc/net/dev
# counts them.
Packets = dict[str, tuple[int, int]]

# A reading of no host (one side has more distinct hosts than the other): counts nothing.
NOT_HERE: Packets = {}
NOT_HERE_UDP: UdpCounts = (0, 0, 0)


def _interface_packets(host: Host) -> Packets | None:
    """The host's interfaces' packet counters now; None when unreadable."""
    try:
        interfaces = parse_net_dev(host.read_file("/proc/net/dev"))
    except (WirespeedError, OSError, ValueError):
        return None
    found = {name: (c.tx_packets, c.rx_packets) for name, c in interfaces.items() if name != "lo"}
    return found or None


def _delta(start: int, end: int) -> int:
    if end < start < COUNTER_WRAP:
        return end + COUNTER_WRAP - start
    return end - start


def _packets_over(start: Packets | None, end: Packets | None, column: int) -> int | None:
    """Packets sent (column 0) or received (1) over the trial by all of a host's
    interfaces; None unless the same interfaces were there at both readings: one that
    went away (a NIC reset that re-created it) takes its count with it, and the sum
    would show packets that never left as held back."""
    if start is None or end is None or start.keys() != end.keys():
        return None
    return sum(_delta(start[name][column], end[name][column]) for name in start)


def wire_counted(
    before: Sequence[tuple[Packets | None, Packets | None]],
    after: Sequence[tuple[Packets | None, Packets | None]],
) -> InterfaceCounts | None:
    """Packets out of the legs' senders' interfaces and into their receivers' over a
    trial; None unless every one was read at both times."""
    if len(before) != len(after):
        return None
    tx = rx = 0
    for (sender_start, receiver_start), (sender_end, receiver_end) in zip(
        before, after, strict=True
    ):
        sent = _packets_over(sender_start, sender_end, 0)
        arrived = _packets_over(receiver_start, receiver_end, 1)
        if sent is None or arrived is None:
            return None
        tx += sent
        rx += arrived
    return InterfaceCounts(tx=tx, rx=rx)


def udp_counted(
    before: Sequence[tuple[UdpCounts | None, UdpCounts | None] | None],
    after: Sequence[tuple[UdpCounts | None, UdpCounts | None] | None],
) -> Counters | None:
    """Datagrams sent by the legs' senders and arrived at their receivers over a trial."""
    tx = rx = dropped = 0
    for start, end in zip(before, after, strict=True):
        if start is None or end is None:
            return None
        (sender_start, receiver_start), (sender_end, receiver_end) = start, end
        if None in (sender_start, receiver_start, sender_end, receiver_end):
            return None
        assert sender_start and receiver_start and sender_end and receiver_end
        tx += sender_end[0] - sender_start[0]
        rx += receiver_end[1] - receiver_start[1]
        dropped += receiver_end[2] - receiver_start[2]
    return Counters(tx=tx, rx=rx, socket_drops=dropped)
