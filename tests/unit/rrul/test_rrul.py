"""The RRUL test: its plan keys and defaults, the two iperf3 processes' argv, and one
result made of a real run's outputs (tests/fixtures/capture_rrul.py): the up process's
up flow and the down process's down flow, each with its four streams."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from wirespeed.model import Direction, Flow, Probes, RawOutput, Side, TestSpec, Tool, Trial
from wirespeed.plan import PlanError, expand, parse_plan
from wirespeed.run.rrul_trial import parse_flows
from wirespeed.tools import rrul

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "rrul"


def plan_of(tests: str, defaults: str = "") -> list[Trial]:
    head = "lab: {link: 100mbit, queue: 40ms}\npaths: [{name: router, topology: router}]\n"
    text = head + defaults + "\ntests:\n" + textwrap.indent(textwrap.dedent(tests), "  ")
    return expand(parse_plan(text, source="plan.yaml"))


def problems_of(tests: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        plan_of(tests)
    return [p.message for p in caught.value.problems]


def test_an_rrul_test_is_four_tcp_streams_each_way_with_irtt_probes_by_default() -> None:
    (trial,) = plan_of("- {id: rrul, tool: rrul}")
    spec = trial.test.spec
    assert trial.test.tool is Tool.RRUL
    assert (spec.parallel, spec.direction, spec.probes) == (4, Direction.BIDIR, Probes.IRTT)
    assert trial.test.name == "RRUL, 4 streams each way"


def test_the_plans_defaults_for_iperf_tests_do_not_bend_an_rrul_test() -> None:
    (iperf, test) = plan_of(
        """
        - {id: up, tool: iperf3}
        - {id: rrul, tool: rrul, parallel: 2, probes: ping, congestion: cubic}
        """,
        defaults="defaults: {direction: down, parallel: 8, duration: 5}",
    )
    assert (iperf.test.spec.direction, iperf.test.spec.parallel) == (Direction.DOWN, 8)
    spec = test.test.spec
    assert (spec.direction, spec.parallel, spec.duration) == (Direction.BIDIR, 2, 5.0)
    assert (spec.probes, spec.congestion) == (Probes.PING, "cubic")


def test_an_rrul_test_with_udp_or_one_direction_is_refused_where_it_is_written() -> None:
    said = problems_of("- {id: r, tool: rrul, protocol: udp, direction: up}")
    assert any("protocol udp does not apply" in p for p in said), said
    assert any("direction up does not apply" in p for p in said), said


def test_each_direction_has_its_own_iperf3_client_and_server() -> None:
    spec = TestSpec(duration=10, direction=Direction.BIDIR, parallel=4, congestion="cubic")
    ports = rrul.ports(5201)
    assert ports == {Flow.UP: 5201, Flow.DOWN: 5202}
    up = rrul.client_argv(spec, Flow.UP, "198.19.1.2", ports[Flow.UP])
    down = rrul.client_argv(spec, Flow.DOWN, "198.19.1.2", ports[Flow.DOWN])
    assert up[:4] == ["iperf3", "-c", "198.19.1.2", "-p"] and up[4] == "5201"
    assert "-R" not in up and "--bidir" not in up and up[up.index("-P") + 1] == "4"
    assert "-R" in down and down[down.index("-p") + 1] == "5202"
    assert down[down.index("-C") + 1] == "cubic"
    assert rrul.server_argv(spec, Flow.DOWN, 5202)[:5] == ["iperf3", "-s", "-1", "-J", "-p"]


def captured(name: str, side: Side) -> RawOutput:
    return RawOutput("lab", side, ("iperf3",), "json", (FIXTURES / name).read_text())


def test_a_real_runs_two_processes_make_one_result_of_both_directions() -> None:
    (trial,) = plan_of("- {id: rrul, tool: rrul, duration: 6}")
    by_flow = {
        flow: [
            captured(f"{flow.value}.client.json", Side.CLIENT),
            captured(f"{flow.value}.server.json", Side.SERVER),
        ]
        for flow in rrul.FLOWS
    }
    result, reason = parse_flows(by_flow, trial)
    assert reason is None and result is not None
    assert result.tool is Tool.RRUL
    assert [d.flow for d in result.directions] == [Flow.UP, Flow.DOWN]
    for direction in result.directions:
        assert len(direction.streams) == 4
        goodput = direction.goodput_bps
        # A 100 Mbit/s link carries at most 94.1 Mbit/s of TCP (LIMITS.md).
        assert goodput is not None and 50e6 < goodput < 94.2e6
    names = {m.item for m in result.measured()}
    assert {"goodput up", "goodput down", "retransmits up", "retransmits down"} <= names


def test_a_direction_whose_process_failed_fails_the_trial_and_is_named() -> None:
    (trial,) = plan_of("- {id: rrul, tool: rrul, duration: 6}")
    refused = (FIXTURES.parent / "iperf3" / "json-err-refused.client.txt").read_text()
    by_flow = {
        Flow.UP: [captured("up.client.json", Side.CLIENT)],
        Flow.DOWN: [RawOutput("lab", Side.CLIENT, ("iperf3",), "json", refused)],
    }
    result, reason = parse_flows(by_flow, trial)
    assert result is None and reason is not None and reason.startswith("the down flow: ")
