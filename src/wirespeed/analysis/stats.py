"""How far to trust a figure measured a few times: spread, interval, outliers, stability.

Benchmarks of routers are repeated 3 to 10 times, not thousands, and their noise is not
normal (a background job or a thermal throttle makes one slow repetition, not a bell
curve). So the figure is the median, its interval comes from the bootstrap, outliers from
a robust rule, and two groups are compared with a permutation test: none of them assumes
a distribution, and all of them work with n = 2..10.

The interval of the median is the bootstrap percentile interval computed exactly, not by
drawing resamples. Sort the n values, x(1) <= ... <= x(n). A resample draws n indices
uniformly from 1..n; its sorted values are x at the sorted indices, so its median is
x(I_k) for odd n (k = (n + 1) / 2) and (x(I_k) + x(I_k+1)) / 2 for even n (k = n / 2),
where I_k is the k-th smallest index drawn. The k-th smallest index is <= j exactly when
at least k of the n draws fall among the first j, a binomial tail:

    P(I_k <= j) = sum over c = k..n of C(n, c) (j/n)^c (1 - j/n)^(n - c)

For even n the pair (I_k, I_k+1) has, for a < b,

    P(I_k = a, I_k+1 = b) = C(n, k) (a^k - (a-1)^k) ((n-b+1)^k - (n-b)^k) / n^n

(k draws at or below a, at least one at a; the other k at or above b, at least one at b),
and the rest of P(I_k = a) is the pair (a, a). Summed over the pairs whose median is at
most v, these give P(median of a resample <= v) in O(n) integer operations, times n^n so
that every probability is an exact integer. The interval's low end is the smallest
possible resample median v with P(<= v) > (1 - confidence) / 2, its high end the smallest
with P(<= v) >= 1 - (1 - confidence) / 2: the 2.5 % and 97.5 % percentiles of infinitely
many resamples, where 2000 seeded resamples only estimated them. The two order
statistics bound the median (x(I_k) <= median <= x(I_k+1)), so each end lies between
their percentiles; only the pair medians in between are tried, by bisection. No random
draws: the same values give the same interval everywhere, and ties in the values or an
exact 2.5 % are decided exactly.

The ratio of two medians (comparisons) keeps a seeded Monte Carlo bootstrap. For large
groups (LARGE_GROUP or more repetitions on both sides, a run repeated 100 times) it draws
each resample's median from the exact bootstrap distribution of the median (above)
instead of resampling the values and sorting them, because sampling cost a few tenths of
a second per compared cell and a report of a large run compares dozens of them: a draw
from the same distribution, so the interval is the same bootstrap interval with the same
RESAMPLES and SEED, at the cost of one bisection per draw instead of n draws and a sort.
The distribution is computed in floating point (within 1e-13 of the integer formulas),
and medians less likely than NEGLIGIBLE (1e-15) are left out of it (together about 1e-13
of it for 100 to 1000 values).

Whether two groups differ (the permutation test, Welch's t-test) is analysis/group_tests.py.

Pure functions of tuples of floats, on the standard library only.
"""

from __future__ import annotations

import bisect
import enum
import functools
import itertools
import math
import random
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

# A fixed seed for what is still sampled (the ratio interval, large permutation tests):
# the same figures must give the same result in every report, on every machine, or a
# reader would see the "same" run change between two renders. Any number does; this one
# is the date of the seeds' R4S post. Each call seeds its own generator, so a result
# depends on its own values only, not on which cells were computed before it.
SEED = 20201209
RESAMPLES = 2000  # percentiles at 2.5 % and 97.5 % rest on 50 resamples each side
CONFIDENCE = 0.95
# pyperf warns at a standard deviation of 10 % of the mean; a link at line rate varies by
# 0.1 %, so 5 % already means something else was going on.
UNSTABLE_CV = 0.05
# Iglewicz and Hoaglin's modified z-score: beyond 3.5 is an outlier. It uses the median
# and the median absolute deviation, which one wild value cannot drag along (a mean and
# standard deviation would be pulled towards the outlier and hide it when n is small).
OUTLIER_Z = 3.5
# ... and must also lie 1 % or more from the median: iperf's text prints 3 digits, so 938
# among four 941s is statistically odd but says nothing about the device.
OUTLIER_MIN_DEVIATION = 0.01
MAD_TO_SIGMA = 0.6745  # the MAD of a normal distribution is 0.6745 sigma
MEAN_AD_TO_SIGMA = 0.7979  # the mean absolute deviation of a normal one is 0.7979 sigma
ALPHA = 0.05
# Both sides this large: Welch's t-test (analysis/group_tests.py), and the ratio's resample
# medians drawn from their exact distributions (module docstring).
LARGE_GROUP = 20
NEGLIGIBLE = 1e-15  # a bootstrap median this unlikely is never drawn for a ratio


