"""The words of the domain, as frozen dataclasses.

Everything inside wirespeed speaks these types; pydantic appears only where files come
in (plan.py). Values are checked when an object is built, so a bad one fails at the door
with a precise message instead of three calls later.

Units, once and for all: bytes are bytes, rates are bit/s (SI, 10^6 per Mbit), times are
seconds. Conversions from the tools' own units (iperf2's `M` = 2^20 in `-b`, `KByte` =
1024 bytes in its banners) happen in the parsers and argv builders, never elsewhere.
"""

from __future__ import annotations

import dataclasses
import enum
import re
import shlex
from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

# The domain's first words, a kind's options as the store keeps them, what each tool is
# and the closed sets of warnings and findings have modules of their own: the rest of
# wirespeed takes them from here, with the words built on them.
from wirespeed.domain_words import (
    Better as Better,
)
from wirespeed.domain_words import (
    Direction as Direction,
)
from wirespeed.domain_words import (
    Flow as Flow,
)
from wirespeed.domain_words import (
    Measurement as Measurement,
)
from wirespeed.domain_words import (
    ModelError as ModelError,
)
from wirespeed.domain_words import (
    Probes as Probes,
)
from wirespeed.domain_words import (
    Proto as Proto,
)
from wirespeed.domain_words import (
    Role as Role,
)
from wirespeed.domain_words import (
    Side as Side,
)
from wirespeed.domain_words import (
    Topology as Topology,
)
from wirespeed.domain_words import (
    require,
)
from wirespeed.kind_options import (
    BenchSpec as BenchSpec,
)
from wirespeed.kind_options import (
    FrozenMapping as FrozenMapping,
)
from wirespeed.kind_options import (
    frozen_options as frozen_options,
)
from wirespeed.trial_kind import Figures, hooks_of, kind_of
from wirespeed.trial_kind import Tool as Tool
from wirespeed.verdict_kinds import FindingKind as FindingKind
from wirespeed.verdict_kinds import WarningKind as WarningKind

# The kernel's names of congestion control modules (tcp_cubic: "cubic", "bbr", "reno").
_CONGESTION = re.compile(r"[a-z][a-z0-9_]{0,15}")


@dataclass(frozen=True)
class TestSpec:
    """One iperf invocation in tool-neutral words."""

    __test__ = False  # not a pytest test class, despite the name

    protocol: Proto = Proto.TCP
    duration: float = 10.0
    direction: Direction = Direction.UP
    parallel: int = 1
    window: int | None = None  # socket buffer in bytes (-w); the kernel may double it
    rate: int | None = None  # target bit/s of payload (both tools count payload only)
    length: int | None = None  # bytes per write; for UDP the datagram payload (-l)
    mtu: int | None = None  # link MTU for this test; None keeps the path's own
    interval: float = 1.0  # seconds between interval reports
    probes: Probes | None = None  # latency probes before and during the load; None: none
    # The TCP senders' congestion control (cubic, bbr, reno ...); None: the system's.
    congestion: str | None = None
    # RRUL only: add streams each way until the goodput is stable, then probe (an
    # RPM-like measure of responsiveness, run/rrul_ramp.py).
    until_stable: bool = False

    def __post_init__(self) -> None:
        require(self.duration > 0, f"duration must be positive, got {self.duration}")
        require(1 <= self.parallel <= 128, f"parallel must be 1..128, got {self.parallel}")
        require(self.window is None or self.window > 0, "window must be positive")
        require(self.rate is None or self.rate > 0, "rate must be positive")
        require(self.length is None or self.length > 0, "length must be positive")
        require(self.mtu is None or 68 <= self.mtu <= 65535, "mtu must be 68..65535")
        require(self.interval > 0, "interval must be positive")
        require(
            self.congestion is None or _CONGESTION.fullmatch(self.congestion) is not None,
            f"congestion must be an algorithm's name such as cubic or bbr, got {self.congestion!r}",
        )

    @property
    def flows(self) -> tuple[Flow, ...]:
        if self.direction is Direction.UP:
            return (Flow.UP,)
        if self.direction is Direction.DOWN:
            return (Flow.DOWN,)
        return (Flow.UP, Flow.DOWN)


