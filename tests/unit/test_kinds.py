"""The kinds: every tool has one kind, and every kind its hooks, of the shapes their callers
take."""

from __future__ import annotations

import inspect
from types import ModuleType
from typing import cast

import pytest
from pydantic import BaseModel

from wirespeed.kinds.hooks import KindHooks
from wirespeed.model import Tool
from wirespeed.trial_kind import KINDS, Figures, TrialKind, hooks_of, kind_of


@pytest.mark.parametrize("tool", list(Tool))
def test_every_tool_has_exactly_one_kind(tool: Tool) -> None:
    serving = [kind for kind in KINDS if tool in kind.tools]
    assert len(serving) == 1
    assert kind_of(tool) is serving[0]


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
    assert all(hooks_of(tool) is _hooks(kind_of(tool)) for tool in Tool)


def test_the_tools_questions_are_the_registrys() -> None:
    assert Tool.IPERF3.moves_traffic and not Tool.IPERF3.searches
    assert Tool.FORWARDING.moves_traffic and Tool.FORWARDING.searches
    assert not Tool.SEVENZIP.moves_traffic
    assert kind_of(Tool.RRUL).yields is Figures.FLOWS
    assert kind_of(Tool.OPENSSL).yields is Figures.MEASUREMENTS


def test_a_kind_is_a_value_hashable_like_the_tool_it_serves() -> None:
    assert len(set(KINDS)) == len(KINDS)


@pytest.mark.parametrize("tool", list(Tool))
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
        "from wirespeed.trial_kind import Tool\n"
        "from wirespeed.kinds.catalog import hooks_of\n"
        "for tool in Tool: print(tool.value, hooks_of(tool).kind.name, "
        "hooks_of(tool).estimate.__name__)"
    )
    assert printed.splitlines() == [
        "iperf2 iperf traffic_seconds",
        "iperf3 iperf3 traffic_seconds",
        "openssl openssl benchmark_seconds",
        "7zip 7zip benchmark_seconds",
        "unixbench unixbench benchmark_seconds",
        "forwarding forwarding estimated_seconds",
        "rrul rrul traffic_seconds",
        "bounceback bounceback exchange_seconds",
        "ping-flood ping-flood exchange_seconds",
    ]


def test_a_kind_without_hooks_is_refused_when_the_catalog_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wirespeed.kinds import catalog

    left_out = catalog.HOOKS[0].kind.name
    monkeypatch.setattr(catalog, "HOOKS", catalog.HOOKS[1:])
    with pytest.raises(AssertionError, match=f"kinds without hooks \\['{left_out}'\\]"):
        catalog._by_tool()
