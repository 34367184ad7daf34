"""TRex's ndr_bench (trex-core, examples/stl/ndr_bench.py) with its default settings, as
its source does it, so that its cost and precision can be set beside MLRsearch's.

What ndr_bench does:
  - The first run sends at 100 % of the port's rate; the rate the generator then
    actually sent (TX, measured) becomes the "max rate", and every later rate is a
    percentage of it. A generator that cannot reach line rate thus shrinks the max
    rate itself: ndr_bench never asks for more than its generator showed it can send.
  - If the first run's drop is within the allowed percentage, the NDR is the max rate.
  - Otherwise it bisects the percentage (linear midpoint) between 100 and 0. A run
    passes when its drop is within the allowed percentage; it then raises the low end,
    else it lowers the high end.
  - Its "error" (pdr_error, default 1 %) is in percentage points of the max rate: it
    stops as soon as a run's percentage is within the error of the best passing run's
    (passing or not), or after max_iterations (10) runs after the first. The NDR is the
    best passing run's measured TX rate.
  - Every run lasts iteration_duration (20 s; the first run first_run_duration, also
    20 s), and waits 15 s beforehand for counters to settle: wall time per run is 35 s.

Differences here:
  - Loss is what TrialResult counts; ndr_bench also fails a run on queue-full above 2 %
    and on latency (off by default). ndr_bench reads its counters while traffic still
    flows (packets in flight count as dropped); the measurer here counts a whole trial.
  - ndr_bench's default allowed drop (pdr) is 0.1 %; here loss_ratio defaults to 0 (NDR)
    so that it searches the same goal as the others.
  - The result's upper bound is the lowest failing load above the NDR (ndr_bench does
    not report one), never a generator-limited run's; the goal's width is ndr_bench's
    error as a share of that upper bound, (error x max rate) / upper: the relative
    width its stopping rule guarantees.
  - A generator-limited run steers the bisection by its loss, as in ndr_bench (after
    the first run every run is below the max rate, so none is expected); the
    generator's ceiling is recorded, and such a run is never the upper bound.
"""

from __future__ import annotations

from collections.abc import Callable

from wirespeed.search.generator import GeneratorWatch, describe_trial
from wirespeed.search.model import (
    Goal,
    GoalResult,
    Measurer,
    SearchLimits,
    SearchResult,
    TrialResult,
)

__all__ = ["ndr_bench"]


def ndr_bench(
    measure: Measurer,
    limits: SearchLimits,
    *,
    loss_ratio: float = 0.0,
    duration: float = 20.0,
    error: float = 0.01,
    max_iterations: int = 10,
    progress: Callable[[str], None] | None = None,
) -> SearchResult:
    watch = GeneratorWatch(limits.max_load)
    trials: list[TrialResult] = []
    name = "NDR" if loss_ratio == 0 else "PDR"

    def run(load: float) -> TrialResult:
        trial = measure(load, duration)
        trials.append(trial)
        watch.observe(trial)
        passed = trial.loss_ratio <= loss_ratio
        if progress is not None:
            verdict = f"{name} {'lower' if passed else 'upper'} bound"
            progress(describe_trial(len(trials), trial, verdict))
        return trial

    first = run(limits.max_load)
    max_rate = first.offered  # what the generator really sent at 100 %
    best: TrialResult | None = None
    best_percent = 0.0
    stopped: str | None = None
    error_points = error * 100
    if first.loss_ratio <= loss_ratio:
        best, best_percent = first, 100.0
    elif max_rate > 0:
        high, low = 100.0, 0.0
        iteration = 0
        while iteration <= max_iterations:
            if len(trials) >= limits.max_trials:
                stopped = f"reached the maximum of {limits.max_trials} trials"
                break
            percent = (high + low) / 2
            trial = run(max_rate * max(percent, 1.0) / 100)  # ndr_bench runs 0 % as 1 %
            difference = abs(percent - best_percent)
            if trial.loss_ratio <= loss_ratio:
                if percent <= best_percent:
                    break
                best, best_percent = trial, percent
                if difference <= error_points:
                    break
                low = percent
            elif difference <= error_points:
                break
            else:
                high = percent
            iteration += 1
            if iteration == max_iterations:
                stopped = (
                    f"ndr_bench's {max_iterations} iterations reached: "
                    "results might not be fully accurate"
                )
                break
    else:
        stopped = "the generator sent nothing at the maximum load"
    return watch.search_result(
        "ndr-bench",
        goals=(
            _result(
                name=name,
                loss_ratio=loss_ratio,
                duration=duration,
                error=error,
                max_rate=max_rate,
                best=best,
                trials=trials,
                watch=watch,
            ),
        ),
        trials=trials,
        stopped=stopped,
    )


def _result(
    *,
    name: str,
    loss_ratio: float,
    duration: float,
    error: float,
    max_rate: float,
    best: TrialResult | None,
    trials: list[TrialResult],
    watch: GeneratorWatch,
) -> GoalResult:
    lower = None if best is None else best.offered
    failed = [
        trial.intended
        for trial in trials
        if trial.loss_ratio > loss_ratio
        and not trial.generator_limited
        and (lower is None or trial.intended > lower)
    ]
    upper = min(failed) if failed else None
    width = error if upper is None else min(0.99, max(error, error * max_rate / upper))
    goal = Goal(name=name, loss_ratio=loss_ratio, final_duration=duration, width=width)
    return watch.bisected(goal, lower, upper, best)
