"""MLRsearch (RFC 9971) in spirit: several goals at once, short trials first, full-length
trials for the answer, an exceed ratio against the odd lossy trial.

Each goal walks through phases (phases.py): trial durations grow from the search's
initial duration to the goal's final one, and the width its bounds must reach halves (on
a log scale) from phase to phase down to the goal's width. In each phase a load is
classified from that phase's trials only (bounds.py, RFC 9971 Appendix A); a phase is
done when its relevant bounds are as close as it asks, or when there is nothing to find
(the maximum load is a lower bound, or the minimum load an upper bound).

The next load of a goal, in its first unfinished phase, is chosen from the tentative
bounds: the relevant bounds if the trials so far at each load were all it gets (a load
still undecided leans to where its trials so far put it):
  1. when the tentative bounds would end the phase but one of them is still undecided:
     that load again (RFC 9971's duration sum: several trials decide it);
  2. the first trial of all at the maximum load; after an upper bound at the maximum,
     its forwarding rate (RFC 9971's initial probes: the maximum receive rate);
  3. in a later phase, the previous phase's lower bound, then its upper bound (or a
     load towards it), where they lie between this phase's bounds: to confirm them at
     the longer duration;
  4. external search: from the only bound known in the phase, away from it by the
     phase's width, doubling the (relative) step with every further bound on that side;
  5. bisection: the geometric midpoint of the bounds, but no further from the bound
     measured last than the external search would step (so a near-right guess is
     confirmed in one trial instead of bisected from far away).
Of the goals' next loads the search runs the one with the shortest duration (then the
lowest load), so goals of the same phases share their trials.

Differences from RFC 9971 and its reference implementation, on purpose:
  - The answer comes from full-length trials only (duration at least the goal's final
    duration): the RFC lets shorter bad trials count towards an upper bound.
  - Phases before the last decide a load with one trial of their length, and count only
    trials of their own length range, so a phase's result never changes later.
  - The conditional throughput is the average forwarding rate of the full-length trials
    at the relevant lower bound; RFC 9971 section 4.8 takes a quantile (the exceed
    ratio's) of them, which differs only when those trials differ.
  - A generator-limited trial (the generator sent < 99.5 % of the load over the time
    it could send: TrialResult.offered_duration, RFC 9971's offered duration) is never
    counted: the load the generator did offer is its ceiling, and the search continues
    just below it (generator.py). When that ceiling falls between a goal's bounds, the
    goal ends there, wider than it asks, and the search says why (`stopped`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wirespeed.model import ModelError
from wirespeed.search.bounds import (
    TOLERANCE,
    Bounds,
    LoadRecord,
    Verdict,
    bounds_of,
    records,
)
from wirespeed.search.generator import GeneratorWatch, describe_trial
from wirespeed.search.model import (
    Goal,
    GoalResult,
    Measurer,
    SearchLimits,
    SearchResult,
    TrialResult,
)
from wirespeed.search.phases import Phase, phases_of

__all__ = ["mlrsearch"]

# External search's step (log scale) never exceeds this: e**30 spans any range of loads.
MAX_STEP = 30.0


@dataclass(frozen=True)
class _Plan:
    load: float
    duration: float


@dataclass(frozen=True)
class _PhaseView:
    """One goal's phase as its trials so far show it."""

    phase: Phase
    records: dict[float, LoadRecord]
    bounds: Bounds
    last_load: float | None  # the load of the phase's most recent counted trial


