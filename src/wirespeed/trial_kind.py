"""The kinds of trial and the tools a plan names: what each kind is, where it runs, what
it yields. What each kind does (how a trial runs, its `options:` model, its driver, its
plan checks, its time estimate ...) is its own module's, as objects: kinds/<kind>.py.

A kind serves one or more tools of the plan (`tool: iperf3`), and says:
- whether it moves traffic (a client and a server on a path) or runs on one host (a
  device path);
- what it yields: a traffic test's flows, or measurements (the common currency every
  report, `compare` and `expect:` work on without knowing the kind);
- whether its streams are its own, and what a test without a name is called.

The runner, the plan's checks and the tools' questions (Tool.moves_traffic) ask these
facts and never which tool a test is. This module imports nothing of wirespeed: it is the
lowest layer, model.py takes Tool from here, and `wirespeed --help` stays fast.

The layers below the kinds' own modules (the plan, the run loop, the tools) reach a
kind's hooks through `hooks_of`, which whatever starts wirespeed wires to
kinds/catalog.py (kinds.wire_hooks()): they depend on what a hook is (their own
Protocols), never on the modules that give them.

A tunnel is not a kind: it wraps the path whatever kind runs through it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pydantic import BaseModel


class Tool(enum.StrEnum):
    """The `tool:` of a plan's test: each is served by one kind (KINDS below)."""

    IPERF2 = "iperf2"
    IPERF3 = "iperf3"
    # Benchmarks that run on one host, no traffic (tools/openssl.py, sevenzip.py ...).
    OPENSSL = "openssl"
    SEVENZIP = "7zip"
    UNIXBENCH = "unixbench"
    # The forwarding-rate search (RFC 2544 throughput, RFC 9971 MLRsearch): trials of
    # paced UDP at a packet rate through the path, per frame size (search/, run/).
    FORWARDING = "forwarding"
    # Realtime response under load (flent's RRUL): TCP streams both ways at once through
    # the path, with latency probes idle and during the load (tools/rrul.py, run/rrul_trial.py).
    RRUL = "rrul"
    # Round trips of small TCP messages between client and server (iperf2 --bounceback).
    BOUNCEBACK = "bounceback"
    # ICMP echo requests as fast as the far end answers (iputils' ping -f).
    PING_FLOOD = "ping-flood"

    # What each tool is, its kind, is said below; these ask it.
    @property
    def moves_traffic(self) -> bool:
        """A client and a server on a path (iperf, RRUL, the search that drives iperf);
        the others run on one host."""
        return kind_of(self).moves_traffic

    @property
    def searches(self) -> bool:
        """Many trials at loads it chooses, its settings under `options:`."""
        return kind_of(self).searches


class Figures(enum.StrEnum):
    FLOWS = "flows"  # goodput, loss, jitter per flow (and measurements beside them)
    MEASUREMENTS = "measurements"  # named figures only (model.Measurement)


@dataclass(frozen=True)
class Measures:
    """A measurement a kind yields whatever its options: for `expect:` to check names
    against before anything runs. `labels`: each label and the values it takes."""

    name: str
    unit: str
    labels: tuple[tuple[str, tuple[str, ...]], ...] = ()  # hashable, as a kind is


@dataclass(frozen=True)
class TrialKind:
    name: str
    tools: tuple[Tool, ...]
    moves_traffic: bool  # a client and a server on a path; else one host (a device path)
    yields: Figures
    title: str | None = None  # what a test without a name is called; None: from its spec
    searches: bool = False  # many trials at loads it chooses (the forwarding search)
    program: str | None = None  # what a traffic kind runs on both ends (iperf, iperf3)
    measures: tuple[Measures, ...] = ()  # besides what its own code names (plan/yields.py)
    # Its streams are its own (RRUL: TCP both ways, more of them until stable): the test's
    # protocol, direction and datagrams are for its checks to judge, not the generic ones.
    own_streams: bool = False