Settings = TypeVar("Settings")


@dataclass(frozen=True)
class TestCase:
    """A test of the plan: an id the user chose, a name, a tool and what to run.

    A traffic test (iperf, RRUL) has its spec; a kind with settings of its own under
    `options:` (its module's `options` hook, kinds/) has them in `bench` (a benchmark on
    one host, bounceback ...), a forwarding-rate search in `search` (plan/forwarding.py),
    as the store keeps them; for those, `spec` is unused, and `settings` is the same
    options as the kind's own model."""

    __test__ = False

    id: str
    name: str
    tool: Tool
    spec: TestSpec
    bench: BenchSpec | None = None
    search: BenchSpec | None = None  # stored as `bench` is: the tool tells them apart

    @property
    def yields_flows(self) -> bool:
        """A traffic test whose figures are its flows (iperf, RRUL); a benchmark's, a
        search's and other kinds' are measurements (trial_kind.py says which)."""
        return kind_of(self.tool).yields is Figures.FLOWS

    @property
    def options(self) -> BenchSpec | None:
        """Its kind's own `options:` (trial_kind.py), whichever field keeps them; None for a
        test whose settings are its own keys (iperf, RRUL)."""
        return self.search if self.search is not None else self.bench

    def with_options(self, options: BenchSpec | None, settings: object = None) -> TestCase:
        """This test with its kind's `options:` in the field its kind keeps them in: a
        search's in `search`, any other kind's in `bench`; `settings`: the same options
        as the kind's model already validated them (the plan's), else validated once at
        first use."""
        if kind_of(self.tool).searches:
            test = dataclasses.replace(self, search=options, bench=None)
        else:
            test = dataclasses.replace(self, bench=options, search=None)
        if settings is not None:
            vars(test)["settings"] = settings  # where cached_property keeps its value
        return test

    @cached_property
    def settings(self) -> object:
        """Its kind's `options:` as the kind's own frozen model (its `options` hook),
        validated once per test; None for a kind whose settings are the test's own keys
        (iperf, RRUL)."""
        options, model = self.options, hooks_of(self.tool).options
        if options is None or model is None:
            return None
        return model.model_validate(options.as_dict())

    def settings_as(self, model: type[Settings]) -> Settings:
        """Its settings, which are `model`'s: TypeError for a test of another kind."""
        settings = self.settings
        if not isinstance(settings, model):
            raise TypeError(f"test {self.id!r} ({self.tool}) has no {model.__name__}")
        return settings


MAX_QUEUE_SECONDS = 10.0  # a queue of more than seconds is a typo, not a router
MAX_RING = 1_000_000  # packets: far beyond any NIC's ring, a number above is a typo


@dataclass(frozen=True)
class LinkModel:
    """A link's line rate and framing, for shaping in the lab and for ceilings."""

    name: str  # "gbe", "fe", "2.5gbe", "10gbe", "unshaped" or a rate like "300mbit"
    rate_bps: int | None  # None: unshaped (veth runs as fast as the CPU lets it)
    mtu: int = 1500
    # Seconds of data the bottleneck's queue holds (a bufferbloated router); None: the
    # lab's own small queue (lab/shaping.py says why it is small).
    queue: float | None = None

    def __post_init__(self) -> None:
        require(self.rate_bps is None or self.rate_bps > 0, "link rate must be positive")
        require(68 <= self.mtu <= 65535, f"mtu must be 68..65535, got {self.mtu}")
        require(
            self.queue is None or 0 < self.queue <= MAX_QUEUE_SECONDS,
            f"queue must be above 0 and at most {MAX_QUEUE_SECONDS:g} s, got {self.queue}",
        )
        require(
            self.queue is None or self.rate_bps is not None,
            "a queue needs a shaped link (an unshaped veth has no bottleneck to queue at)",
        )


