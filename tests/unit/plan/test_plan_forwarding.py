"""Forwarding-rate searches in a plan: options checked at their place, defaults that
follow RFC 2544, and what cannot work on a path refused before anything runs."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.errors import UsageError
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
        ("{generator: trafgen}", "generator: trafgen paces by whole seconds"),
        ("{generator: pktgen}", "generator: expected one of iperf2, tcpreplay, auto"),
        ("{cpus: 0}", "cpus: must be at least 1, got 0"),
        ("{cpus: 9}", "cpus: must be at most 8, got 9"),
        ("{cpus: two}", "cpus: expected an integer, got 'two'"),
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


LAB_ROUTER = """
lab: {link: gbe}
paths: [{name: R, topology: router}]
"""
DEVICES = """
hosts:
  pc: {address: 192.168.2.10}
  r4s: {address: 192.168.2.1, ssh: root@192.168.2.1}
paths: [{name: WAN, topology: endpoint, client: pc, server: r4s}]
"""


@pytest.mark.parametrize(
    ("bench", "options", "expected"),
    [
        (
            LAB_ROUTER,
            "{duration_sum: 5}",
            "7:29: test 'fwd': duration_sum 5 s is shorter than one final trial on path 'R': "
            "final_duration defaults to 10 s in the lab",
        ),
        (
            LAB_ROUTER,
            "{initial_duration: 20}",
            "7:33: test 'fwd': initial_duration 20 s is longer than the final trial on path "
            "'R': final_duration defaults to 10 s in the lab",
        ),
        (
            DEVICES,
            "{duration_sum: 30, max_rate: 20kpps}",
            "9:29: test 'fwd': duration_sum 30 s is shorter than one final trial on path "
            "'WAN': final_duration defaults to 60 s on devices",
        ),
    ],
)
def test_durations_are_checked_against_the_final_trials_default_where_it_runs(
    bench: str, options: str, expected: str
) -> None:
    text = f"""{bench}tests:
  - id: fwd
    tool: forwarding
    options: {options}
"""
    assert problems_of(text) == [expected]


def test_durations_that_fit_the_default_where_it_runs_are_good() -> None:
    # 30 s decide in the lab (10 s trials), and 20 s first trials precede 60 s ones.
    for text in (
        f"{LAB_ROUTER}tests:\n  - {{id: fwd, tool: forwarding, options: {{duration_sum: 30}}}}\n",
        f"{DEVICES}tests:\n  - id: fwd\n    tool: forwarding\n"
        "    options: {initial_duration: 20, max_rate: 20kpps}\n",
    ):
        parse_plan(text, source="plan.yaml")


def test_a_sub_tenth_of_a_second_trial_is_refused() -> None:
    problems = problems_of(
        f"""{LAB_ROUTER}tests:
  - id: fwd
    tool: forwarding
    options: {{initial_duration: 0.01}}
"""
    )
    assert len(problems) == 1 and "shorter than 0.1 s" in problems[0], problems
    assert problems[0].startswith("7:"), problems


def test_an_options_error_of_the_whole_entry_names_its_test() -> None:
    problems = problems_of(
        f"""{LAB_ROUTER}tests:
  - id: fwd
    tool: forwarding
    options: {{initial_duration: 20, final_duration: 5}}
"""
    )
    assert problems == [
        "7:14: test 'fwd': initial_duration must not be longer than final_duration"
    ], problems


def test_a_run_duration_too_short_for_a_search_trial_is_a_usage_error() -> None:
    plan = parse_plan(
        f"{LAB_ROUTER}tests:\n  - {{id: fwd, tool: forwarding}}\n", source="plan.yaml"
    )
    with pytest.raises(UsageError, match=r"trials last at least 0\.1 s, got 0\.05"):
        expand(plan, duration=0.05)
    (trial,) = expand(plan, duration=0.5)
    assert search_options(trial.test).final_duration == 0.5


@pytest.mark.parametrize(
    ("bench", "options", "expected"),
    [
        (LAB_ROUTER, "{senders: [pc2]}", "7:24: test 'fwd': path 'R' is the lab's, which has one"),
        (DEVICES, "{senders: [pc2], max_rate: 1Mpps}", "9:24: test 'fwd': 'pc2' is not in hosts:"),
        (
            DEVICES,
            "{senders: [r4s], max_rate: 1Mpps}",
            "9:24: test 'fwd': the path's client sends anyway and its server receives",
        ),
        (
            DEVICES,
            "{senders: [pc], directions: [down], max_rate: 1Mpps}",
            "several senders send towards the server (up or out), not down",
        ),
    ],
)
def test_more_senders_are_other_hosts_sending_up(bench: str, options: str, expected: str) -> None:
    text = f"""{bench}tests:
  - id: fwd
    tool: forwarding
    options: {options}
"""
    problems = problems_of(text)
    assert any(expected in problem for problem in problems), problems


def test_more_senders_share_the_up_legs_load_on_ports_of_their_own() -> None:
    from wirespeed.hosts.local import LocalHost
    from wirespeed.run.search_legs import real_legs
    from wirespeed.run.search_load import directions_of

    pc, pc2, server = LocalHost("pc"), LocalHost("pc2"), LocalHost("r4s")
    legs = real_legs(pc, server, client_address=None, server_address="192.0.2.1", senders=[pc2])
    up = legs["up"]
    assert [(leg.sender.name, leg.port, leg.share) for leg in up] == [
        ("pc", 5800, 0.5),
        ("pc2", 5802, 0.5),
    ]
    assert directions_of(up) == 1  # the two carry one direction's load between them


def test_a_host_that_only_sends_with_the_client_is_used() -> None:
    plan = parse_plan(
        DEVICES.replace("hosts:\n", "hosts:\n  laptop: {address: 192.168.2.11, ssh: root@laptop}\n")
        + "tests:\n  - {id: fwd, tool: forwarding, options: {senders: [laptop], max_rate: 1Mpps}}\n"
    )
    assert not [w for w in plan.warnings if "not used" in str(w)], plan.warnings
