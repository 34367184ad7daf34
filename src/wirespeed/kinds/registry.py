"""The kinds of trial, registered once: what each is, where it runs, what it yields.

A kind serves one or more tools of the plan (`tool: iperf3`), and says:
- whether it moves traffic (a client and a server on a path) or runs on one host (a
  device path);
- how a trial of it runs: the function the runner calls with the trial and its site
  (run/site.py), named as an entry point ("module:function");
- what it yields: a traffic test's flows, or measurements (the common currency every
  report, `compare` and `expect:` work on without knowing the kind), and the function
  that names, from the plan alone, the measurements `expect:` may ask of it;
- its plan settings: the test's own keys (protocol, direction ...), or an `options:`
  model of its own, named as an entry point, and the checks of them that are its own.

The runner, the plan's checks and the tools' questions (Tool.moves_traffic) ask this
registry and never which tool a test is. It names the tools (Tool, which model.py
takes from here) and imports nothing of wirespeed: it is the lowest layer. The
functions and models are named rather than imported because they live in layers above
this one (run/, tools/, plan/): resolving
one imports its module only when a run or a plan needs it, which also keeps `wirespeed
--help` fast. tests/unit/test_kinds.py resolves every name, so a typo fails there.

What a kind does is moving into one module per kind above the run loop, its hooks there
as objects (kinds/hooks.py, kinds/catalog.py): so far its time estimate and the line after
a finished trial's name; the names above are what is left to move.

A tunnel is not a kind: it wraps the path whatever kind runs through it.
"""

from __future__ import annotations

import enum
import importlib
from dataclasses import dataclass


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
    runs: str  # "module:function", called as function(trial, site) -> TrialOutcome
    title: str | None = None  # what a test without a name is called; None: from its spec
    # "module:Model" of its `options:` (a pydantic model); None: the test's own keys.
    options: str | None = None
    searches: bool = False  # many trials at loads it chooses (the forwarding search)
    program: str | None = None  # what a traffic kind runs on both ends (iperf, iperf3)
    # "module" of the tool's parser and argv, for `runs`; a benchmark's is a
    # tools.bench.BenchDriver (its commands, parser, programs and packages).
    driver: str | None = None
    measures: tuple[Measures, ...] = ()  # besides what its own code names (plan/yields.py)
    # "module:function" naming the measurements its settings make, besides `measures` and
    # those of probes beside flows: function(test, power) -> plan.yields.Yields, where
    # power is the plan's `power:` (plan/kind_yields.py).
    yields_from: str | None = None
    # "module:function" of the plan checks that are its own, called on the test and the
    # paths it runs on before the generic ones:
    # function(test, paths, out, variant_mtus, hosts)
    # (plan/checks.py, plan/kind_checks.py).
    checks: str | None = None
    # Its streams are its own (RRUL: TCP both ways, more of them until stable): the test's
    # protocol, direction and datagrams are for its checks to judge, not the generic ones.
    own_streams: bool = False


_BENCH_RUN = "wirespeed.run.kind_runs:run_benchmark"
_YIELDS = "wirespeed.plan.kind_yields"
_CHECKS = "wirespeed.plan.kind_checks"

KINDS: tuple[TrialKind, ...] = (
    TrialKind(
        "iperf",
        (Tool.IPERF2,),
        moves_traffic=True,
        yields=Figures.FLOWS,
        runs="wirespeed.run.kind_runs:run_iperf",
        program="iperf",
        yields_from=f"{_YIELDS}:iperf_yields",
        checks=f"{_CHECKS}:check_iperf2",
    ),
    TrialKind(
        "iperf3",
        (Tool.IPERF3,),
        moves_traffic=True,
        yields=Figures.FLOWS,
        runs="wirespeed.run.kind_runs:run_iperf",
        program="iperf3",
        yields_from=f"{_YIELDS}:iperf_yields",
        checks=f"{_CHECKS}:check_iperf3",
    ),
    TrialKind(
        "rrul",
        (Tool.RRUL,),
        moves_traffic=True,
        yields=Figures.FLOWS,
        runs="wirespeed.run.kind_runs:run_rrul",
        program="iperf3",
        yields_from=f"{_YIELDS}:rrul_yields",
        checks=f"{_CHECKS}:check_rrul",
        own_streams=True,
    ),
    TrialKind(
        "openssl",
        (Tool.OPENSSL,),
        moves_traffic=False,
        yields=Figures.MEASUREMENTS,
        runs=_BENCH_RUN,
        title="openssl speed",
        options="wirespeed.tools.openssl:Options",
        driver="wirespeed.tools.openssl",
        yields_from=f"{_YIELDS}:openssl_yields",
    ),
    TrialKind(
        "7zip",
        (Tool.SEVENZIP,),
        moves_traffic=False,
        yields=Figures.MEASUREMENTS,
        runs=_BENCH_RUN,
        title="7-zip benchmark",
        options="wirespeed.tools.sevenzip:Options",
        driver="wirespeed.tools.sevenzip",
        yields_from=f"{_YIELDS}:sevenzip_yields",
    ),
    TrialKind(
        "unixbench",
        (Tool.UNIXBENCH,),
        moves_traffic=False,
        yields=Figures.MEASUREMENTS,
        runs=_BENCH_RUN,
        title="UnixBench",
        options="wirespeed.tools.unixbench:Options",
        driver="wirespeed.tools.unixbench",
        yields_from=f"{_YIELDS}:unixbench_yields",
    ),
    TrialKind(
        "forwarding",
        (Tool.FORWARDING,),
        moves_traffic=True,
        yields=Figures.MEASUREMENTS,
        runs="wirespeed.run.kind_runs:run_search",
        title="forwarding rate",
        options="wirespeed.plan.forwarding:ForwardingOptions",
        searches=True,
        program="iperf",  # iperf2 is the search's default generator
        checks=f"{_CHECKS}:check_forwarding",
        own_streams=True,  # it chooses its own loads, frames and durations
        yields_from=f"{_YIELDS}:forwarding_yields",
    ),
    TrialKind(
        "bounceback",
        (Tool.BOUNCEBACK,),
        moves_traffic=True,
        yields=Figures.MEASUREMENTS,
        runs="wirespeed.run.exchange_trial:run_exchange_trial",
        title="bounceback round trips",
        options="wirespeed.tools.bounceback:Options",
        program="iperf",
        driver="wirespeed.tools.bounceback",
        measures=(Measures("bounceback rtt", "ms", (("stat", ("mean", "min", "max")),)),),
    ),
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


def with_options() -> tuple[Tool, ...]:
    """The tools whose settings are an `options:` model of their own."""
    return tuple(tool for kind in KINDS if kind.options is not None for tool in kind.tools)


def resolve(entry: str) -> object:
    """What an entry point ("module:name", or "module") names, its module imported now."""
    module_name, _, attribute = entry.partition(":")
    module = importlib.import_module(module_name)
    return getattr(module, attribute) if attribute else module
