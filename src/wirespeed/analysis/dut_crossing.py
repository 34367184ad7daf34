"""Whether a trial's traffic crossed its DUT: the bytes the DUT's interfaces received
over the trial (its sampler's /proc/net/dev, first and last reading) against the bytes
iperf says it delivered.

Traffic that went through a router arrives on its ports at least once (with headers,
more than iperf's payload); two ends that were one machine, or a route that bypassed
the DUT, leave its counters to grow by its SSH session and little else. A trial whose
DUT received far less than iperf claims never crossed it: its figure says nothing of
the DUT (25 Gbit/s "through" a gigabit router over loopback), and is not an ok result.
"""

from __future__ import annotations

from collections.abc import Mapping

from wirespeed.model import Result
from wirespeed.sampling.model import NetDevCounters, SampleSet

# Below this share of iperf's bytes the DUT's ports saw, the traffic did not cross it.
# Any real crossing counts every byte once at least; half leaves room for a counter
# read a moment early.
CROSSED_SHARE = 0.5
# /proc/net/dev of a 32-bit kernel (OpenWrt on many routers) counts in 32 bits.
COUNTER_WRAP = 2**32


def bytes_delivered(result: Result) -> int | None:
    """What iperf says crossed, summed over the flows: the receiver's count where known."""
    total = 0
    for direction in result.directions:
        transfer = direction.received or direction.sent
        if transfer is None:
            return None
        total += transfer.bytes
    return total if result.directions else None


def _received(before: Mapping[str, NetDevCounters], after: Mapping[str, NetDevCounters]) -> int:
    total = 0
    for name, start in before.items():
        end = after.get(name)
        if name == "lo" or end is None:
            continue
        grown = end.rx_bytes - start.rx_bytes
        if grown < 0 and start.rx_bytes < COUNTER_WRAP:
            grown += COUNTER_WRAP
        total += max(grown, 0)
    return total


def dut_received_bytes(samples: SampleSet) -> int | None:
    """Bytes the DUT's interfaces (loopback left out) received between the sampler's
    first and last reading of /proc/net/dev; None without two readings."""
    readings = [s.netdev for s in samples.snapshots if s.netdev is not None]
    if len(readings) < 2:
        return None
    return _received(readings[0], readings[-1])


def not_crossed(result: Result, samples: SampleSet, dut: str) -> str | None:
    """Why the trial's traffic cannot have crossed the DUT, or None if it may have."""
    if samples.partial:
        return None  # its last reading may come before the traffic ended
    claimed = bytes_delivered(result)
    seen = dut_received_bytes(samples)
    if claimed is None or seen is None or claimed == 0:
        return None
    if seen >= CROSSED_SHARE * claimed:
        return None
    return (
        f"the traffic never crossed {dut}: iperf counted {claimed:,} bytes delivered, "
        f"and {dut}'s network interfaces received {seen:,} bytes over the trial; the two "
        "ends reached each other another way (one machine's own addresses go over "
        "loopback, or a route bypasses the DUT), or the DUT forwards in hardware (a flow "
        "offload), which its counters do not see: turn the offload off to measure it"
    )
