"""A new kind is its own module: one the package does not hold (tests/support/another_kind/
echo_rtt.py), found by the catalog as every kind's module is, is a tool the plan accepts,
its facts the registry's, its options checked and pointed at by line, with nothing of
wirespeed changed."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from wirespeed import kinds
from wirespeed.kinds import catalog
from wirespeed.model import Tool
from wirespeed.plan import PlanError, expand, parse_plan
from wirespeed.trial_kind import Figures, kind_of, tools

ANOTHER_KIND = Path(__file__).resolve().parents[1] / "support" / "another_kind"
ECHO = Tool("echo-rtt")


@pytest.fixture
def echo_rtt(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The catalog made again with one more module among the kinds', and wired as the
    command line wires it."""
    monkeypatch.setattr(kinds, "__path__", [*kinds.__path__, str(ANOTHER_KIND)])
    monkeypatch.setattr(catalog, "HOOKS", catalog.found())
    monkeypatch.setattr(catalog, "BY_TOOL", catalog.by_tool(catalog.HOOKS))
    kinds.wire_hooks()
    try:
        yield
    finally:
        monkeypatch.undo()
        sys.modules.pop(f"{kinds.__name__}.echo_rtt", None)
        kinds.wire_hooks()


def _plan(test: str) -> str:
    return textwrap.dedent(
        f"""\
        lab: {{link: gbe}}
        paths: [{{name: R, topology: router}}, {{name: D, topology: device}}]
        tests:
          - {test}
        """
    )


def _problems(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(text, source="plan.yaml")
    return [f"{p.line}:{p.column}: {p.message}" for p in caught.value.problems]


def test_without_its_module_the_tool_is_refused_with_those_there_are() -> None:
    assert ECHO not in tools()
    (problem,) = _problems(_plan("{id: e, tool: echo-rtt}"))
    *others, last = tools()
    assert problem == f"4:19: tool: 'echo-rtt' is not one of {', '.join(others)} or {last}"


@pytest.mark.usefixtures("echo_rtt")
def test_a_kinds_own_module_makes_its_tool_one_the_plan_accepts() -> None:
    assert ECHO in tools()
    kind = kind_of(ECHO)
    assert (kind.name, kind.tools, kind.title, kind.program) == (
        "echo-rtt",
        (ECHO,),
        "echo round trips",
        "iperf",
    )
    assert kind.moves_traffic and not kind.searches and kind.yields is Figures.MEASUREMENTS
    plan = parse_plan(
        _plan(
            "{id: e, tool: ECHO-RTT, options: {size: 1000, duration: 3},"
            ' expect: {bounceback rtt: {stat: mean, value: "< 2 ms"}}}'
        ),
        source="plan.yaml",
    )
    (trial,) = expand(plan)  # on the router path: it needs a client and a server
    assert trial.test.tool is ECHO and trial.path.name == "R"
    assert trial.test.name == "echo round trips"
    assert trial.test.bench is not None and trial.test.bench.as_dict() == {
        "duration": 3,
        "size": 1000,
    }
    assert catalog.trial_seconds(trial.test) > catalog.kind_seconds(trial.test) == 3


@pytest.mark.usefixtures("echo_rtt")
def test_a_mistake_in_the_new_kinds_test_is_pointed_at_by_line() -> None:
    assert _problems(_plan("{id: e, tool: echo-rtt, options: {size: 10}}")) == [
        "4:45: size: must be at least 64, got 10"
    ]
    (problem,) = _problems(_plan("{id: e, tool: echo-rtt, paths: [D]}"))
    assert problem == (
        "4:37: test 'e': echo-rtt needs a client and a server, and 'D' is a device path "
        "(no traffic)"
    )
    (problem,) = _problems(_plan("{id: e, tool: echo-rt}"))
    assert problem.startswith("4:19: tool: 'echo-rt' is not one of ")
    assert " echo-rtt, " in problem and "(did you mean 'echo-rtt'?)" in problem
