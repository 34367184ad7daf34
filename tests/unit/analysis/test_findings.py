"""Findings from the result alone, on the seeds' real outputs: the R4S at line rate, the
R2S bridge far below it, and the 2.0.x counters nobody could explain."""

from __future__ import annotations

from pathlib import Path

from wirespeed.analysis.ceiling import ceiling
from wirespeed.analysis.findings import hint, judge_result
from wirespeed.model import (
    Finding,
    FindingKind,
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

FIXTURES = Path(__file__).parents[2] / "fixtures"
GBE = 1_000_000_000


def outcome_of(result: Result) -> TrialOutcome:
    test = TestCase("1", "seed", Tool.IPERF2, TestSpec(protocol=result.protocol))
    trial = Trial(test, PathSpec("WAN", Topology.ENDPOINT, "workstation", "r4s"))
    return TrialOutcome(trial, TrialStatus.OK, 0.0, 1.0, result=result)


def judged(fixture: str, side: Side = Side.CLIENT) -> list[Finding]:
    result = iperf2.parse((FIXTURES / fixture).read_text(), side)
    return judge_result(outcome_of(result), ceiling(GBE, result.protocol))


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
