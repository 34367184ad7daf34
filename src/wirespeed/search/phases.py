"""The phases of an MLRsearch goal: short, coarse trials first; full-length ones at the
goal's width last (RFC 9971 section 5's "preceding targets", as the reference
implementation builds them).

Trial durations grow geometrically from the search's initial duration to the goal's
final duration, at most PHASE_DURATION_RATIO apart, those in between rounded to what a
generator's timer keeps (_tidy). Each phase before the last decides a
load with one trial (its duration sum is its trial duration) and asks half the
precision of the next: widths double on a log scale, so that bisecting a phase's
interval by its geometric midpoint gives exactly the next phase's width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wirespeed.search.bounds import TOLERANCE
from wirespeed.search.model import Goal

# A phase's trials last at most this many times longer than the previous phase's.
PHASE_DURATION_RATIO = 4.0


@dataclass(frozen=True)
class Phase:
    index: int
    trial_duration: float
    next_duration: float | None  # the next phase's trial duration; None: the final phase
    duration_sum: float
    log_width: float  # ln(upper / lower) the phase's bounds may be apart

    @property
    def final(self) -> bool:
        return self.next_duration is None

    @property
    def width(self) -> float:
        """The width as Goal.width counts it: (upper - lower) / upper."""
        return 1.0 - math.exp(-self.log_width)

    def counts(self, duration: float) -> bool:
        """Whether a trial of this length counts in this phase: at least this phase's
        length and shorter than the next's; any full-length trial in the final phase."""
        if duration < self.trial_duration * (1 - TOLERANCE):
            return False
        return self.next_duration is None or duration < self.next_duration * (1 - TOLERANCE)

    def narrow(self, lower: float, upper: float) -> bool:
        return math.log(upper / lower) <= self.log_width * (1 + TOLERANCE) + TOLERANCE


def _tidy(duration: float) -> float:
    """A duration between the initial and the final one, as a generator's timer keeps
    it: whole seconds from 2 s (iperf3's -t takes an integer), tenths below (iperf2
    keeps hundredths, cut down: asked for 0.7746 s it sends for 0.77 s and looks 0.6 %
    short of its load)."""
    return float(round(duration)) if duration >= 2 else round(duration, 1)


def _durations(initial: float, final: float) -> list[float]:
    """Geometric from initial to final, tidied in between (_tidy), never repeating."""
    if final <= initial * (1 + TOLERANCE):
        return [final]
    steps = math.ceil(math.log(final / initial) / math.log(PHASE_DURATION_RATIO) - TOLERANCE)
    durations = [initial]
    for step in range(1, steps):
        duration = initial * (final / initial) ** (step / steps)
        rounded = _tidy(duration)
        if durations[-1] < rounded < final:
            durations.append(rounded)
    durations.append(final)
    return durations


def phases_of(goal: Goal, initial_duration: float) -> tuple[Phase, ...]:
    durations = _durations(min(initial_duration, goal.final_duration), goal.final_duration)
    final_log_width = -math.log(1.0 - goal.width)
    last = len(durations) - 1
    return tuple(
        Phase(
            index=index,
            trial_duration=duration,
            next_duration=durations[index + 1] if index < last else None,
            duration_sum=goal.decisive_duration if index == last else duration,
            log_width=final_log_width * 2 ** (last - index),
        )
        for index, duration in enumerate(durations)
    )
