"""Findings from the result alone, on the seeds' real outputs: the R4S at line rate, the
R2S bridge far below it, and the 2.0.x counters nobody could explain."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from wirespeed.analysis.ceiling import ceiling
from wirespeed.analysis.findings import hint, judge_result
from wirespeed.model import (
    Finding,
    FindingKind,
    Flow,
    PathSpec,
    Proto,
    Result,
    Side,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.tools import iperf2
from wirespeed.tools.detect import parse_any

FIXTURES = Path(__file__).parents[2] / "fixtures"
GBE = 1_000_000_000


def outcome_of(result: Result) -> TrialOutcome:
    test = TestCase("1", "seed", Tool.IPERF2, TestSpec(protocol=result.protocol or Proto.TCP))
    trial = Trial(test, PathSpec("WAN", Topology.ENDPOINT, "workstation", "r4s"))
    return TrialOutcome(trial, TrialStatus.OK, 0.0, 1.0, result=result)


def judged(fixture: str, side: Side = Side.CLIENT) -> list[Finding]:
    result = iperf2.parse((FIXTURES / fixture).read_text(), side)
    return judge_result(outcome_of(result), ceiling(GBE, result.protocol or Proto.TCP))


def kinds(findings: list[Finding]) -> set[FindingKind]:
    return {f.kind for f in findings}


def test_the_r4s_wan_tcp_test_is_at_line_rate_not_beyond_it() -> None:
    findings = judged("seeds/r4s-wan-test1.txt")  # 942 Mbit/s as printed: 100.05 %
    assert kinds(findings) == {FindingKind.LINE_RATE}
    assert "of the ceiling" in findings[0].message
    assert hint(findings[0].kind).startswith("the link is the limit")


def test_the_r2s_bridge_at_681_mbit_is_not_line_rate() -> None:
    assert FindingKind.LINE_RATE not in kinds(judged("seeds/r2s-br0-test1.txt"))


def test_the_seeds_impossible_udp_counters_make_the_figure_suspect() -> None:
    findings = judged("seeds/r2s-wan-test5.txt")
    assert FindingKind.SUSPECT in kinds(findings)
    assert any("cannot be true" in f.message for f in findings)


def test_a_udp_client_without_server_report_is_suspect() -> None:
    findings = judged("iperf2/err-udp-server-killed.client.txt")
    messages = [f.message for f in findings if f.kind is FindingKind.SUSPECT]
    assert any("no server report" in m or "no receiver-side" in m for m in messages)


def test_a_result_above_the_wire_is_impossible() -> None:
    # The unshaped loopback capture moves gigabits: on a 1 Gbit/s link that cannot be.
    findings = judged("iperf2/exact-tcp-up.server.txt", Side.SERVER)
    assert FindingKind.IMPOSSIBLE in kinds(findings)


def test_a_failed_trial_gets_no_findings() -> None:
    result = iperf2.parse((FIXTURES / "seeds/r4s-wan-test1.txt").read_text(), Side.CLIENT)
    test = TestCase("1", "seed", Tool.IPERF2, TestSpec(protocol=Proto.TCP))
    trial = Trial(test, PathSpec("WAN", Topology.ENDPOINT, "a", "b"))
    failed = TrialOutcome(trial, TrialStatus.FAILED, 0.0, 1.0, result=result, reason="x")
    assert judge_result(failed, ceiling(GBE, Proto.TCP)) == []


# -- a stall: a link down 3 s mid-test (tests/fixtures/capture_stall.sh) ------------------


@pytest.mark.parametrize(
    "fixture",
    [
        "iperf3/json-stall-tcp-up.client.txt",
        "iperf3/json-stall-tcp-up.server.txt",
        "iperf2/stall-tcp-up.client.txt",
        "iperf2/stall-tcp-up.server.txt",
    ],
)
def test_a_link_down_mid_test_is_a_stall_with_its_span(fixture: str) -> None:
    result = parse_any((FIXTURES / fixture).read_text())
    findings = judge_result(outcome_of(result), None)
    stalls = [f for f in findings if f.kind is FindingKind.STALLED]
    # The link went down a few ms past 3 s: iperf2's 3-4 s interval still carried 0.4 % of
    # the median rate, iperf3's nothing. Either way the gap is 3 s, and traffic came back.
    assert [f.message for f in stalls] == ["no traffic for 3 s of 9 s (from 3 s to 6 s)"]
    assert stalls[0].flow is Flow.UP
    assert hint(FindingKind.STALLED).startswith("a link went down")


def test_no_captured_output_of_a_healthy_test_is_a_stall() -> None:
    healthy = [
        path
        for path in sorted(FIXTURES.glob("*/*.txt"))
        if path.parent.name in {"iperf2", "iperf3", "seeds"}
        and not path.name.startswith(("INDEX", "version", "err-", "json-err-"))
        and "stall" not in path.name
    ]
    with_intervals = 0
    for path in healthy:
        result = parse_any(path.read_text())
        with_intervals += any(len(d.intervals) >= 3 for d in result.directions)
        findings = judge_result(outcome_of(result), None)
        assert FindingKind.STALLED not in kinds(findings), path.name
    assert with_intervals >= 10  # the check above ran on real interval series


def test_a_test_that_never_carried_anything_is_not_called_a_stall() -> None:
    result = parse_any((FIXTURES / "iperf3/json-stall-tcp-up.client.txt").read_text())
    direction = result.directions[0]
    silent = tuple(replace(i, bytes=0, bits_per_second=0.0) for i in direction.intervals)
    result = replace(result, directions=(replace(direction, intervals=silent),))
    assert FindingKind.STALLED not in kinds(judge_result(outcome_of(result), None))


def test_a_link_that_never_came_back_stalls_to_the_end() -> None:
    result = parse_any((FIXTURES / "iperf3/json-stall-tcp-up.client.txt").read_text())
    direction = result.directions[0]
    # The capture cut after its sixth interval, as if the link had stayed down; and its
    # first two left out, so that the gap is most of the test.
    cut = direction.intervals[2:6]
    result = replace(result, directions=(replace(direction, intervals=cut),))
    stalls = [f for f in judge_result(outcome_of(result), None) if f.kind is FindingKind.STALLED]
    assert [f.message for f in stalls] == ["no traffic for 3 s of 4 s (from 3 s to the end)"]