class StatsError(ValueError):
    """Values that cannot be summarized: none at all, or not finite numbers."""


class Stability(enum.StrEnum):
    SINGLE_RUN = "single run"  # one repetition: no spread to judge it by
    STABLE = "stable"
    UNSTABLE = "unstable"  # coefficient of variation above UNSTABLE_CV


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap percentile interval of `statistic` ("median", or "ratio of medians")."""

    low: float
    high: float
    confidence: float = CONFIDENCE
    statistic: str = "median"
    # How many seeded resamples estimated it; None: the exact bootstrap distribution.
    resamples: int | None = None
    seed: int | None = None

    def __post_init__(self) -> None:
        if not self.low <= self.high:
            raise StatsError(f"an interval's low end is above its high end: {self}")
        if not 0 < self.confidence < 1:
            raise StatsError(f"confidence must be between 0 and 1, got {self.confidence}")

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high


@dataclass(frozen=True)
class Summary:
    """One group of repetitions, as a reader needs it: hyperfine's `mean ± sd`, `min … max`,
    plus the median with its interval, the CV, the outliers and a verdict."""

    values: tuple[float, ...]
    median: float
    mean: float
    stdev: float | None  # sample standard deviation (n - 1); None for one value
    cv: float | None  # stdev / mean, a fraction; None for one value or a mean of 0
    minimum: float
    maximum: float
    interval: ConfidenceInterval | None  # of the median; None for one value
    outliers: tuple[int, ...]  # indices into values

    def __post_init__(self) -> None:
        if not self.values:
            raise StatsError("a summary needs at least one value")
        if not self.minimum <= self.median <= self.maximum:
            raise StatsError(f"the median is outside min … max: {self}")

    @property
    def n(self) -> int:
        return len(self.values)

    @property
    def stability(self) -> Stability:
        if self.n == 1:
            return Stability.SINGLE_RUN
        if self.cv is not None and self.cv > UNSTABLE_CV:
            return Stability.UNSTABLE
        return Stability.STABLE


def checked_values(values: Sequence[float]) -> tuple[float, ...]:
    checked = tuple(float(v) for v in values)
    if not checked:
        raise StatsError("no values to summarize")
    if not all(math.isfinite(v) for v in checked):
        raise StatsError(f"values must be finite numbers, got {checked}")
    return checked


def _percentile_interval(
    estimates: list[float], confidence: float, statistic: str, seed: int
) -> ConfidenceInterval:
    estimates.sort()
    tail = (1 - confidence) / 2
    low = estimates[math.floor(tail * len(estimates))]
    high = estimates[math.ceil((1 - tail) * len(estimates)) - 1]
    return ConfidenceInterval(low, high, confidence, statistic, len(estimates), seed)


def _at_most(n: int, k: int, j: int, binomials: Sequence[int]) -> int:
    """n^n times the probability that the k-th smallest of n indices drawn from 1..n is
    at most j: that k or more of the draws fall among the first j."""
    # sum over c = k..n of C(n, c) j^c (n - j)^(n - c), by Horner's rule in j.
    rest = n - j
    total, rest_power = binomials[n], 1
    for c in range(n - 1, k - 1, -1):
        rest_power *= rest
        total = total * j + binomials[c] * rest_power
    power: int = j**k
    return total * power


def _first(count: int, holds: Callable[[int], bool]) -> int:
    """The smallest i in 1..count for which holds(i), which is monotone and holds(count)."""
    low, high = 1, count
    while low < high:
        middle = (low + high) // 2
        if holds(middle):
            high = middle
        else:
            low = middle + 1
    return low


def _median_percentile(
    data: list[float], binomials: Sequence[int], reached: Callable[[int], bool]
) -> float:
    """The smallest possible resample median v whose n^n P(median <= v) is `reached`."""
    n = len(data)
    k = (n + 1) // 2
    if n % 2:  # the median of a resample is x(I_k)
        return data[_first(n, lambda j: reached(_at_most(n, k, j, binomials))) - 1]

    powers: list[int] = [j**k for j in range(n + 1)]  # n - k = k: one table serves both factors

    def at_most(v: float) -> int:
        """n^n P(median of a resample <= v): every pair (a, b), a <= b, whose
        (x(a) + x(b)) / 2 <= v. See the module docstring."""
        below = bisect.bisect_right(data, v)  # x(a) <= v for a <= below
        if below == 0:
            return 0
        beyond = 0
        b = n
        for a in range(1, below + 1):
            x_a = data[a - 1]
            while (x_a + data[b - 1]) / 2 > v:
                b -= 1
            beyond += (powers[a] - powers[a - 1]) * powers[n - b]
        return _at_most(n, k, below, binomials) - binomials[k] * beyond

    # x(I_k) <= median <= x(I_k+1): the percentile lies between theirs.
    floor = data[_first(n, lambda j: reached(_at_most(n, k, j, binomials))) - 1]
    ceiling = data[_first(n, lambda j: reached(_at_most(n, k + 1, j, binomials))) - 1]
    last = bisect.bisect_right(data, ceiling)
    candidates: set[float] = set()
    for a in range(last):
        x_a = data[a]

        def median(x_b: float, x_a: float = x_a) -> float:
            return (x_a + x_b) / 2

        first = bisect.bisect_left(data, floor, a, n, key=median)
        end = bisect.bisect_right(data, ceiling, a, n, key=median)
        candidates.update(median(x_b) for x_b in data[first:end])
    ordered = sorted(candidates)  # holds `ceiling` itself, the pair (jb, jb)
    return ordered[_first(len(ordered), lambda i: reached(at_most(ordered[i - 1]))) - 1]


def bootstrap_interval(
    values: Sequence[float], *, confidence: float = CONFIDENCE
) -> ConfidenceInterval:
    """The percentile bootstrap interval of the median, from the exact bootstrap
    distribution (module docstring): what infinitely many resamples would give.

    With n values the interval cannot be wider than min … max: for n = 2 it is exactly
    that, which is honest (two repetitions say little).
    """
    data = sorted(checked_values(values))
    n = len(data)
    # The confidence as the decimal it was written as (0.95 is 19/20, not the float's
    # binary expansion), so that a probability of exactly 2.5 % is decided exactly.
    tail = (1 - Fraction(repr(confidence))) / 2
    if not 0 < tail < Fraction(1, 2):
        raise StatsError(f"confidence must be between 0 and 1, got {confidence}")
    # In integers: weight / n^n > tail = p / q, as weight q > p n^n.
    p, q = tail.numerator, tail.denominator
    scale: int = n**n
    low_tail, high_tail = p * scale, (q - p) * scale
    binomials = [math.comb(n, c) for c in range(n + 1)]
    low = _median_percentile(data, binomials, lambda weight: weight * q > low_tail)
    high = _median_percentile(data, binomials, lambda weight: weight * q >= high_tail)
    return ConfidenceInterval(low, high, confidence, "median")


def outlier_indices(values: Sequence[float]) -> tuple[int, ...]:
    """Values whose modified z-score (from the median and MAD) exceeds OUTLIER_Z and that
    lie OUTLIER_MIN_DEVIATION or more from the median.

    With 2 values neither can be the odd one out. When more than half the values are equal
    the MAD is 0; the mean absolute deviation then stands in for it (as IBM SPSS does), so
    941, 941, 941, 941, 680 still flags 680.
    """
    data = checked_values(values)
    if len(data) < 3:
        return ()
    center = statistics.median(data)
    deviations = [abs(v - center) for v in data]
    mad = statistics.median(deviations)
    if mad > 0:
        scale = mad / MAD_TO_SIGMA
    else:
        mean_ad = statistics.fmean(deviations)
        if mean_ad == 0:
            return ()
        scale = mean_ad / MEAN_AD_TO_SIGMA
    floor = OUTLIER_MIN_DEVIATION * abs(center)
    return tuple(i for i, d in enumerate(deviations) if d / scale > OUTLIER_Z and d >= floor)


def summarize(values: Sequence[float]) -> Summary:
    return _summarize(checked_values(values))


def percent_change(ratio: float | None) -> float | None:
    """A ratio of two figures as a change in %: +43.7 for 1.437; None for no ratio."""
    return None if ratio is None else (ratio - 1.0) * 100.0


# A report summarizes each group more than once (its table, the A/B table, each
# comparison); a Summary is immutable and depends on the values only.
@functools.lru_cache(maxsize=4096)
def _summarize(data: tuple[float, ...]) -> Summary:
    mean = statistics.fmean(data)
    several = len(data) > 1
    stdev = statistics.stdev(data) if several else None
    cv = None if stdev is None or mean == 0 else stdev / abs(mean)
    return Summary(
        values=data,
        median=statistics.median(data),
        mean=mean,
        stdev=stdev,
        cv=cv,
        minimum=min(data),
        maximum=max(data),
        interval=bootstrap_interval(data) if several else None,
        outliers=outlier_indices(data),
    )


def ratio_interval(
    a: Sequence[float],
    b: Sequence[float],
    *,
    confidence: float = CONFIDENCE,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> ConfidenceInterval | None:
    """The bootstrap interval of median(b) / median(a), each group resampled on its own.

    None when a resample of `a` can have a median of 0 (the ratio has no bound).
    With LARGE_GROUP or more values on both sides (and every value of `a` positive) each
    resample's median is drawn from its exact bootstrap distribution (module docstring).
    """
    first, second = checked_values(a), checked_values(b)
    if min(len(first), len(second)) >= LARGE_GROUP and min(first) > 0:
        return _ratio_from_distributions(first, second, confidence, resamples, seed)
    generator = random.Random(seed)  # noqa: S311 - reproducible resampling, not secrets
    estimates = []
    for _ in range(resamples):
        below = statistics.median(generator.choices(first, k=len(first)))
        if below == 0:
            return None
        estimates.append(statistics.median(generator.choices(second, k=len(second))) / below)
    return _percentile_interval(estimates, confidence, "ratio of medians", seed)


def _order_statistic_cdf(n: int, k: int) -> list[float]:
    """P(I_k <= j) for j = 0..n, in floating point: that k or more of n draws from 1..n
    fall among the first j, a binomial tail. Summed from the term at c = k (or k - 1 for
    the complement) away from the binomial's mode, where the terms only fall, until the
    rest is below the float's precision."""
    log_choose = [
        math.lgamma(n + 1) - math.lgamma(c + 1) - math.lgamma(n - c + 1) for c in range(n + 1)
    ]
    cdf = [0.0] * (n + 1)
    cdf[n] = 1.0
    for j in range(1, n):
        p = j / n
        odds = p / (1 - p)
        upper = j < k  # the mode j lies below k: sum c = k..n; else 1 - sum c = 0..k-1
        c = k if upper else k - 1
        term = math.exp(log_choose[c] + c * math.log(p) + (n - c) * math.log1p(-p))
        total = 0.0
        while term > 0.0 and (total == 0.0 or term > 1e-17 * total):
            total += term
            if upper:
                if c == n:
                    break
                term *= (n - c) / (c + 1) * odds
                c += 1
            else:
                if c == 0:
                    break
                term *= c / (n - c + 1) / odds
                c -= 1
        cdf[j] = total if upper else 1.0 - total
    return cdf


