"""RFC 2544 section 26.1's throughput search, as a binary search: every trial full
length, the first at the maximum load, then the (linear) midpoint of the highest load
that kept within the loss ratio and the lowest that did not, until they are `width`
apart ((upper - lower) / upper). One trial decides a load: no exceed ratio, no repeats.

A generator-limited trial is never the device's loss: the generator's ceiling is
recorded and the search continues just below it (generator.py).
"""

from __future__ import annotations

from collections.abc import Callable

from wirespeed.search.bounds import TOLERANCE
from wirespeed.search.generator import GeneratorWatch, describe_trial
from wirespeed.search.model import (
    Goal,
    Measurer,
    SearchLimits,
    SearchResult,
    TrialResult,
)

__all__ = ["rfc2544_binary"]


def _next_load(
    lower: float | None, upper: float | None, top: float, min_load: float, width: float
) -> float | None:
    """The next load to try; None when the search is done."""
    if upper is None:
        return None if lower is not None and lower >= top * (1 - TOLERANCE) else top
    if lower is None:
        if upper <= min_load * (1 + TOLERANCE):
            return None  # even the minimum load loses too much
        if (upper - min_load) / upper <= width:
            return min_load  # the last step: is the minimum itself good?
        return (min_load + upper) / 2
    if (upper - lower) / upper <= width + TOLERANCE:
        return None
    return min((lower + upper) / 2, top)


def rfc2544_binary(
    measure: Measurer,
    limits: SearchLimits,
    *,
    loss_ratio: float = 0.0,
    duration: float = 60.0,
    width: float = 0.01,
    progress: Callable[[str], None] | None = None,
) -> SearchResult:
    goal = Goal(
        name="NDR" if loss_ratio == 0 else "PDR",
        loss_ratio=loss_ratio,
        exceed_ratio=0.0,
        final_duration=duration,
        width=width,
    )
    watch = GeneratorWatch(limits.max_load)
    trials: list[TrialResult] = []
    lower: TrialResult | None = None  # the highest load within the loss ratio
    upper: float | None = None  # the lowest load above it
    stopped: str | None = None
    while True:
        stopped = watch.too_low(limits.min_load)
        if stopped is not None:
            break
        load = _next_load(
            None if lower is None else lower.intended,
            upper,
            watch.max_load,
            limits.min_load,
            width,
        )
        if load is None:
            break
        if len(trials) >= limits.max_trials:
            stopped = f"reached the maximum of {limits.max_trials} trials before converging"
            break
        if lower is not None and load <= lower.intended:
            # The generator's ceiling fell below the bounds' midpoint: nothing more to try.
            stopped = (
                f"the generator offered at most {watch.ceiling or 0:,.0f} pps, "
                "below the midpoint of the bounds"
            )
            break
        trial = measure(load, duration)
        trials.append(trial)
        verdict = ""
        if not watch.observe(trial):
            if trial.loss_ratio <= loss_ratio:
                lower, verdict = trial, f"{goal.name} lower bound"
            else:
                upper, verdict = trial.intended, f"{goal.name} upper bound"
        if progress is not None:
            progress(describe_trial(len(trials), trial, verdict))
    result = watch.bisected(goal, None if lower is None else lower.intended, upper, lower)
    return watch.search_result("rfc2544-binary", (result,), trials, stopped)
