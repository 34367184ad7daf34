"""A cell's expectation judged at its edge: a median exactly on the threshold meets
`>=` and `<=` and misses `>` and `<`; the median of an even count is between its middle
two; each slot is judged on its own; failed repetitions are left out; and the worst of
several verdicts is the run's."""

from __future__ import annotations

import pytest

from support.samples import measured
from wirespeed.analysis.expectations import Verdict, judge_cell, judge_measured, overall
from wirespeed.expectations import Measure, parse_expectation
from wirespeed.model import (
    Better,
    DirectionResult,
    Flow,
    Measurement,
    Result,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.plan import expand, parse_plan


def _goodput(bits: float, flow: str = "up") -> Measurement:
    return Measurement("goodput", "bit/s", Better.HIGHER, bits, (("flow", flow),))


def _verdict(written: str, medians: list[float]) -> Verdict:
    expectation = parse_expectation(Measure.GOODPUT, written)
    reps = [(f"r{i}", [_goodput(v)]) for i, v in enumerate(medians)]
    [judged] = judge_measured([expectation], reps, "t/p/v")
    return judged.verdict


@pytest.mark.parametrize(
    ("written", "verdict"),
    [
        (">= 300M", Verdict.MET),
        ("> 300M", Verdict.NOT_MET),
        ("<= 300M", Verdict.MET),
        ("< 300M", Verdict.NOT_MET),
    ],
)
def test_a_median_exactly_on_the_threshold(written: str, verdict: Verdict) -> None:
    # 300 Mbit/s exactly, the median of three (one repetition far below).
    assert _verdict(written, [300e6, 10e6, 310e6]) is verdict


def test_a_median_one_bit_off_the_threshold() -> None:
    assert _verdict(">= 300M", [299_999_999.0]) is Verdict.NOT_MET
    assert _verdict("> 300M", [300_000_001.0]) is Verdict.MET
    assert _verdict("<= 300M", [300_000_001.0]) is Verdict.NOT_MET
    assert _verdict("< 300M", [299_999_999.0]) is Verdict.MET


def test_the_median_of_an_even_count_is_between_its_middle_two() -> None:
    expectation = parse_expectation(Measure.GOODPUT, ">= 300M")
    reps = [("a", [_goodput(290e6)]), ("b", [_goodput(310e6)]), ("c", [_goodput(10e6)])]
    reps.append(("d", [_goodput(400e6)]))
    [judged] = judge_measured([expectation], reps, "t/p/v")
    assert (judged.measured, judged.n, judged.trials) == (300e6, 4, ("a", "b", "c", "d"))
    assert judged.verdict is Verdict.MET
    assert judged.labels == (("flow", "up"),) and judged.place == "t/p/v"
    assert judged.flow is Flow.UP


def test_each_flow_is_its_own_cell_and_a_slot_never_measured_is_not_measured() -> None:
    expectation = parse_expectation(Measure.GOODPUT, ">= 300M")
    planned = expectation.__class__(
        **{**expectation.__dict__, "slots": ((("flow", "up"),), (("flow", "down"),))}
    )
    reps = [
        ("a", [_goodput(310e6, "up"), _goodput(100e6, "bidir-up")]),
        ("b", [_goodput(320e6, "up")]),
    ]
    up, down = judge_measured([planned], reps, "t/p/v")
    assert (up.labels, up.measured, up.n, up.verdict) == (
        (("flow", "up"),), 315e6, 2, Verdict.MET,
    )  # fmt: skip
    assert (down.labels, down.measured, down.n, down.trials) == (
        (("flow", "down"),), None, 0, (),
    )  # fmt: skip
    assert down.verdict is Verdict.NOT_MEASURED
    # Without slots: every measurement of its name its labels pick, one cell per labels.
    up_only = parse_expectation(Measure.GOODPUT, ">= 300M", Flow.UP)
    cells = judge_measured([up_only], reps, "t/p/v")
    assert [(c.labels, c.measured) for c in cells] == [((("flow", "up"),), 315e6)]
    cells = judge_measured([expectation], reps, "t/p/v")
    assert [(c.labels, c.verdict) for c in cells] == [
        ((("flow", "up"),), Verdict.MET),
        ((("flow", "bidir-up"),), Verdict.NOT_MET),
    ]
    # Another measurement's name is never taken for it.
    loss = Measurement("loss", "%", Better.LOWER, 0.0, (("flow", "up"),))
    [none] = judge_measured([expectation], [("a", [loss])], "t/p/v")
    assert none.verdict is Verdict.NOT_MEASURED and none.labels == ()


PLAN = """
lab: {link: fe}
paths: [{name: WAN, topology: endpoint}]
repetitions: 3
defaults: {tool: iperf3, duration: 1}
tests: [{id: t, expect: {goodput: ">= 300M"}}]
"""


def test_a_cell_is_judged_on_its_passed_repetitions_only() -> None:
    trials = expand(parse_plan(PLAN))
    outcomes = []
    for trial, (status, mbit) in zip(
        trials,
        [(TrialStatus.OK, 300.0), (TrialStatus.FAILED, 100.0), (TrialStatus.OK, 310.0)],
        strict=True,
    ):
        direction = DirectionResult(Flow.UP, sent=measured(mbit, 1), received=measured(mbit, 1))
        result = Result(trial.test.tool, trial.test.spec.protocol, directions=(direction,))
        reason = "" if status is TrialStatus.OK else "the server stopped"
        outcomes.append(TrialOutcome(trial, status, 0.0, 1.0, result=result, reason=reason))
    expectation = parse_expectation(Measure.GOODPUT, ">= 300M")
    [judged] = judge_cell([expectation], outcomes)
    assert (judged.measured, judged.n, judged.verdict) == (305e6, 2, Verdict.MET)
    assert judged.trials == (trials[0].key, trials[2].key)
    assert judged.place == f"t/WAN/{trials[0].variant}"
    assert judge_cell([expectation], []) == ()
    [alone] = judge_cell([expectation], outcomes[:1])  # a cell of one repetition
    assert (alone.measured, alone.n, alone.place) == (300e6, 1, judged.place)


def test_the_worst_verdict_is_the_overall_one() -> None:
    met, missed, unmeasured = Verdict.MET, Verdict.NOT_MET, Verdict.NOT_MEASURED
    assert overall([met, unmeasured, missed, met]) is missed
    assert overall([met, unmeasured, met]) is unmeasured
    assert overall([met, met]) is met
    assert overall([]) is None