def median_distribution(data: list[float]) -> tuple[list[float], list[float]]:
    """The possible medians of a bootstrap resample of sorted `data`, ascending, and the
    cumulative probability of each (the formulas of the module docstring, in floating
    point: within 1e-13 of the exact integers). Medians less likely than NEGLIGIBLE are
    left out."""
    n = len(data)
    k = (n + 1) // 2
    cdf = _order_statistic_cdf(n, k)
    weights: dict[float, float] = {}
    if n % 2:
        for j in range(1, n + 1):
            weight = cdf[j] - cdf[j - 1]
            if weight > NEGLIGIBLE:
                weights[data[j - 1]] = weights.get(data[j - 1], 0.0) + weight
    else:
        log_choose = math.lgamma(n + 1) - 2 * math.lgamma(k + 1)

        def log_step(x: int) -> float:
            """log((x/n)^k - ((x-1)/n)^k)."""
            if x == 1:
                return -k * math.log(n)
            return k * math.log(x / n) + math.log(-math.expm1(k * math.log1p(-1 / x)))

        steps = [-math.inf] + [log_step(x) for x in range(1, n + 1)]
        for a in range(1, n + 1):
            marginal = cdf[a] - cdf[a - 1]
            if marginal <= NEGLIGIBLE:
                continue
            # The pairs (a, b) for b > a add up to C(n, k) (a^k - (a-1)^k) (n-a)^k / n^n;
            # the rest of P(I_k = a) is the pair (a, a).
            paired = 0.0 if a == n else math.exp(log_choose + steps[a] + k * math.log1p(-a / n))
            weights[data[a - 1]] = weights.get(data[a - 1], 0.0) + max(marginal - paired, 0.0)
            for b in range(a + 1, n + 1):
                weight = math.exp(log_choose + steps[a] + steps[n - b + 1])
                if weight <= NEGLIGIBLE:
                    break  # smaller still for every larger b
                median = (data[a - 1] + data[b - 1]) / 2
                weights[median] = weights.get(median, 0.0) + weight
    medians = sorted(weights)
    return medians, list(itertools.accumulate(weights[m] for m in medians))


def _ratio_from_distributions(
    first: tuple[float, ...],
    second: tuple[float, ...],
    confidence: float,
    resamples: int,
    seed: int,
) -> ConfidenceInterval:
    """The bootstrap interval of median(B*) / median(A*), each resample's median drawn
    from its exact bootstrap distribution; every value of `first` is positive."""
    medians_a, cumulative_a = median_distribution(sorted(first))
    medians_b, cumulative_b = median_distribution(sorted(second))
    generator = random.Random(seed)  # noqa: S311 - reproducible resampling, not secrets
    below = generator.choices(medians_a, cum_weights=cumulative_a, k=resamples)
    above = generator.choices(medians_b, cum_weights=cumulative_b, k=resamples)
    estimates = [b / a for a, b in zip(below, above, strict=True)]
    return _percentile_interval(estimates, confidence, "ratio of medians", seed)