def _flows(name: str, tool: Tool, program: str, own_streams: bool = False) -> TrialKind:
    """A traffic kind whose figures are its flows, both ends running `program`."""
    return TrialKind(name, (tool,), True, Figures.FLOWS, program=program, own_streams=own_streams)


def _on_one_host(tool: Tool, title: str) -> TrialKind:
    """A benchmark on one host (a device path), its figures measurements."""
    return TrialKind(tool.value, (tool,), False, Figures.MEASUREMENTS, title=title)


def _measured_across(
    tool: Tool,
    title: str,
    *,
    searches: bool = False,
    own_streams: bool = False,
    measures: tuple[Measures, ...] = (),
    program: str = "iperf",
) -> TrialKind:
    """A kind measured between a path's ends, its figures measurements; `program` is what
    the client runs (iperf2 by default: the search's generator, bounceback's own)."""
    return TrialKind(
        tool.value,
        (tool,),
        True,
        Figures.MEASUREMENTS,
        title=title,
        searches=searches,
        program=program,
        measures=measures,
        own_streams=own_streams,
    )


_RTT = Measures("bounceback rtt", "ms", (("stat", ("mean", "min", "max")),))
_FLOOD = (
    Measures("flood rtt", "ms", (("stat", ("min", "mean", "max", "mdev")),)),
    Measures("flood loss", "%"),
    Measures("flood rate", "pps"),
)

KINDS: tuple[TrialKind, ...] = (
    _flows("iperf", Tool.IPERF2, program="iperf"),
    _flows("iperf3", Tool.IPERF3, program="iperf3"),
    _flows("rrul", Tool.RRUL, program="iperf3", own_streams=True),
    _on_one_host(Tool.OPENSSL, "openssl speed"),
    _on_one_host(Tool.SEVENZIP, "7-zip benchmark"),
    _on_one_host(Tool.UNIXBENCH, "UnixBench"),
    # A search chooses its own loads, frames and durations.
    _measured_across(Tool.FORWARDING, "forwarding rate", searches=True, own_streams=True),
    _measured_across(Tool.BOUNCEBACK, "bounceback round trips", measures=(_RTT,)),
    _measured_across(Tool.PING_FLOOD, "ping flood", program="ping", measures=_FLOOD),
)


def _by_tool() -> dict[Tool, TrialKind]:
    found: dict[Tool, TrialKind] = {}
    for kind in KINDS:
        for tool in kind.tools:
            assert tool not in found, f"{tool} is served by two kinds"
            found[tool] = kind
    return found


_BY_TOOL = _by_tool()


def kind_of(tool: Tool) -> TrialKind:
    """The kind that serves `tool`: every Tool has exactly one (tests/unit/test_kinds.py)."""
    return _BY_TOOL[tool]


class Hooks(Protocol):
    """What the layers below the kinds see of a kind's hooks (kinds/hooks.py KindHooks, where
    each is typed): a caller takes the hook it calls as its own Protocol says it."""

    @property
    def run(self) -> object: ...  # the trial on its site (run/kind_runs.py)
    @property
    def options(self) -> type[BaseModel] | None: ...  # its `options:` model; None: own keys
    @property
    def driver(self) -> object: ...  # the tool's parser and argv (tools/)
    @property
    def yields(self) -> object: ...  # what `expect:` may ask of its settings (plan/yields.py)
    @property
    def checks(self) -> object: ...  # its own plan checks (plan/checks.py)


_hooks_of: Callable[[Tool], Hooks] | None = None


def install_hooks(hooks_of: Callable[[Tool], Hooks]) -> None:
    """Where `hooks_of` finds a kind's hooks: kinds/catalog.py, wired once by whatever
    starts wirespeed (kinds.wire_hooks(): the command line, the test suite, a benchmark)."""
    global _hooks_of  # noqa: PLW0603 - the one wiring of the layers below to the kinds
    _hooks_of = hooks_of


def hooks_of(tool: Tool) -> Hooks:
    """The hooks of the kind that serves `tool`."""
    assert _hooks_of is not None, "wire the kinds' hooks first: wirespeed.kinds.wire_hooks()"
    return _hooks_of(tool)
