"""The kinds: every tool has one kind, declared in its module beside its hooks, and every
kind its hooks, of the shapes their callers take."""

from __future__ import annotations

import copy
import inspect
import pickle
from types import ModuleType
from typing import cast

import pytest
from pydantic import BaseModel

from wirespeed.kinds import catalog
from wirespeed.kinds.hooks import KindHooks
from wirespeed.model import Tool
from wirespeed.trial_kind import Figures, TrialKind, UnknownToolError, hooks_of, kind_of, tools

# Every kind, as its module declares it beside its hooks.
KINDS = [hooks.kind for hooks in catalog.HOOKS]


@pytest.mark.parametrize("tool", tools())
def test_every_tool_has_exactly_one_kind(tool: Tool) -> None:
    serving = [kind for kind in KINDS if tool in kind.tools]
    assert len(serving) == 1
    assert kind_of(tool) is serving[0]


def test_the_tools_are_those_the_kinds_serve_by_name() -> None:
    assert tools() == tuple(sorted(tool for kind in KINDS for tool in kind.tools))
    assert tools() == (
        "7zip",
        "bounceback",
        "forwarding",
        "iperf2",
        "iperf3",
        "openssl",
        "ping-flood",
        "rrul",
        "unixbench",
    )


@pytest.mark.parametrize(
    "name", ["IPERF2", "IPERF3", "OPENSSL", "SEVENZIP", "UNIXBENCH", "FORWARDING", "RRUL"]
)
def test_a_tool_the_layers_below_name_is_one_a_kind_serves(name: str) -> None:
    assert getattr(Tool, name) in tools()


def test_a_tool_is_one_object_per_name_wherever_it_was_made() -> None:
    # As an enum's members were: `tool is Tool.IPERF2` holds for a tool read back from the
    # store, a bundle or another process.
    assert Tool("iperf2") is Tool.IPERF2
    assert pickle.loads(pickle.dumps(Tool.RRUL)) is Tool.RRUL
    assert copy.deepcopy(Tool.OPENSSL) is Tool.OPENSSL
    for tool in tools():  # as the kinds' modules made them
        name = str(tool)
        assert type(name) is str and Tool(name) is tool and Tool(name) == name


def test_a_tool_no_kind_serves_is_made_but_has_no_kind() -> None:
    # A stored run keeps its tool as text: it loads, and asking its kind says which.
    unknown = Tool("netperf")
    assert unknown == "netperf" and unknown not in tools()
    with pytest.raises(UnknownToolError, match="no kind of this wirespeed serves tool 'netperf'"):
        kind_of(unknown)


def _hooks(kind: TrialKind) -> KindHooks:
    from wirespeed.kinds.catalog import hooks_of as catalog_hooks

    return catalog_hooks(kind.tools[0])


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_a_kinds_hooks_have_the_shapes_their_callers_take(kind: TrialKind) -> None:
    hooks = _hooks(kind)
    assert list(inspect.signature(hooks.run).parameters) == ["trial", "site"]
    if hooks.options is not None:
        assert issubclass(hooks.options, BaseModel)
    if not kind.moves_traffic:
        # A benchmark on one host: its driver (tools/bench.py) serves this kind's tool
        # and validates the options this kind has.
        from wirespeed.tools.bench import BenchDriver

        assert hooks.options is not None
        for tool in kind.tools:
            driver = hooks_of(tool).driver
            assert isinstance(driver, ModuleType)
            assert cast(BenchDriver, driver).TOOL is tool
            assert cast(BenchDriver, driver).Options is hooks.options
    # A traffic kind names what both ends run; one on one host finds its own program.
    assert (kind.program is not None) is kind.moves_traffic
    if hooks.yields is not None:
        assert list(inspect.signature(hooks.yields).parameters) == ["test", "power"]
    if hooks.checks is not None:
        assert list(inspect.signature(hooks.checks).parameters) == ["test", "on", "out"]
    # A kind whose streams are its own says itself what of a test's settings applies.
    assert hooks.checks is not None or not kind.own_streams


def test_the_layers_below_find_the_catalogs_hooks() -> None:
    # What the runner, the plan and the drivers ask (trial_kind.hooks_of) is what the
    # catalog holds, once the suite (as the command line) has wired them.
    assert all(hooks_of(tool) is _hooks(kind_of(tool)) for tool in tools())