@dataclass(frozen=True)
class ForwardingLimit:
    """The most a lab DUT forwards, as a slow device's CPU would allow: a packet rate, a
    bit rate, or both (whichever bites first).

    Both count every packet the device forwards, in both directions together, as a CPU
    that forwards 15,000 packets/s does not care which way they go. `bps` means what a
    link's rate means (LIMITS.md): bits on the wire, each frame with its Ethernet header,
    FCS, preamble and inter-frame gap (the IP packet + 38 bytes), so that
    `bps=100_000_000` forwards what a Fast Ethernet port carries. The lab turns it into
    the device's own terms (lab/limits.py).

    What the device cannot forward yet waits in its ring of `ring` packets, and only what
    finds the ring full is dropped, as a CPU-bound router's NIC ring and backlog hold
    what its CPU has not reached yet; None: the lab's default ring (lab/limits.py says
    which and why), or the link's queue at the packet rate when the lab has one."""

    pps: int | None = None  # packets/s
    bps: int | None = None  # bit/s on the wire, as a link's rate
    ring: int | None = None  # packets waiting for the CPU at most; None: the lab's default

    def __post_init__(self) -> None:
        require(
            self.pps is not None or self.bps is not None,
            "a forwarding limit needs a packet rate, a bit rate or both",
        )
        require(self.pps is None or self.pps > 0, f"packet rate must be positive, got {self.pps}")
        require(self.bps is None or self.bps > 0, f"bit rate must be positive, got {self.bps}")
        require(
            self.ring is None or 1 <= self.ring <= MAX_RING,
            f"ring must be 1..{MAX_RING} packets, got {self.ring}",
        )

    @property
    def label(self) -> str:
        """Short, for lab names and reports: '15kpps', '100mbit', '15kpps-100mbit',
        '15kpps-ring500'."""
        words = []
        if self.pps is not None:
            words.append(_shortest(self.pps, "pps", "kpps", "mpps"))
        if self.bps is not None:
            words.append(_shortest(self.bps, "bit", "kbit", "mbit", "gbit"))
        if self.ring is not None:
            words.append(f"ring{self.ring}")
        return "-".join(words)


def _shortest(value: int, *units: str) -> str:
    """The largest unit (powers of 1000) that writes value as a whole number."""
    for power in range(len(units) - 1, 0, -1):
        if value % 1000**power == 0:
            return f"{value // 1000**power}{units[power]}"
    return f"{value}{units[0]}"


class TunnelKind(enum.StrEnum):
    OPENVPN = "openvpn"
    WIREGUARD = "wireguard"


class TunnelEnds(enum.StrEnum):
    """Where a path's VPN tunnel ends."""

    DUT = "dut"  # from the client to the DUT: the DUT is the VPN gateway and decrypts
    THROUGH = "through"  # from the client to the server: the DUT forwards encrypted packets


@dataclass(frozen=True)
class TunnelSpec:
    """A VPN tunnel the path's traffic goes through (tools/openvpn.py, tools/wireguard.py).

    tun_mtu is the tunnel interface's MTU (None: the tool's default, OpenVPN 1500,
    WireGuard 1420). fragment and mssfix are OpenVPN's options of those names (None: its
    default; 0: off); cipher its data channel cipher (None: negotiated); proto the outer
    transport (WireGuard: UDP only)."""

    kind: TunnelKind
    ends: TunnelEnds = TunnelEnds.DUT
    tun_mtu: int | None = None
    fragment: int | None = None
    mssfix: int | None = None
    cipher: str | None = None
    proto: Proto = Proto.UDP

    def __post_init__(self) -> None:
        require(
            self.tun_mtu is None or 68 <= self.tun_mtu <= 65535,
            f"tun_mtu must be 68..65535, got {self.tun_mtu}",
        )
        require(
            self.kind is TunnelKind.OPENVPN
            or (self.fragment is None and self.mssfix is None and self.cipher is None),
            "fragment, mssfix and cipher are OpenVPN's options",
        )
        require(
            self.kind is TunnelKind.OPENVPN or self.proto is Proto.UDP,
            "WireGuard runs over UDP only",
        )


