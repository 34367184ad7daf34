"""The registry of kinds: every tool has one kind, and every name it gives resolves."""

from __future__ import annotations

import inspect

import pytest
from pydantic import BaseModel

from wirespeed.kinds import KINDS, Figures, TrialKind, kind_of, resolve
from wirespeed.model import Tool


@pytest.mark.parametrize("tool", list(Tool))
def test_every_tool_has_exactly_one_kind(tool: Tool) -> None:
    serving = [kind for kind in KINDS if tool in kind.tools]
    assert len(serving) == 1
    assert kind_of(tool) is serving[0]


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.name)
def test_what_a_kind_names_exists(kind: object) -> None:
    from wirespeed.kinds import TrialKind

    assert isinstance(kind, TrialKind)
    run = resolve(kind.runs)
    assert callable(run)
    assert list(inspect.signature(run).parameters) == ["trial", "site"]
    if kind.options is not None:
        model = resolve(kind.options)
        assert isinstance(model, type) and issubclass(model, BaseModel)
    if kind.driver is not None:
        resolve(kind.driver)
    if not kind.moves_traffic:
        # A benchmark on one host: its driver (tools/bench.py) serves this kind's tool
        # and validates the options this kind names.
        from wirespeed.tools.bench import bench_driver_for

        assert kind.options is not None
        for tool in kind.tools:
            driver = bench_driver_for(tool)
            assert driver.TOOL is tool
            assert driver.Options is resolve(kind.options)
    # A traffic kind names what both ends run; one on one host finds its own program.
    assert (kind.program is not None) is kind.moves_traffic
    if kind.yields_from is not None:
        yields_from = resolve(kind.yields_from)
        assert callable(yields_from)
        assert list(inspect.signature(yields_from).parameters) == ["test", "power"]
    if kind.checks is not None:
        checks = resolve(kind.checks)
        assert callable(checks)
        assert list(inspect.signature(checks).parameters) == [
            "test",
            "paths",
            "out",
            "variant_mtus",
            "hosts",
        ]
    # A kind whose streams are its own says itself what of a test's settings applies.
    assert kind.checks is not None or not kind.own_streams


def test_the_tools_questions_are_the_registrys() -> None:
    assert Tool.IPERF3.moves_traffic and not Tool.IPERF3.searches
    assert Tool.FORWARDING.moves_traffic and Tool.FORWARDING.searches
    assert not Tool.SEVENZIP.moves_traffic
    assert kind_of(Tool.RRUL).yields is Figures.FLOWS
    assert kind_of(Tool.OPENSSL).yields is Figures.MEASUREMENTS


def test_a_kind_is_a_value_hashable_like_the_tool_it_serves() -> None:
    assert len(set(KINDS)) == len(KINDS)


def test_a_name_that_does_not_exist_fails_to_resolve() -> None:
    with pytest.raises(AttributeError):
        resolve("wirespeed.run.kind_runs:run_nothing")
    with pytest.raises(ModuleNotFoundError):
        resolve("wirespeed.run.no_such_module:run")


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
    # model.py takes its Tool from here, and `wirespeed --help` imports it: it stays the
    # lowest layer, whatever the kinds' own modules above the run loop import.
    printed = _fresh_interpreter(
        "import sys, wirespeed.kinds\n"
        "print(sorted(m for m in sys.modules if m.startswith('wirespeed')))"
    )
    assert printed.strip() == "['wirespeed', 'wirespeed.kinds', 'wirespeed.kinds.registry']"


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
        "from wirespeed.kinds import Tool\n"
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
        "bounceback bounceback bounceback_seconds",
    ]


def test_a_kind_without_hooks_is_refused_when_the_catalog_is_made(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wirespeed.kinds import catalog

    monkeypatch.setattr(catalog, "HOOKS", catalog.HOOKS[1:])
    with pytest.raises(AssertionError, match="kinds without hooks \\['iperf'\\]"):
        catalog._by_tool()
