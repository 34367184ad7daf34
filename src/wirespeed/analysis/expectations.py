"""Whether a cell reached what its test expects: on the median over its repetitions.

The median, as everywhere in the report: one disturbed repetition of five neither
fails a firmware build nor lets a slow one pass. A flow that no repetition measured
(every trial failed, or the tool did not report that figure) is neither met nor not
met: it is "not measured", and a regression gate must not pass on it either.
"""

from __future__ import annotations

import enum
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wirespeed.expectations import Expectation, Measure
from wirespeed.model import DirectionResult, Flow, TrialOutcome, TrialStatus


class Verdict(enum.StrEnum):
    MET = "met"
    NOT_MET = "not met"
    NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class Judgement:
    """One expectation on one flow of one cell: what was expected, what was measured."""

    expectation: Expectation
    flow: Flow
    measured: float | None  # the median over the repetitions that measured it
    n: int  # those repetitions
    trials: tuple[str, ...]  # their keys

    @property
    def verdict(self) -> Verdict:
        if self.measured is None:
            return Verdict.NOT_MEASURED
        return Verdict.MET if self.expectation.holds(self.measured) else Verdict.NOT_MET


def measure_of(direction: DirectionResult, measure: Measure) -> float | None:
    """One repetition's figure of a flow, in the measurement's unit; None: not reported."""
    if measure is Measure.GOODPUT:
        return direction.goodput_bps
    if measure is Measure.RETRANSMITS:
        return None if direction.retransmits is None else float(direction.retransmits)
    if direction.udp is None:
        return None
    if measure is Measure.LOSS:
        return direction.udp.loss_percent
    return direction.udp.jitter_ms


def judge_cell(
    expectations: Iterable[Expectation], outcomes: Sequence[TrialOutcome]
) -> tuple[Judgement, ...]:
    """Each expectation on each flow it concerns, over a cell's trials (one test on one
    path in one variant, every repetition)."""
    if not outcomes:
        return ()
    flows = outcomes[0].trial.test.spec.flows
    passed = [o for o in outcomes if o.status is TrialStatus.OK and o.result is not None]
    judged = []
    for expectation in expectations:
        for flow in flows if expectation.flow is None else (expectation.flow,):
            keys, values = [], []
            for outcome in passed:
                assert outcome.result is not None
                direction = outcome.result.direction(flow)
                value = None if direction is None else measure_of(direction, expectation.measure)
                if value is not None:
                    keys.append(outcome.trial.key)
                    values.append(value)
            median = statistics.median(values) if values else None
            judged.append(Judgement(expectation, flow, median, len(values), tuple(keys)))
    return tuple(judged)


def overall(verdicts: Iterable[Verdict]) -> Verdict | None:
    """The worst of several: not met, else not measured, else met; None if there are none."""
    found = set(verdicts)
    for verdict in (Verdict.NOT_MET, Verdict.NOT_MEASURED, Verdict.MET):
        if verdict in found:
            return verdict
    return None