@dataclass(frozen=True)
class PathSpec:
    """Who talks to whom, and what sits in between."""

    name: str  # the column header in reports: "WAN", "Br0"
    topology: Topology
    client: str  # host names from the plan (or the lab's role names)
    server: str
    dut: str | None = None
    link: LinkModel | None = None  # for the ceiling; the lab's link when emulated
    # A lab DUT's emulated forwarding limit (the plan's `dut: {forward_pps: ...}`);
    # None: it forwards as fast as this machine does. Lab paths only.
    limit: ForwardingLimit | None = None
    tunnel: TunnelSpec | None = None  # the VPN tunnel the traffic goes through


@dataclass(frozen=True)
class PowerSettings:
    """The plan's `power:` section: a meter command (None: the device's own sensors),
    how often to read it, and how long the idle baseline before each trial lasts."""

    meter: str | None = None
    interval: float = 1.0
    idle: float = 3.0

    def __post_init__(self) -> None:
        require(self.interval > 0, "the power meter's interval must be positive")
        require(self.idle >= 0, "the idle baseline must not be negative")

    @property
    def argv(self) -> tuple[str, ...]:
        return tuple(shlex.split(self.meter)) if self.meter else ()


@dataclass(frozen=True)
class ToolWarning:
    kind: WarningKind
    message: str  # the tool's own words where it printed any, else ours


@dataclass(frozen=True)
class Interval:
    """One interval report of a stream or of a direction's sum."""

    start: float
    end: float
    bytes: int
    bits_per_second: float
    retransmits: int | None = None
    jitter_ms: float | None = None
    lost: int | None = None
    packets: int | None = None

    def __post_init__(self) -> None:
        require(self.end >= self.start, f"interval ends before it starts: {self}")
        require(self.bytes >= 0, "bytes must not be negative")


@dataclass(frozen=True)
class Transfer:
    """What one end saw of a flow: bytes over seconds."""

    bytes: int
    seconds: float
    bits_per_second: float

    def __post_init__(self) -> None:
        require(self.bytes >= 0, "bytes must not be negative")
        require(self.seconds >= 0, "seconds must not be negative")


@dataclass(frozen=True)
class UdpStats:
    """Receiver-side UDP counters. loss_percent is computed, not the tool's 2-digit %."""

    jitter_ms: float | None
    lost: int
    packets: int  # total the receiver accounted for (received + lost)
    out_of_order: int | None = None

    @property
    def loss_percent(self) -> float | None:
        return None if self.packets <= 0 else 100.0 * self.lost / self.packets


@dataclass(frozen=True)
class StreamResult:
    """One stream (socket) of one flow."""

    id: int  # the tool's own id: iperf2's [  3], iperf3's socket number
    flow: Flow
    sent: Transfer | None = None
    received: Transfer | None = None
    retransmits: int | None = None
    udp: UdpStats | None = None
    intervals: tuple[Interval, ...] = ()


@dataclass(frozen=True)
class DirectionResult:
    """Everything measured of one flow direction, summed over its streams."""

    flow: Flow
    sent: Transfer | None = None
    received: Transfer | None = None
    retransmits: int | None = None
    udp: UdpStats | None = None
    streams: tuple[StreamResult, ...] = ()
    intervals: tuple[Interval, ...] = ()  # the sum series

    @property
    def goodput_bps(self) -> float | None:
        """The receiver's rate where known: the sender's rate counts what was lost too."""
        if self.received is not None:
            return self.received.bits_per_second
        if self.sent is not None:
            return self.sent.bits_per_second
        return None

    @property
    def goodput_source(self) -> Side | None:
        """Which end measured goodput_bps: the receiving or the sending one."""
        if self.received is not None:
            return Side.SERVER if self.flow is Flow.UP else Side.CLIENT
        if self.sent is not None:
            return Side.CLIENT if self.flow is Flow.UP else Side.SERVER
        return None