class _GoalSearch:
    def __init__(self, goal: Goal, initial_duration: float) -> None:
        self.goal = goal
        self.phases = phases_of(goal, initial_duration)

    def view(self, phase: Phase, trials: Sequence[TrialResult]) -> _PhaseView:
        counted = [trial for trial in trials if phase.counts(trial.duration)]
        by_load = records(counted)
        goal = self.goal
        bounds = bounds_of(by_load, goal.loss_ratio, phase.duration_sum, goal.exceed_ratio)
        last = next((t.intended for t in reversed(counted) if not t.generator_limited), None)
        return _PhaseView(phase, by_load, bounds, last)

    def phase_of(self, duration: float) -> Phase | None:
        return next((phase for phase in self.phases if phase.counts(duration)), None)

    def next_plan(
        self, trials: Sequence[TrialResult], max_load: float, min_load: float
    ) -> _Plan | None:
        """The next trial this goal needs; None when its final phase is done."""
        previous: Bounds | None = None
        for phase in self.phases:
            view = self.view(phase, trials)
            if not _done(view.bounds, phase, max_load, min_load):
                # Never above what the generator can still offer: a step down from an
                # upper bound, or a midpoint, can lie above a ceiling that sagged later.
                load = min(_next_load(view, previous, max_load, min_load), max_load)
                return _Plan(load, phase.trial_duration)
            previous = view.bounds
        return None

    def result(self, trials: Sequence[TrialResult], watch: GeneratorWatch) -> GoalResult:
        view = self.view(self.phases[-1], trials)
        lower, upper = view.bounds.lower, view.bounds.upper
        throughput = None if lower is None else view.records[lower].forwarding_rate
        # The generator's limit, not the device's: nothing above `lower` was found to lose,
        # or what was found lay above the loads the generator could still offer.
        capped = lower is not None and lower >= watch.max_load * (1 - TOLERANCE)
        stuck = upper is not None and not self.phases[-1].narrow(lower or upper, upper)
        return GoalResult(
            goal=self.goal,
            lower=lower,
            upper=upper,
            conditional_throughput=throughput,
            generator_limited=watch.ceiling is not None and (upper is None or (capped and stuck)),
        )


def _done(bounds: Bounds, phase: Phase, max_load: float, min_load: float) -> bool:
    return _settled(bounds.lower, bounds.upper, phase, max_load, min_load)


def _settled(
    lower: float | None, upper: float | None, phase: Phase, max_load: float, min_load: float
) -> bool:
    """Whether these bounds would end the phase."""
    if lower is not None and lower >= max_load * (1 - TOLERANCE):
        # Nothing above to find: the maximum load, or a generator's ceiling that fell
        # below the upper bound, so no load between the bounds can be offered any more.
        return True
    if lower is not None and upper is not None:
        return phase.narrow(lower, upper)
    if upper is not None:
        return upper <= min_load * (1 + TOLERANCE)  # even the minimum loses too much
    return False


def _next_load(
    view: _PhaseView, previous: Bounds | None, max_load: float, min_load: float
) -> float:
    bounds = view.bounds
    lower, upper = bounds.tentative_lower, bounds.tentative_upper
    if _settled(lower, upper, view.phase, max_load, min_load):
        # These bounds would do, but one still needs trials to be sure.
        for load in (lower, upper):
            if load is not None and bounds.verdicts[load] is Verdict.UNDECIDED:
                return load
    hint_lower, hint_upper = (None, None) if previous is None else (previous.lower, previous.upper)

    def usable(hint: float | None) -> bool:
        return (
            hint is not None
            and hint <= max_load * (1 + TOLERANCE)
            and hint not in bounds.verdicts
            and (lower is None or hint > lower)
            and (upper is None or hint < upper)
        )

    if hint_lower is not None and usable(hint_lower):
        return hint_lower
    if hint_upper is not None and usable(hint_upper):
        if lower is None or view.phase.narrow(lower, hint_upper):
            return hint_upper
        return _step_up(view, lower, hint_upper, max_load)
    if lower is None:
        return max_load if upper is None else _step_down(view, upper, min_load)
    if upper is None:
        return _step_up(view, lower, None, max_load)
    if view.last_load == upper:
        return max(_midpoint(lower, upper), _step_down(view, upper, min_load))
    return _step_up(view, lower, upper, max_load)


def _midpoint(lower: float, upper: float) -> float:
    return math.sqrt(lower * upper)


