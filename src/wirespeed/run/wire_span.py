"""How long a flow's bytes took to cross, from the receiving interface's counters.

iperf2's server starts a stream's clock when its thread takes the connection, not when
the stream's first bytes arrive. With many streams (-P 64) the listener takes them one
by one, tens to hundreds of milliseconds apart on a busy machine, while the kernel has
already completed every handshake and keeps receiving into the queued connections'
buffers. Those bytes are counted, but not the time they took: the receiver's [SUM] (and
its longest stream) covers less time than the traffic lasted. Measured over a shaped
1 Gbit/s link, -P 64 for 2 s (docs/benchmarks.md): iperf2 said 956.4 Mbit/s over
2.597 s; the server's interface received the same bytes over 2.649 s, 937.8 Mbit/s.
Neither end's output can tell, since no line of either carries a time both share.

So, for an iperf2 TCP flow of several streams whose receiving host's counters can be
read quickly (this machine or a lab namespace), the counters are polled through the
test; the span of the traffic they saw (the first to the last poll carrying a share of
its steady rate, the edges placed as that rate would fill them) replaces the receiver's
when the receiver's is shorter: the flow's bytes over the time they took on the wire.
Only when the interface received at least the flow's bytes: otherwise they crossed
elsewhere (loopback), and the interface says nothing about them.
"""

from __future__ import annotations

import dataclasses
import itertools
import statistics
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.hosts.base import Host
from wirespeed.hosts.local import LocalHost
from wirespeed.hosts.netns import NetnsHost, call_in_namespace
from wirespeed.model import (
    Flow,
    Proto,
    Result,
    TestCase,
    Tool,
    ToolWarning,
    Transfer,
    WarningKind,
)
from wirespeed.sampling.procfs import parse_net_dev

# Seconds between reads of /proc/net/dev: edges placed to a few ms (measured: within
# 4 ms of a 1 ms poll's), at a cost a busy 2-core machine does not notice.
POLL = 0.01
# A poll carrying under this share of the steady rate is not the flow's traffic (SYNs,
# ARP, latency probes, the last ACKs).
CARRYING = 0.25
# /proc/net/dev as a thread that joined a namespace sees it (/proc/net is the process's).
NAMESPACE_NET_DEV = "/proc/thread-self/net/dev"
# A poll under this share of the fastest one carried nothing of note.
NOTHING = 0.01
# The receiver's span is taken as short only beyond what the edges' placement can miss.
SLACK = 0.005


@dataclass(frozen=True)
class WireSpan:
    seconds: float
    bytes: int  # what the interface received over it, frames without FCS


def traffic_span(samples: Sequence[tuple[float, int]]) -> WireSpan | None:
    """The span of the traffic in (monotonic time, received bytes) samples, or None when
    they show none."""
    steps = [(t0, t1, b1 - b0) for (t0, b0), (t1, b1) in itertools.pairwise(samples) if t1 > t0]
    rates = [grown / (t1 - t0) for t0, t1, grown in steps]
    if not rates or max(rates) <= 0:
        return None
    # The typical rate of the polls that carried anything: a poll the scheduler let run
    # late shows its bytes over a short step, far above the line, and must not set it.
    steady = statistics.median(r for r in rates if r >= max(rates) * NOTHING)
    carrying = [i for i, rate in enumerate(rates) if rate >= steady * CARRYING]
    first, last = carrying[0], carrying[-1]
    t0, t1, grown = steps[first]
    start = max(t0, t1 - grown / steady)  # the steady rate filled the poll's end
    t0, t1, grown = steps[last]
    end = min(t1, t0 + grown / steady)  # ... and the last poll's beginning
    if end <= start:
        return None
    return WireSpan(end - start, sum(grown for _, _, grown in steps[first : last + 1]))


