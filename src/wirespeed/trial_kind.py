"""The kinds of trial and the tools a plan names: what a kind is, where it runs, what it
yields, and the registry the layers below ask it of. What each kind is (its TrialKind)
and what it does (how a trial runs, its `options:` model, its driver, its plan checks,
its time estimate ...) are its own module's, side by side: kinds/<kind>.py.

A kind serves one or more tools of the plan (`tool: iperf3`), and says:
- whether it moves traffic (a client and a server on a path) or runs on one host (a
  device path);
- what it yields: a traffic test's flows, or measurements (the common currency every
  report, `compare` and `expect:` work on without knowing the kind);
- whether its streams are its own, and what a test without a name is called.

The runner, the plan's checks and the tools' questions (Tool.moves_traffic) ask these
facts and never which tool a test is. This module imports nothing of wirespeed: it is the
lowest layer, model.py takes Tool from here, and `wirespeed --help` stays fast.

The layers below the kinds' own modules (the plan, the run loop, the tools) reach the
kinds through `tools`, `kind_of` and `hooks_of`, which whatever starts wirespeed wires to
kinds/catalog.py (kinds.wire_hooks()): they depend on what a hook is (their own
Protocols), never on the modules that give them. A tool is known because a kind's module
serves it, so a new kind is its own module and its driver, and nothing here.

A tunnel is not a kind: it wraps the path whatever kind runs through it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Protocol

if TYPE_CHECKING:
    from pydantic import BaseModel


class Tool(str):
    """The `tool:` of a plan's test, as its text: each known one is served by one kind
    (`tools()`, `kind_of`). A stored run keeps it as text, so a tool is made from any
    text; the plan accepts only those the kinds serve.

    One object per name (as an enum's members), so `tool is Tool.IPERF2` holds for a tool
    read back from the store or a bundle too. The constants are the tools the layers below
    the kinds name themselves (a parser's result, iperf2's own units, a search's result);
    a kind no lower layer names has none (kinds/bounceback.py, kinds/ping_flood.py)."""

    __slots__ = ()
    _made: ClassVar[dict[str, Tool]] = {}

    IPERF2: ClassVar[Tool]
    IPERF3: ClassVar[Tool]
    # Benchmarks that run on one host, no traffic (tools/openssl.py, sevenzip.py ...).
    OPENSSL: ClassVar[Tool]
    SEVENZIP: ClassVar[Tool]
    UNIXBENCH: ClassVar[Tool]
    # The forwarding-rate search (RFC 2544 throughput, RFC 9971 MLRsearch): trials of
    # paced UDP at a packet rate through the path, per frame size (search/, run/).
    FORWARDING: ClassVar[Tool]
    # Realtime response under load (flent's RRUL): TCP streams both ways at once through
    # the path, with latency probes idle and during the load (tools/rrul.py, run/rrul_trial.py).
    RRUL: ClassVar[Tool]

    def __new__(cls, name: str) -> Tool:
        made = cls._made.get(name)
        if made is None:
            made = cls._made[name] = super().__new__(cls, name)
        return made

    # What each tool is, its kind, is its kind's module's; these ask it.
    @property
    def moves_traffic(self) -> bool:
        """A client and a server on a path (iperf, RRUL, the search that drives iperf);
        the others run on one host."""
        return kind_of(self).moves_traffic

    @property
    def searches(self) -> bool:
        """Many trials at loads it chooses, its settings under `options:`."""
        return kind_of(self).searches


Tool.IPERF2 = Tool("iperf2")
Tool.IPERF3 = Tool("iperf3")
Tool.OPENSSL = Tool("openssl")
Tool.SEVENZIP = Tool("7zip")
Tool.UNIXBENCH = Tool("unixbench")
Tool.FORWARDING = Tool("forwarding")
Tool.RRUL = Tool("rrul")


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
    """What a kind is, declared by its module (kinds/<kind>.py) beside its hooks."""

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


def flows(name: str, tool: Tool, program: str, own_streams: bool = False) -> TrialKind:
    """A traffic kind whose figures are its flows, both ends running `program`."""
    return TrialKind(name, (tool,), True, Figures.FLOWS, program=program, own_streams=own_streams)


def on_one_host(tool: Tool, title: str) -> TrialKind:
    """A benchmark on one host (a device path), its figures measurements."""
    return TrialKind(str(tool), (tool,), False, Figures.MEASUREMENTS, title=title)


def measured_across(
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
        str(tool),
        (tool,),
        True,
        Figures.MEASUREMENTS,
        title=title,
        searches=searches,
        program=program,
        measures=measures,
        own_streams=own_streams,
    )


class Hooks(Protocol):
    """What the layers below the kinds see of a kind's hooks (kinds/hooks.py KindHooks, where
    each is typed): a caller takes the hook it calls as its own Protocol says it."""

    @property
    def kind(self) -> TrialKind: ...  # what it is, declared beside its hooks
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


# Each known tool's kind's hooks, as kinds/catalog.py finds them; asked once, when first
# needed, so that wiring imports nothing.
_find: Callable[[], Mapping[Tool, Hooks]] | None = None
_found: Mapping[Tool, Hooks] | None = None
_tools: tuple[Tool, ...] = ()


def install_hooks(find: Callable[[], Mapping[Tool, Hooks]]) -> None:
    """Where the kinds are found, by the tools they serve: kinds/catalog.py, wired once by
    whatever starts wirespeed (kinds.wire_hooks(): the command line, the test suite, a
    benchmark)."""
    global _find, _found
    _find, _found = find, None


def _registry() -> Mapping[Tool, Hooks]:
    global _found, _tools  # noqa: PLW0603 - found once, when first asked
    if _found is None:
        assert _find is not None, "wire the kinds first: wirespeed.kinds.wire_hooks()"
        _found = _find()
        _tools = tuple(sorted(_found))
    return _found


def tools() -> tuple[Tool, ...]:
    """Every tool a kind serves, by name: what a plan's `tool:` may be."""
    _registry()
    return _tools


def kind_of(tool: Tool) -> TrialKind:
    """The kind that serves `tool`: every tool of `tools()` has exactly one
    (tests/unit/test_kinds.py); UnknownToolError for one no kind of this version serves."""
    return hooks_of(tool).kind


class UnknownToolError(LookupError):
    """A tool no kind of this version serves: a plan's is refused before this (its
    `tool:` is checked against tools()), so this is a stored or bundled trial a newer
    wirespeed wrote. The command line says so (cli/exit.py)."""

    def __init__(self, tool: str) -> None:
        super().__init__(
            f"no kind of this wirespeed serves tool {tool!r} (it has {', '.join(tools())})"
        )
        self.tool = tool


def hooks_of(tool: Tool) -> Hooks:
    """The hooks of the kind that serves `tool`; UnknownToolError for one no kind serves."""
    found = _found if _found is not None else _registry()
    hooks = found.get(tool)
    if hooks is None:
        raise UnknownToolError(str(tool))
    return hooks
