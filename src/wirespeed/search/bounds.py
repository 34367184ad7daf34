"""Which loads are bounds for a goal: RFC 9971's load classification (Appendix A) and its
relevant bounds (section 4.7), from the trials measured at each load.

A trial is "bad" for a goal when its loss ratio exceeds the goal's loss ratio. A load is
an upper bound when its bad seconds exceed `exceed_ratio` of the duration sum even if
every trial still missing turns out good, and a lower bound when they do not even if
every missing trial turns out bad. In between it is undecided: it needs more trials.
Generator-limited trials tested the generator, not the device: they are never counted.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass

from wirespeed.search.model import TrialResult

# Relative slack when comparing loads and widths computed in floating point.
TOLERANCE = 1e-9


class Verdict(enum.Enum):
    LOWER = "lower bound"
    UPPER = "upper bound"
    UNDECIDED = "undecided"


def classify(good: float, bad: float, duration_sum: float, exceed_ratio: float) -> Verdict:
    """RFC 9971 Appendix A for trials of one length: `good` and `bad` seconds so far.

    When more than `duration_sum` seconds were measured, the sum grows with them (the
    RFC's effective whole sum), so extra trials never make a decided load undecided by
    themselves."""
    whole = max(duration_sum, good + bad)
    allowed_bad = whole * exceed_ratio
    if bad > allowed_bad:
        return Verdict.UPPER
    if whole - good <= allowed_bad:  # even if every missing second is bad
        return Verdict.LOWER
    return Verdict.UNDECIDED


@dataclass(frozen=True)
class LoadRecord:
    """The trials at one intended load that count for one goal and trial length."""

    load: float
    trials: tuple[TrialResult, ...]

    def seconds(self, loss_ratio: float) -> tuple[float, float]:
        """(good, bad) seconds of trials within / above the loss ratio."""
        good = sum(trial.duration for trial in self.trials if trial.loss_ratio <= loss_ratio)
        bad = sum(trial.duration for trial in self.trials if trial.loss_ratio > loss_ratio)
        return good, bad

    @property
    def forwarding_rate(self) -> float:
        """The average forwarding rate of these trials (packets/s)."""
        return sum(trial.forwarding_rate for trial in self.trials) / len(self.trials)


def records(trials: Iterable[TrialResult]) -> dict[float, LoadRecord]:
    """The trials grouped by intended load, generator-limited ones left out."""
    grouped: dict[float, list[TrialResult]] = {}
    for trial in trials:
        if not trial.generator_limited:
            grouped.setdefault(trial.intended, []).append(trial)
    return {load: LoadRecord(load, tuple(found)) for load, found in sorted(grouped.items())}


@dataclass(frozen=True)
class Bounds:
    """The relevant bounds among classified loads (RFC 9971 section 4.7).

    `upper`: the lowest upper bound. `lower`: the highest lower bound below it (the
    highest lower bound of all when there is no upper bound). `verdicts`: every load's
    verdict. `leaning`: every load's verdict if the trials so far were all there will
    be (an undecided load leans to an upper bound when more than the exceed ratio of
    its seconds so far were bad); `tentative_lower` and `tentative_upper` are the
    relevant bounds by these: where the search goes on while loads are undecided."""

    lower: float | None
    upper: float | None
    verdicts: dict[float, Verdict]
    leaning: dict[float, Verdict]
    tentative_lower: float | None
    tentative_upper: float | None

    def count_leaning(self, verdict: Verdict) -> int:
        return sum(1 for found in self.leaning.values() if found is verdict)


def _relevant(verdicts: dict[float, Verdict]) -> tuple[float | None, float | None]:
    uppers = [load for load, found in verdicts.items() if found is Verdict.UPPER]
    upper = min(uppers) if uppers else None
    lowers = [
        load
        for load, found in verdicts.items()
        if found is Verdict.LOWER and (upper is None or load < upper)
    ]
    return (max(lowers) if lowers else None), upper


def bounds_of(
    by_load: dict[float, LoadRecord], loss_ratio: float, duration_sum: float, exceed_ratio: float
) -> Bounds:
    verdicts: dict[float, Verdict] = {}
    leaning: dict[float, Verdict] = {}
    for load, record in by_load.items():
        good, bad = record.seconds(loss_ratio)
        verdicts[load] = classify(good, bad, duration_sum, exceed_ratio)
        leaning[load] = classify(good, bad, good + bad, exceed_ratio)
    lower, upper = _relevant(verdicts)
    tentative_lower, tentative_upper = _relevant(leaning)
    return Bounds(lower, upper, verdicts, leaning, tentative_lower, tentative_upper)