@dataclass(frozen=True)
class Result:
    """A test's normalized result: the same shape whichever tool and format produced it.

    A traffic tool's result is its flow directions (protocol set); a benchmark's is its
    measurements (protocol None, no directions). `measured()` gives both kinds alike."""

    tool: Tool
    protocol: Proto | None
    directions: tuple[DirectionResult, ...]
    warnings: tuple[ToolWarning, ...] = ()
    tool_version: str | None = None
    measurements: tuple[Measurement, ...] = ()  # what a benchmark's parser yielded

    def direction(self, flow: Flow) -> DirectionResult | None:
        return next((d for d in self.directions if d.flow is flow), None)

    def measured(self) -> tuple[Measurement, ...]:
        """Every measurement of the trial: a benchmark's own, and for a traffic test
        goodput, loss, jitter and retransmits of each flow, derived from its detail."""
        derived: list[Measurement] = []
        for direction in self.directions:
            flow = (("flow", direction.flow.value),)
            # Goodput is what arrived: a rate only the sender saw counts what was lost
            # too (all of it, when nothing reached the receiver), so it is never named so
            # and never meets an expectation (reports show it, marked as the sender's).
            if direction.received is not None:
                goodput = direction.received.bits_per_second
                derived.append(Measurement("goodput", "bit/s", Better.HIGHER, goodput, flow))
            udp = direction.udp
            if udp is not None and udp.loss_percent is not None:
                derived.append(Measurement("loss", "%", Better.LOWER, udp.loss_percent, flow))
            if udp is not None and udp.jitter_ms is not None:
                derived.append(Measurement("jitter", "ms", Better.LOWER, udp.jitter_ms, flow))
            if direction.retransmits is not None:
                derived.append(
                    Measurement(
                        "retransmits", "count", Better.LOWER, float(direction.retransmits), flow
                    )
                )
        return (*derived, *self.measurements)


@dataclass(frozen=True)
class RawOutput:
    """A tool's output exactly as it came, so parsing can be redone."""

    host: str
    side: Side
    argv: tuple[str, ...]
    format: str  # "text", "csv" or "json"
    text: str
    stderr: str = ""
    exit_status: int | None = None


@dataclass(frozen=True)
class Trial:
    """One TestCase on one path in one variant, repetition k (from 1)."""

    test: TestCase
    path: PathSpec
    variant: str = "default"
    repetition: int = 1

    @property
    def key(self) -> str:
        return f"{self.test.id}/{self.path.name}/{self.variant}/{self.repetition}"


@dataclass(frozen=True)
class Finding:
    kind: FindingKind
    message: str  # with the numbers: "cpu0 99 % busy, 93 % of it softirq (IRQ 27 eth0)"
    flow: Flow | None = None


@dataclass(frozen=True)
class MonitorRecord:
    """What a sampler saw on one host during a trial: its raw stream, so parsing can be
    redone, and the summary made of it (JSON of sampling.MonitorSummary, versioned)."""

    host: str
    role: str  # dut, client or server
    interval: float
    raw: str
    summary: str  # "" when the stream held nothing to summarize
    partial: bool = False
    reason: str | None = None


class TrialStatus(enum.StrEnum):
    OK = "ok"
    FAILED = "failed"


@dataclass(frozen=True)
class TrialOutcome:
    """What became of a trial: its result, or why there is none; always its raw outputs."""

    trial: Trial
    status: TrialStatus
    started_at: float  # unix time
    finished_at: float
    result: Result | None = None
    reason: str | None = None
    raw: tuple[RawOutput, ...] = field(default_factory=tuple)
    monitors: tuple[MonitorRecord, ...] = ()
    findings: tuple[Finding, ...] = ()

    def __post_init__(self) -> None:
        require(
            self.status is not TrialStatus.OK or self.result is not None,
            "a trial that passed must carry a result",
        )
        require(
            self.status is not TrialStatus.FAILED or bool(self.reason),
            "a failed trial must say why",
        )
