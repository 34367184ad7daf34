"""Whether a cell reached what its test expects: on the median over its repetitions.

The median, as everywhere in the report: one disturbed repetition of five neither
fails a firmware build nor lets a slow one pass. Each of an expectation's slots (a flow,
a search's frame size and direction: the cells the plan said the test would measure)
is judged on every measurement of that name whose labels match it. A slot that no
repetition measured (every trial failed, the search found no rate, the tool did not
report that figure) is neither met nor not met: it is "not measured", and a regression
gate must not pass on it either. A figure that cannot be true (a flow faster than its
link carries: the IMPOSSIBLE finding) is set aside, never met: said with the judgement.
"""

from __future__ import annotations

import enum
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from wirespeed.expectations import Expectation, Labels, labels_match
from wirespeed.model import FindingKind, Flow, Measurement, TrialOutcome, TrialStatus


class Verdict(enum.StrEnum):
    MET = "met"
    NOT_MET = "not met"
    NOT_MEASURED = "not measured"


@dataclass(frozen=True)
class Judgement:
    """One expectation on one measured cell of one test, path and variant: what was
    expected, what was measured."""

    expectation: Expectation
    labels: Labels  # the measurement's; a slot's where nothing was measured
    measured: float | None  # the median over the repetitions that measured it
    n: int  # those repetitions
    trials: tuple[str, ...]  # their keys
    place: str = ""  # test/path/variant
    # The repetitions whose figure was set aside as above the physical ceiling.
    set_aside: tuple[str, ...] = ()

    @property
    def verdict(self) -> Verdict:
        if self.measured is None:
            return Verdict.NOT_MEASURED
        return Verdict.MET if self.expectation.holds(self.measured) else Verdict.NOT_MET

    @property
    def set_aside_text(self) -> str:
        """'' or '; 2 figures above the physical ceiling set aside', after what was measured."""
        n = len(self.set_aside)
        if not n:
            return ""
        figures = "1 figure" if n == 1 else f"{n} figures"
        return f"; {figures} above the physical ceiling set aside (cannot be true)"

    @property
    def flow(self) -> Flow | None:
        """The flow it concerns; None for a measurement of no flow."""
        written = dict(self.labels).get("flow")
        return None if written is None else Flow(written)


def judge_cell(
    expectations: Iterable[Expectation], outcomes: Sequence[TrialOutcome]
) -> tuple[Judgement, ...]:
    """Each expectation on each cell it concerns, over a cell's trials (one test on one
    path in one variant, every repetition)."""
    if not outcomes:
        return ()
    first = outcomes[0].trial
    place = f"{first.test.id}/{first.path.name}/{first.variant}"
    # Each passed repetition's measurements, once: a flow's goodput is derived.
    measured: list[tuple[str, Sequence[Measurement]]] = []
    impossible: list[tuple[str, Sequence[Measurement]]] = []
    for o in outcomes:
        if o.status is not TrialStatus.OK or o.result is None:
            continue
        beyond = {f.flow for f in o.findings if f.kind is FindingKind.IMPOSSIBLE and f.flow}
        kept: list[Measurement] = []
        aside: list[Measurement] = []
        for m in o.result.measured():
            (aside if m.name == GOODPUT and _flow_of(m) in beyond else kept).append(m)
        measured.append((o.trial.key, kept))
        impossible.append((o.trial.key, aside))
    return judge_measured(expectations, measured, place, set_aside=impossible)


GOODPUT = "goodput"


def _flow_of(measurement: Measurement) -> Flow | None:
    written = dict(measurement.labels).get("flow")
    return None if written is None else Flow(written)


def judge_measured(
    expectations: Iterable[Expectation],
    measured: Sequence[tuple[str, Sequence[Measurement]]],
    place: str,
    *,
    set_aside: Sequence[tuple[str, Sequence[Measurement]]] = (),
) -> tuple[Judgement, ...]:
    """Each expectation on each cell it concerns, over repetitions: each a key that
    names it (a trial's, a soak's chunk's) and what it measured; `set_aside`: figures
    that cannot be true, named in the judgement and never judged."""
    judged = []
    for expectation in expectations:
        for slot in expectation.slots or (expectation.labels,):
            found = _matching(expectation, slot, measured)
            aside = _matching(expectation, slot, set_aside)
            if not found:
                keys = tuple(key for of_labels in aside.values() for key in of_labels[0])
                judged.append(Judgement(expectation, slot, None, 0, (), place, keys))
            for labels, (found_keys, values) in found.items():
                median = statistics.median(values)
                aside_keys = tuple(aside.get(labels, ([], []))[0])
                judged.append(
                    Judgement(
                        expectation,
                        labels,
                        median,
                        len(values),
                        tuple(found_keys),
                        place,
                        aside_keys,
                    )
                )
    return tuple(judged)


def _matching(
    expectation: Expectation,
    slot: Labels,
    measured: Sequence[tuple[str, Sequence[Measurement]]],
) -> dict[Labels, tuple[list[str], list[float]]]:
    """The keys and values of the measurements an expectation's slot concerns, by labels."""
    found: dict[Labels, tuple[list[str], list[float]]] = {}
    for key, measurements in measured:
        for m in measurements:
            if m.name == expectation.name and labels_match(slot, m.labels):
                keys, values = found.setdefault(m.labels, ([], []))
                keys.append(key)
                values.append(m.value)
    return found


def overall(verdicts: Iterable[Verdict]) -> Verdict | None:
    """The worst of several: not met, else not measured, else met; None if there are none."""
    found = set(verdicts)
    for verdict in (Verdict.NOT_MET, Verdict.NOT_MEASURED, Verdict.MET):
        if verdict in found:
            return verdict
    return None