def _step(view: _PhaseView, verdict: Verdict) -> float:
    """External search's step (log scale): the phase's width, doubled for each further
    bound of this kind the phase has found."""
    further = max(0, view.bounds.count_leaning(verdict) - 1)
    return min(view.phase.log_width * 2.0 ** min(further, 64), MAX_STEP)


def _step_up(view: _PhaseView, lower: float, upper: float | None, max_load: float) -> float:
    load = min(lower * math.exp(_step(view, Verdict.LOWER)), max_load)
    if upper is not None:
        load = min(load, _midpoint(lower, upper))
    return load


def _step_down(view: _PhaseView, upper: float, min_load: float) -> float:
    load = upper * math.exp(-_step(view, Verdict.UPPER))
    if view.bounds.count_leaning(Verdict.UPPER) == 1:
        # The first step down: the forwarding rate measured at the upper bound is what
        # the device managed, a better guess than one width below (RFC 9971's maximum
        # receive rate probe after the maximum load).
        forwarded = view.records[upper].forwarding_rate
        if 0 < forwarded < load:
            load = forwarded
    return max(load, min_load)


def _verdicts(searches: Sequence[_GoalSearch], trials: Sequence[TrialResult]) -> str:
    """What the last trial's load now is for each goal, in the phase it counted in."""
    trial = trials[-1]
    said: list[str] = []
    for search in searches:
        phase = search.phase_of(trial.duration)
        if phase is None:
            continue
        verdict = search.view(phase, trials).bounds.verdicts.get(trial.intended)
        if verdict is not None:
            said.append(f"{search.goal.name} {verdict.value}")
    return ", ".join(said)


def _stopped_below_the_generator(goals: Sequence[GoalResult], watch: GeneratorWatch) -> str | None:
    """Why a goal's bounds stayed wider than it asks: the generator could no longer offer
    the loads between them (its ceiling fell between the bounds as the search went)."""
    # (A goal that has not converged has both bounds, or neither: see GoalResult.converged.)
    stuck = [
        f"{goal.goal.name} between {goal.lower:,.0f} and {goal.upper:,.0f} pps"
        for goal in goals
        if not goal.converged and goal.lower is not None and goal.upper is not None
    ]
    if not stuck:
        return None
    bounds = ", ".join(stuck)
    return (
        f"the generator's shortfalls capped the loads at {watch.max_load:,.0f} pps, too "
        f"little to narrow {bounds}"
    )


def mlrsearch(
    measure: Measurer,
    goals: Sequence[Goal],
    limits: SearchLimits,
    *,
    progress: Callable[[str], None] | None = None,
) -> SearchResult:
    """Search the loads of several goals at once; see the module's docstring."""
    if not goals:
        raise ModelError("a search needs at least one goal")
    names = [goal.name for goal in goals]
    if len(set(names)) != len(names):
        raise ModelError(f"goal names must differ: {', '.join(names)}")
    searches = [_GoalSearch(goal, limits.initial_duration) for goal in goals]
    watch = GeneratorWatch(limits.max_load)
    trials: list[TrialResult] = []
    stopped: str | None = None
    while True:
        stopped = watch.too_low(limits.min_load)
        if stopped is not None:
            break
        plans = [
            plan
            for search in searches
            if (plan := search.next_plan(trials, watch.max_load, limits.min_load)) is not None
        ]
        if not plans:
            break
        if len(trials) >= limits.max_trials:
            stopped = f"reached the maximum of {limits.max_trials} trials before converging"
            break
        plan = min(plans, key=lambda plan: (plan.duration, plan.load))
        trials.append(measure(plan.load, plan.duration))
        watch.observe(trials[-1])
        if progress is not None:
            progress(describe_trial(len(trials), trials[-1], _verdicts(searches, trials)))
    found = tuple(search.result(trials, watch) for search in searches)
    if stopped is None and watch.ceiling is not None:
        stopped = _stopped_below_the_generator(found, watch)
    return watch.search_result("mlrsearch", found, trials, stopped)
