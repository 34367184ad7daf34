"""A bounceback test in a plan: its options checked by its own model, its measurements
named by `expect:`, and the paths it runs on, all from the registry of kinds."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.plan import PlanError, expand, parse_plan


def problems_of(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(textwrap.dedent(text), source="plan.yaml")
    return [str(problem) for problem in caught.value.problems]


def test_a_bounceback_test_runs_on_the_traffic_paths_with_its_options() -> None:
    plan = parse_plan(
        textwrap.dedent(
            """
            lab: {link: gbe}
            paths: [{name: R, topology: router}, {name: D, topology: device}]
            tests:
              - {id: bb, tool: bounceback, options: {size: 1000},
                 expect: {bounceback rtt: {stat: mean, value: "< 2 ms"}}}
            """
        )
    )
    (trial,) = expand(plan)
    assert trial.path.name == "R" and trial.test.tool == "bounceback"
    assert trial.test.name == "bounceback round trips"
    assert trial.test.bench is not None
    assert trial.test.bench.as_dict() == {"duration": 5, "size": 1000}
    assert not trial.test.yields_flows


@pytest.mark.parametrize(
    ("test", "expected"),
    [
        (
            "{id: bb, tool: bounceback, protocol: udp}",
            "bounceback takes its settings under options",
        ),
        ("{id: bb, tool: bounceback, options: {size: 10}}", "size: must be at least 64, got 10"),
        (
            '{id: bb, tool: bounceback, expect: {bounceback rtt: {stat: p99, value: "< 1 ms"}}}',
            "p99",
        ),
        ('{id: bb, tool: bounceback, expect: {goodput: ">= 1M"}}', "unknown measurement"),
        ("{id: bb, tool: bounceback, paths: [D]}", "needs a client and a server"),
    ],
)
def test_a_mistake_in_a_bounceback_test_is_pointed_at(test: str, expected: str) -> None:
    found = problems_of(
        f"""
        lab: {{link: gbe}}
        paths: [{{name: R, topology: router}}, {{name: D, topology: device}}]
        tests:
          - {test}
        """
    )
    assert any(expected in problem for problem in found), found
