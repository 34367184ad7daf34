"""The generator's ceiling, as the searches learn it, and the one-line story of a trial.

A trial whose generator sent less than it was asked (TrialResult.generator_limited)
tested the generator, not the device: it is never an upper bound. The load the
generator did offer is its ceiling; the search goes on below it.

Only a shortfall at the top of the range lowers the top at once. A generator on a busy
machine also falls short now and then far below its ceiling (measured: 1-2 % short at
40 kpps while it reached 70 kpps a moment before); such a load is asked again, and only
a second shortfall there lowers the top below it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from wirespeed.search.model import Goal, GoalResult, SearchResult, TrialResult

# After a generator-limited trial the search asks at most this share of what the
# generator managed, so that the next trials are not limited again by its jitter.
BELOW_CEILING = 0.99


class GeneratorWatch:
    """The highest load a search may still ask for, lowered by generator-limited trials."""

    def __init__(self, max_load: float) -> None:
        self.max_load = max_load
        self.ceiling: float | None = None  # the highest load a limited generator offered
        self._shortfalls: Counter[float] = Counter()  # generator-limited trials per load

    def observe(self, trial: TrialResult) -> bool:
        """Take a trial into account; True when it was generator-limited."""
        if not trial.generator_limited:
            return False
        offered = trial.offered
        self.ceiling = offered if self.ceiling is None else max(self.ceiling, offered)
        self._shortfalls[trial.intended] += 1
        at_top = trial.intended >= self.max_load * (1 - 1e-9)
        if at_top or self._shortfalls[trial.intended] >= 2:
            self.max_load = min(self.max_load, offered * BELOW_CEILING)
        return True

    def bisected(
        self, goal: Goal, lower: float | None, upper: float | None, best: TrialResult | None
    ) -> GoalResult:
        """A bisecting search's result for its goal: its bounds, the throughput of its best
        trial, and generator-limited where the generator fell short and no load was
        found too much for the device."""
        return GoalResult(
            goal=goal,
            lower=lower,
            upper=upper,
            conditional_throughput=None if best is None else best.forwarding_rate,
            generator_limited=self.ceiling is not None and upper is None,
        )

    def search_result(
        self,
        algorithm: str,
        goals: Sequence[GoalResult],
        trials: Sequence[TrialResult],
        stopped: str | None,
    ) -> SearchResult:
        """A search's result, with the generator's ceiling as the search found it."""
        return SearchResult(
            goals=tuple(goals),
            trials=tuple(trials),
            algorithm=algorithm,
            generator_ceiling=self.ceiling,
            stopped=stopped,
        )

    def too_low(self, min_load: float) -> str | None:
        """Why the search cannot go on, when the generator cannot offer even min_load."""
        if self.max_load >= min_load:
            return None
        return (
            f"the generator offered at most {self.ceiling or 0:,.0f} pps, "
            f"below the minimum load {min_load:,.0f} pps"
        )


def describe_trial(number: int, trial: TrialResult, verdicts: str) -> str:
    """'trial 7: 14,850 pps for 10 s: 0 lost (NDR lower bound)'."""
    head = f"trial {number}: {trial.intended:,.0f} pps for {trial.duration:g} s"
    if trial.generator_limited:
        return (
            f"{head}: the generator offered only {trial.offered:,.0f} pps "
            "(generator-limited: not counted against the device)"
        )
    lost = max(0, trial.sent - trial.received)
    return f"{head}: {lost:,} lost ({verdicts})" if verdicts else f"{head}: {lost:,} lost"
