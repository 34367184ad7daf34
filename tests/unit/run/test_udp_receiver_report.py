"""A UDP trial whose datagrams never reached the server (tests/fixtures/iperf2/
INDEX-unanswered.txt: a gateway nobody answers): iperf2's client says it sent 500
Mbit/s and exits 0. That rate is not goodput: the trial fails, keeping what was sent, and
no expectation is met by it; a figure above the physical ceiling meets none either."""

from __future__ import annotations

from pathlib import Path

from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.analysis.expectations import Verdict, judge_cell
from wirespeed.analysis.findings import judge_result
from wirespeed.expectations import Measure, parse_expectation
from wirespeed.model import (
    Direction,
    Flow,
    LinkModel,
    PathSpec,
    Proto,
    RawOutput,
    Side,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.run.iperf_results import parse_ends
from wirespeed.tools import iperf2
from wirespeed.tools.merge import merge

FIXTURES = Path(__file__).parents[2] / "fixtures" / "iperf2"
UDP_500M = TestSpec(protocol=Proto.UDP, duration=2, rate=500_000_000)
GIGABIT = 1_000_000_000
GBE = LinkModel(name="gbe", rate_bps=GIGABIT)
ROUTED = PathSpec("routed", Topology.ROUTER, "lan-side", "wan-side", link=GBE)


def raw(capture: str, side: Side) -> RawOutput:
    text = (FIXTURES / f"{capture}.{side.value}.txt").read_text()
    return RawOutput(host=side.value, side=side, argv=("iperf",), format="text", text=text)


def test_a_udp_trial_the_server_never_heard_fails_and_keeps_what_was_sent() -> None:
    result, reason = parse_ends(
        iperf2,
        [
            raw("err-udp-unanswered-gateway", Side.CLIENT),
            raw("err-udp-unanswered-gateway", Side.SERVER),
        ],
        UDP_500M,
    )
    assert reason is not None
    assert "the server reported nothing received of the up flow" in reason
    assert "(499.4 Mbit/s)" in reason and "not goodput" in reason
    assert result is not None  # nothing measured is lost
    up = result.direction(Flow.UP)
    assert up is not None and up.sent is not None and up.received is None


def test_a_udp_trial_the_server_heard_passes() -> None:
    spec = TestSpec(protocol=Proto.UDP, duration=2, rate=100_000_000)
    result, reason = parse_ends(
        iperf2, [raw("udp-up", Side.CLIENT), raw("udp-up", Side.SERVER)], spec
    )
    assert reason is None, reason
    assert result is not None
    assert [m.name for m in result.measured()][:1] == ["goodput"]


def test_a_rate_only_the_sender_saw_is_never_goodput() -> None:
    client = iperf2.parse(
        (FIXTURES / "err-udp-unanswered-gateway.client.txt").read_text(), Side.CLIENT
    )
    assert client.direction(Flow.UP) is not None
    assert "goodput" not in [m.name for m in client.measured()]


def _trial(spec: TestSpec, protocol_id: str) -> Trial:
    return Trial(TestCase(protocol_id, protocol_id, Tool.IPERF2, spec), ROUTED)


def _outcome(trial: Trial, capture: str) -> TrialOutcome:
    """The trial as the runner would have ended it had it passed: its findings judged."""
    client = iperf2.parse((FIXTURES / f"{capture}.client.txt").read_text(), Side.CLIENT)
    server = iperf2.parse((FIXTURES / f"{capture}.server.txt").read_text(), Side.SERVER)
    outcome = TrialOutcome(trial, TrialStatus.OK, 0.0, 1.0, result=merge(client, server))
    findings = judge_result(outcome, ceiling_for(trial))
    return TrialOutcome(
        trial, TrialStatus.OK, 0.0, 1.0, result=outcome.result, findings=tuple(findings)
    )


def test_an_expectation_is_not_met_by_the_senders_rate() -> None:
    trial = _trial(UDP_500M, "udp")
    expectation = parse_expectation(Measure.GOODPUT, ">= 400M")
    (judged,) = judge_cell([expectation], [_outcome(trial, "err-udp-unanswered-gateway")])
    assert judged.verdict is Verdict.NOT_MEASURED


def test_an_expectation_is_not_met_by_a_figure_above_the_physical_ceiling() -> None:
    # Loopback's TCP (several Gbit/s) on a path the plan says is gigabit: it cannot be.
    trial = _trial(TestSpec(duration=2, direction=Direction.UP), "tcp")
    outcome = _outcome(trial, "exact-tcp-up")
    up = outcome.result.direction(Flow.UP) if outcome.result else None
    assert up is not None and up.received is not None
    assert up.received.bits_per_second > 2 * GIGABIT  # the capture is as described
    expectation = parse_expectation(Measure.GOODPUT, ">= 900M")
    (judged,) = judge_cell([expectation], [outcome])
    assert judged.verdict is Verdict.NOT_MEASURED
    assert judged.set_aside == (trial.key,)
    assert "above the physical ceiling set aside" in judged.set_aside_text
