"""The closed sets of what is said of a trial: what a tool's output warns of (a
model.ToolWarning's kind) and the verdicts judged on it (a model.Finding's kind)."""

from __future__ import annotations

import enum


class WarningKind(enum.StrEnum):
    """The closed set of things a tool's output can warn about."""

    # iperf2 UDP: the client never got the server's report, so loss and receiver-side
    # goodput are unknown ("did not receive ack of last datagram", no "Server Report").
    NO_SERVER_REPORT = "no-server-report"
    ACK_OF_LAST_DATAGRAM = "ack-of-last-datagram"
    # Loss printed with two significant digits: 99.5 % and above shows as 1e+02%.
    LOSS_SATURATED = "loss-saturated"
    # Counters that cannot be true (more datagrams received than sent, lost > total).
    IMPLAUSIBLE_COUNTERS = "implausible-counters"
    # The kernel gave another socket buffer than requested ("WARNING: requested 64.0 KByte").
    WINDOW_ADJUSTED = "window-adjusted"
    # A UDP datagram larger than MTU - 28 is fragmented on the wire.
    FRAGMENTED = "fragmented"
    CONNECT_FAILED = "connect-failed"
    TRUNCATED = "truncated"  # output ended before the final summary
    TOOL_ERROR = "tool-error"
    # The receiver timed a flow shorter than its bytes took to arrive (iperf2 takes many
    # streams late): the goodput is over the span the receiving interface saw them in.
    TIMED_BY_THE_WIRE = "timed-by-the-wire"
    OTHER = "other"


class FindingKind(enum.StrEnum):
    """The closed set of verdicts on a trial (analysis/findings.py says how each is
    judged and what to do about it)."""

    LINE_RATE = "line-rate"
    IMPOSSIBLE = "impossible"
    SUSPECT = "suspect"
    CPU_BOUND = "cpu-bound"
    IRQS_ON_ONE_CORE = "irqs-on-one-core"
    THROTTLED = "throttled"
    # The board's firmware reported its supply below what it needs (Raspberry Pi).
    UNDER_VOLTAGE = "under-voltage"
    BACKGROUND_LOAD = "background-load"
    DROPS = "drops"
    KERNEL_EVENT = "kernel-event"
    PARTIAL_SAMPLES = "partial-samples"
    STALLED = "stalled"
    LAB_LIMITED = "lab-limited"
    # A benchmark's device was already busy when it started (load average, processes).
    BUSY_BEFORE_START = "busy-before-start"
    # The CPU's top clock is below what the board is sold at (seed 002: 816 MHz, not 1.5 GHz).
    CLOCK_BELOW_ADVERTISED = "clock-below-advertised"
    # A search trial's generator sent less than it was asked to: the generator's limit.
    GENERATOR_LIMITED = "generator-limited"
    # A search stopped (trial budget) before its bounds were as close as asked.
    SEARCH_UNFINISHED = "search-unfinished"
    # What qualifies a trial's latency probes: ping instead of irtt, probes that failed,
    # probes that shared a saturated lab machine's cores with the load.
    PROBES = "probes"
    # What qualifies a trial through a VPN tunnel: its MTUs, a data channel offload that
    # fell back to userspace.
    TUNNEL = "tunnel"