def test_the_tools_questions_are_the_registrys() -> None:
    assert Tool.IPERF3.moves_traffic and not Tool.IPERF3.searches
    assert Tool.FORWARDING.moves_traffic and Tool.FORWARDING.searches
    assert not Tool.SEVENZIP.moves_traffic
    assert kind_of(Tool.RRUL).yields is Figures.FLOWS
    assert kind_of(Tool.OPENSSL).yields is Figures.MEASUREMENTS


def test_a_kind_is_a_value_hashable_like_the_tool_it_serves() -> None:
    assert len(set(KINDS)) == len(KINDS)


@pytest.mark.parametrize("tool", tools())
def test_a_kinds_options_go_where_its_kind_keeps_them(tool: Tool) -> None:
    from wirespeed.model import BenchSpec, TestCase, TestSpec

    options = BenchSpec(options=(("seconds", 3),))
    test = TestCase(id="t", name="t", tool=tool, spec=TestSpec()).with_options(options)
    # The store, a bundle and the plan put a kind's options back by its kind alone.
    assert test.options is options
    assert (test.search is options) is tool.searches
    assert (test.bench is options) is not tool.searches
    assert test.with_options(None).options is None


def _fresh_interpreter(code: str) -> str:
    """What `code` prints in a Python of its own: nothing imported before it runs."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout


@pytest.mark.process
def test_the_registry_imports_nothing_else_of_wirespeed() -> None:
    # model.py takes its Tool from here, and `wirespeed --help` imports it and the kinds'
    # package (to wire their hooks): both stay light, whatever the kinds' own modules above
    # the run loop import.
    printed = _fresh_interpreter(
        "import sys, wirespeed.kinds\n"
        "wirespeed.kinds.wire_hooks()\n"
        "print(sorted(m for m in sys.modules if m.startswith('wirespeed')))"
    )
    assert printed.strip() == "['wirespeed', 'wirespeed.kinds', 'wirespeed.trial_kind']"


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_every_kind_has_its_hooks_once(kind: TrialKind) -> None:
    from wirespeed.kinds.catalog import HOOKS, hooks_of

    given = [hooks for hooks in HOOKS if hooks.kind is kind]
    assert len(given) == 1
    hooks = given[0]
    assert all(hooks_of(tool) is hooks for tool in kind.tools)
    assert list(inspect.signature(hooks.estimate).parameters) == ["test", "in_lab"]
    if hooks.summary is not None:
        assert list(inspect.signature(hooks.summary).parameters) == ["measurements"]


@pytest.mark.process
def test_every_tools_hooks_are_found_in_a_fresh_interpreter() -> None:
    # Nothing registers itself when imported: asking the catalog first thing finds every
    # kind's hooks, whatever was imported before.
    printed = _fresh_interpreter(
        "from wirespeed.kinds.catalog import BY_TOOL, hooks_of\n"
        "for tool in BY_TOOL: print(tool, hooks_of(tool).kind.name, "
        "hooks_of(tool).estimate.__name__)"
    )
    assert printed.splitlines() == [  # by the names of the kinds' modules
        "openssl openssl benchmark_seconds",
        "7zip 7zip benchmark_seconds",
        "unixbench unixbench benchmark_seconds",
        "bounceback bounceback exchange_seconds",
        "forwarding forwarding estimated_seconds",
        "iperf2 iperf traffic_seconds",
        "iperf3 iperf3 traffic_seconds",
        "ping-flood ping-flood exchange_seconds",
        "rrul rrul traffic_seconds",
    ]


def _again(tool: Tool, kind: TrialKind) -> KindHooks:
    given = catalog.hooks_of(tool)
    return KindHooks(kind, given.run, given.estimate)


def test_a_tool_two_kinds_serve_is_refused_when_the_catalog_is_made() -> None:
    twice = TrialKind("iperf2 again", (Tool.IPERF2,), True, Figures.FLOWS, program="iperf")
    with pytest.raises(AssertionError, match=r"tools served twice \['iperf2'\], kinds \[\]"):
        catalog.by_tool((*catalog.HOOKS, _again(Tool.IPERF2, twice)))
    named_twice = TrialKind("rrul", (), True, Figures.FLOWS, program="iperf3")
    with pytest.raises(AssertionError, match=r"tools served twice \[\], kinds \['rrul'\]"):
        catalog.by_tool((*catalog.HOOKS, _again(Tool.RRUL, named_twice)))
