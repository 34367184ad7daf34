"""Forwarding-rate searches in a plan: options checked at their place, defaults that
follow RFC 2544, and what cannot work on a path refused before anything runs."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.model import Tool
from wirespeed.plan import PlanError, expand, parse_plan
from wirespeed.plan.forwarding import ForwardingOptions, estimated_seconds, ratio_of
from wirespeed.plan.forwarding_checks import search_options
from wirespeed.search.model import RFC2544_FRAME_SIZES


def problems_of(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(textwrap.dedent(text), source="plan.yaml")
    return [f"{p.line}:{p.column}: {p.message}" for p in caught.value.problems]


PLAN = """
lab: {link: gbe}
paths:
  - {name: NAT, topology: nat}
  - {name: DUT, topology: device}
tests:
  - id: fwd
    tool: forwarding
    options:
      frame_sizes: [1518, 518, 218, 73]
      directions: [in, out]
      goals: [{name: NDR, loss: 0}, {name: PDR, loss: 0.5%, exceed_ratio: 0.2}]
      max_rate: 20kpps
"""


def test_a_search_runs_on_traffic_paths_with_its_options_kept() -> None:
    plan = parse_plan(textwrap.dedent(PLAN), source="plan.yaml")
    trials = expand(plan)
    assert [(t.test.id, t.path.name) for t in trials] == [("fwd", "NAT")]
    case = plan.test("fwd")
    assert case.tool is Tool.FORWARDING and case.name == "forwarding rate"
    options = search_options(case)
    assert options.frame_sizes == [1518, 518, 218, 73]
    assert options.directions == ["in", "out"]
    assert [(g.name, ratio_of(g.loss), g.exceed_ratio) for g in options.goals] == [
        ("NDR", 0.0, 0.5),
        ("PDR", 0.005, 0.2),
    ]
    assert options.max_rate == 20_000
    assert options.final_seconds(in_lab=True) == 10 and options.final_seconds(False) == 60


def test_the_defaults_are_rfc_2544s_frame_sizes_ndr_and_pdr() -> None:
    options = ForwardingOptions.model_validate({})
    assert tuple(options.frame_sizes) == RFC2544_FRAME_SIZES
    assert options.directions == ["up"]
    assert [(g.name, g.loss) for g in options.goals] == [("NDR", "0%"), ("PDR", "0.5%")]
    assert ratio_of(options.width) == 0.01


def test_options_survive_the_trip_through_the_store() -> None:
    from wirespeed.store import codec

    plan = parse_plan(textwrap.dedent(PLAN), source="plan.yaml")
    bench = plan.test("fwd").search
    assert bench is not None
    back = codec.decode_bench(codec.encode_bench(bench) or {})
    assert back == bench
    goals = back.as_dict()["goals"]
    assert isinstance(goals, list)
    assert goals[1] == {"name": "PDR", "loss": "0.5%", "exceed_ratio": 0.2}
    assert ForwardingOptions.model_validate(back.as_dict()) == search_options(plan.test("fwd"))


def test_the_estimate_counts_every_cell() -> None:
    plan = parse_plan(textwrap.dedent(PLAN), source="plan.yaml")
    one_cell = estimated_seconds(plan.test("fwd")) / 8
    assert 30 < one_cell < 60  # three 10 s trials and a few short ones


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ("{frame_sizes: [60]}", "60 B is below Ethernet's minimum frame of 64 bytes"),
        ("{frame_sizes: [64, 64]}", "a frame size is listed twice"),
        ("{goals: [{name: PDR, loss: 0.5}]}", "write the loss as a percentage, such as 0.5%"),
        ("{goals: [{name: PDR, loss: 120%}]}", "the loss must be below 100%"),
        ("{directions: [sideways]}", "expected one of up, down, both, in, out"),
        ("{max_rate: fast}", "expected a packet rate such as 15kpps"),
        ("{width: 0}", "the width must be between 0.01% and 50%"),
        ("{initial_duration: 20, final_duration: 5}", "initial_duration must not be longer"),
        ("{max_rate: 50pps}", "max_rate must be above min_rate"),
        ("{generator: trafgen}", "generator: input should be 'iperf2', got 'trafgen'"),
        ("{seconds: 3}", "seconds"),
    ],
)
def test_bad_options_are_refused_at_their_place(options: str, expected: str) -> None:
    text = f"""
    lab: {{link: gbe}}
    paths: [{{name: R, topology: router}}]
    tests:
      - id: fwd
        tool: forwarding
        options: {options}
    """
    problems = problems_of(text)
    assert any(expected in problem for problem in problems), problems
    assert all(problem.startswith("7:") for problem in problems), problems


def test_what_a_path_cannot_carry_is_refused_before_running() -> None:
    problems = problems_of(
        """
        lab: {link: gbe, mtu: 512}
        paths:
          - {name: R, topology: router}
        tests:
          - id: fwd
            tool: forwarding
            duration: 5
            options: {frame_sizes: [64, 1518], directions: [in]}
        """
    )
    assert problems == [
        "8:5: test 'fwd': a forwarding search chooses its own loads, durations and frame "
        "sizes: duration does not apply",
    ]
    problems = problems_of(
        """
        lab: {link: gbe, mtu: 512}
        paths:
          - {name: R, topology: router}
        tests:
          - id: fwd
            tool: forwarding
            options: {frame_sizes: [64, 1518], directions: [in]}
        """
    )
    assert problems == [
        "8:28: test 'fwd': frames of 1518 B do not fit path 'R': its MTU 512 carries "
        "frames of at most 530 B (with FCS)",
        "8:52: test 'fwd': in names the sides of a NAT, and path 'R' is a router path",
    ]


def test_an_unshaped_link_needs_a_max_rate() -> None:
    problems = problems_of(
        """
        lab: {link: unshaped}
        paths: [{name: R, topology: router}]
        tests: [{id: fwd, tool: forwarding}]
        """
    )
    assert problems == [
        "4:9: test 'fwd': path 'R' has no link rate, so no frame-rate ceiling to start "
        "the search from"
    ]


def test_run_duration_sets_a_searchs_full_length_trials() -> None:
    plan = parse_plan(textwrap.dedent(PLAN), source="plan.yaml")
    (trial,) = expand(plan, duration=0.5)
    options = search_options(trial.test)
    assert options.final_duration == 0.5 and options.initial_duration == 0.5
    assert options.frame_sizes == [1518, 518, 218, 73]  # the rest as the plan said
    (trial,) = expand(plan, duration=30)
    options = search_options(trial.test)
    assert (options.initial_duration, options.final_duration) == (1.0, 30.0)