def with_wire_span(result: Result, flow: Flow, span: WireSpan | None) -> Result:
    """The result with the flow's received figure over the wire's span where the
    receiver's own is shorter; unchanged otherwise."""
    direction = result.direction(flow)
    if span is None or direction is None or direction.received is None:
        return result
    received = direction.received
    if span.bytes < received.bytes or span.seconds <= received.seconds + SLACK:
        return result
    stretched = Transfer(received.bytes, span.seconds, received.bytes * 8 / span.seconds)
    said = ToolWarning(
        WarningKind.TIMED_BY_THE_WIRE,
        f"{flow}: iperf2's receiver timed {received.bytes:,} bytes over "
        f"{received.seconds:.3f} s ({received.bits_per_second / 1e6:.1f} Mbit/s), but its "
        f"interface received them over {span.seconds:.3f} s: its streams' clocks started "
        "after their first bytes arrived (connections taken late); the goodput is over "
        f"the wire's {span.seconds:.3f} s ({stretched.bits_per_second / 1e6:.1f} Mbit/s)",
    )
    directions = tuple(
        dataclasses.replace(d, received=stretched) if d is direction else d
        for d in result.directions
    )
    return dataclasses.replace(result, directions=directions, warnings=(*result.warnings, said))


def sample(path: str) -> tuple[float, int] | None:
    """(monotonic time, bytes the interfaces but lo received) from a /proc/net/dev as the
    calling thread sees it, or None for a read that waited for a CPU longer than a poll:
    its time would be a guess."""
    before = time.monotonic()
    with open(path, encoding="ascii") as table:
        counters = parse_net_dev(table.read())
    after = time.monotonic()
    if after - before > POLL:
        return None
    return (before + after) / 2, sum(c.rx_bytes for name, c in counters.items() if name != "lo")


class CounterWatch:
    """Polls a host's received bytes from a thread until stopped. The thread joins a lab
    host's namespace once and reads its /proc/net/dev directly: a read through the host
    (a thread of its own each time) cost the run 10-12 % of a core at 100 reads a second."""

    def __init__(self, host: LocalHost | NetnsHost) -> None:
        self._host = host
        self.samples: list[tuple[float, int]] = []
        self._first = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="wire-span", daemon=True)

    def start(self) -> None:
        """Start polling; returns once the counters before the traffic are read (the
        thread's first read can wait long on a busy machine, past the traffic's start)."""
        self._thread.start()
        self._first.wait(timeout=1.0)

    def stop(self) -> WireSpan | None:
        """The span the samples show; None for a watch never started."""
        if self._thread.ident is None:
            return None
        self._stop.set()
        self._thread.join()
        return traffic_span(self.samples)

    def _poll(self) -> None:
        try:
            if isinstance(self._host, NetnsHost):
                call_in_namespace(self._host.namespace, lambda: self._loop(NAMESPACE_NET_DEV))
            else:
                self._loop("/proc/net/dev")
        except (OSError, ValueError):
            self.samples.clear()  # counters that cannot be read say nothing
        finally:
            self._first.set()

    def _loop(self, path: str) -> None:
        while True:
            taken = sample(path)
            if taken is not None:
                self.samples.append(taken)
                self._first.set()
            if self._stop.wait(POLL):
                return


def receiving_flow(test: TestCase) -> Flow | None:
    """The flow whose receiver's clock may start late: iperf2 TCP of several streams, one
    way (both ways at once, each interface carries the other flow's ACKs too)."""
    spec = test.spec
    if test.tool is not Tool.IPERF2 or spec.protocol is not Proto.TCP or spec.parallel < 2:
        return None
    flows = spec.flows
    return flows[0] if len(flows) == 1 else None


def watch_for(test: TestCase, client: Host, server: Host) -> tuple[Flow, CounterWatch] | None:
    """The flow to time on the wire and a watch on its receiving host, or None."""
    flow = receiving_flow(test)
    if flow is None:
        return None
    receiver = server if flow is Flow.UP else client
    if not isinstance(receiver, LocalHost | NetnsHost):
        return None  # an SSH device: a read per poll would take longer than the poll
    return flow, CounterWatch(receiver)
