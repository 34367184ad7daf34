"""The RRUL test: its plan keys and defaults, the two iperf3 processes' argv, and
results made of real runs' outputs (tests/fixtures/capture_rrul.py): the up process's
up flow and the down process's down flow, each with its streams, and what the report
says of a cell whose two ways differ."""

from __future__ import annotations

import dataclasses
import textwrap
from pathlib import Path

import pytest

from support.samples import run_record
from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.analysis.findings import judge_result
from wirespeed.model import (
    Better,
    Direction,
    FindingKind,
    Flow,
    Probes,
    RawOutput,
    Side,
    TestSpec,
    Tool,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.plan import PlanError, expand, parse_plan
from wirespeed.report import build_report
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


def test_until_stable_is_an_rrul_key_and_refused_on_iperf() -> None:
    (trial,) = plan_of("- {id: rpm, tool: rrul, until_stable: true}")
    assert trial.test.spec.until_stable is True
    said = problems_of("- {id: up, tool: iperf3, until_stable: true}")
    assert any("until_stable adds streams to an RRUL test" in p for p in said), said


def test_goodput_is_stable_once_two_steps_grow_less_than_5_percent_over_the_two_before() -> None:
    assert not rrul.stable([])
    assert not rrul.stable([180e6, 185e6, 186e6])  # too few steps to judge
    assert rrul.stable([180e6, 185e6, 186e6, 184e6])
    # Slow start still climbing: the last two steps are 10 % above the two before.
    assert not rrul.stable([100e6, 110e6, 115e6, 117e6])
    # A dip (a sawtooth's back-off on a full link) is no room for more streams.
    assert rrul.stable([190e6, 190e6, 170e6, 172e6])
    assert not rrul.stable([0.0, 0.0, 0.0, 0.0])


def test_responsiveness_is_round_trips_per_minute_of_the_loaded_median() -> None:
    rpm = rrul.responsiveness(40.0)
    assert (rpm.value, rpm.unit, rpm.better) == (1500.0, "RPM", Better.HIGHER)
    assert rpm.item == "responsiveness RPM-like"


def test_stages_of_streams_add_their_bytes_over_the_first_start_to_the_last_end() -> None:
    (trial,) = plan_of("- {id: rrul, tool: rrul, duration: 6}")
    by_flow = {
        flow: [
            captured(f"{flow.value}.client.json", Side.CLIENT),
            captured(f"{flow.value}.server.json", Side.SERVER),
        ]
        for flow in rrul.FLOWS
    }
    one, reason = parse_flows(by_flow, trial)
    assert one is not None and reason is None
    both = rrul.combine_stages([one, one], [0.0, 2.0])
    for flow in rrul.FLOWS:
        alone, together = one.direction(flow), both.direction(flow)
        assert alone is not None and together is not None
        assert alone.received is not None and together.received is not None
        assert together.received.bytes == 2 * alone.received.bytes
        assert together.received.seconds == pytest.approx(alone.received.seconds + 2.0)
        assert len(together.streams) == 2 * len(alone.streams)
        assert together.intervals == ()  # the stages' series do not line up
    assert rrul.combine_stages([one]) is one


def test_the_store_keeps_until_stable_and_older_specs_read_as_without_it() -> None:
    from wirespeed.store.codec import decode_spec, encode_spec

    spec = TestSpec(direction=Direction.BIDIR, parallel=4, until_stable=True)
    assert decode_spec(encode_spec(spec)) == spec
    plain = encode_spec(TestSpec())
    assert "until_stable" not in plain and decode_spec(plain).until_stable is False


def test_a_finding_of_one_way_names_that_way_and_not_the_whole_cell() -> None:
    # A real run of -P 2 each way over 100 Mbit/s: up 57.6, down 93.1 Mbit/s (of 94.1).
    text = "lab: {link: fe}\npaths: [{name: WAN, topology: endpoint}]\n"
    text += "tests: [{id: r2, tool: rrul, parallel: 2, duration: 5}]\n"
    (trial,) = expand(parse_plan(text, source="plan.yaml"))
    by_flow = {
        flow: [
            captured(f"two-streams/{flow.value}.client.json", Side.CLIENT),
            captured(f"two-streams/{flow.value}.server.json", Side.SERVER),
        ]
        for flow in rrul.FLOWS
    }
    result, reason = parse_flows(by_flow, trial)
    assert reason is None and result is not None
    outcome = TrialOutcome(trial, TrialStatus.OK, 0.0, 5.0, result)
    findings = judge_result(outcome, ceiling_for(trial))
    assert [(f.kind, f.flow) for f in findings if f.kind is FindingKind.LINE_RATE] == [
        (FindingKind.LINE_RATE, Flow.DOWN)
    ]
    outcome = dataclasses.replace(outcome, findings=tuple(findings))
    report = build_report(run_record(outcome))
    (cell,) = report.rows[0].cells
    assert cell is not None
    said = {note.text for note in report.notes if note.number in cell.notes}
    line_rate = [t for t in said if t.startswith("line rate reached")]
    assert line_rate == [
        "line rate reached (down flow only): the link is the limit: the device is at least "
        "this fast"
    ]
