"""`expect:` mistakes that used to pass `check` silently: a name in the wrong case, two
rules for one cell, a comparison no figure can meet (or none can fail), an empty list;
and a value shown in the unit it was written in."""

from __future__ import annotations

import textwrap

import pytest

from support.cli import run_cli
from wirespeed.plan import PlanError, parse_plan

PLAN = """
lab: {link: gbe, dut: {forward_pps: 15000}}
paths:
  - {name: NAT, topology: nat}
tests:
  - id: fwd
    tool: forwarding
    options: {frame_sizes: [64, 1518], directions: [in, out], goals: [{name: NDR, loss: 0}]}
    expect: {EXPECT_FWD}
  - id: udp
    protocol: udp
    rate: 100M
    expect: {EXPECT_UDP}
"""


def plan_text(fwd: str = "{}", udp: str = "{}") -> str:
    return textwrap.dedent(PLAN).replace("{EXPECT_FWD}", fwd).replace("{EXPECT_UDP}", udp)


def problems_of(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(text, source="plan.yaml")
    return [f"{p.line}: {p.message} | {p.hint}" for p in caught.value.problems]


def warnings_of(text: str) -> list[str]:
    return [f"{p.line}: {p.message} | {p.hint}" for p in parse_plan(text).warnings]


def test_a_measurement_in_the_wrong_case_is_answered_with_its_name() -> None:
    (problem,) = problems_of(plan_text(fwd='{ndr: ">= 10k"}'))
    assert "unknown measurement 'ndr' (did you mean 'NDR'?)" in problem


def test_two_rules_for_the_same_cells_are_refused() -> None:
    fwd = '{NDR: [{frame: 64, value: ">= 10k"}, {frame: 64, value: ">= 12k"}]}'
    (problem,) = problems_of(plan_text(fwd=fwd))
    assert problem.startswith("9: NDR: two rules for the same cells (NDR 64 B)")


def test_two_rules_that_share_a_cell_are_said() -> None:
    fwd = '{NDR: [{value: ">= 1k"}, {frame: 64, direction: in, value: ">= 12k"}]}'
    (warning,) = warnings_of(plan_text(fwd=fwd))
    assert warning.startswith("9: NDR: two rules for the cell NDR 64 B, in:")
    assert "both must hold" in warning


@pytest.mark.parametrize(
    ("udp", "said"),
    [
        ('{loss: "< 0 %"}', "loss < 0 % can never be met: loss is never below 0 %"),
        ('{loss: "> 100 %"}', "loss > 100 % can never be met: loss is never above 100 %"),
    ],
)
def test_a_comparison_no_figure_can_meet_is_refused(udp: str, said: str) -> None:
    (problem,) = problems_of(plan_text(udp=udp))
    assert said in problem, problem


def test_a_comparison_no_figure_can_fail_is_said() -> None:
    (warning,) = warnings_of(plan_text(udp='{loss: "<= 100 %"}'))
    assert "loss <= 100 % is always met" in warning


def test_an_empty_list_expects_nothing_and_is_refused() -> None:
    (problem,) = problems_of(plan_text(fwd="{NDR: []}"))
    assert "NDR: an empty list expects nothing" in problem


def test_an_empty_mapping_of_flows_expects_nothing_and_is_refused() -> None:
    (problem,) = problems_of(plan_text(udp="{goodput: {}}"))
    assert "goodput: an empty mapping expects nothing" in problem


def test_a_rate_is_shown_in_the_unit_it_was_written_in() -> None:
    plan = parse_plan(plan_text(udp='{goodput: ">= 1M"}'))
    (goodput,) = plan.expectations_for("udp", "NAT", "default")
    assert goodput.text == "goodput >= 1.0 Mbit/s"
    plan = parse_plan(plan_text(udp='{goodput: ">= 0.5G"}'))
    (goodput,) = plan.expectations_for("udp", "NAT", "default")
    assert goodput.text == "goodput >= 0.500 Gbit/s"


def test_check_says_each_mistake(tmp_path: object) -> None:
    from pathlib import Path

    assert isinstance(tmp_path, Path)
    plan = tmp_path / "plan.yaml"
    plan.write_text(plan_text(udp='{loss: "< 0 %"}'))
    status, _, err = run_cli("check", str(plan))
    assert status == 2
    assert "can never be met" in err
