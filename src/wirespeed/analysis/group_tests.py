"""Whether two groups of repetitions differ: a permutation test, or Welch's t-test for
large groups, and the interval of the difference that goes with Welch's test.

The permutation test enumerates its splits exactly up to EXACT_PERMUTATION_LIMIT: the
common case of 3 to 10 repetitions a side. Large groups (LARGE_GROUP or more repetitions
on both sides, a run repeated 100 times) switch to Welch's t-test, because sampling cost
a few tenths of a second per compared cell and a report of a large run compares dozens
of them, and the splits are too many to enumerate. With 20 or more values a side the
mean is close to normal whatever the values' distribution (central limit theorem), which
is all Welch's test assumes, and it does not assume equal variances. Its p-value needs
the CDF of Student's t: the regularized incomplete beta function, I_x(df/2, 1/2) with
x = df / (df + t^2), evaluated by its continued fraction (Lentz's method).

The `method` of a PermutationTest says which test was used.

Pure functions of tuples of floats, on the standard library only.
"""

from __future__ import annotations

import itertools
import math
import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.analysis.stats import (
    ALPHA,
    CONFIDENCE,
    LARGE_GROUP,
    SEED,
    ConfidenceInterval,
    StatsError,
    checked_values,
)

__all__ = [
    "EXACT_PERMUTATION",
    "EXACT_PERMUTATION_LIMIT",
    "RANDOM_PERMUTATION",
    "RANDOM_PERMUTATIONS",
    "WELCH",
    "PermutationTest",
    "permutation_test",
    "student_t_quantile",
    "student_t_two_sided",
    "welch_interval",
    "welch_test",
]

EXACT_PERMUTATION_LIMIT = 20_000  # up to C(16, 8) = 12870 splits: enumerate them all
RANDOM_PERMUTATIONS = 10_000  # beyond: sample splits, seeded like the bootstrap
EXACT_PERMUTATION = "exact permutation"
RANDOM_PERMUTATION = "random permutation"
WELCH = "welch t-test"


def _regularized_beta(x: float, a: float, b: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, by its continued fraction
    (Numerical Recipes, betai and betacf, with Lentz's method)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    # The fraction converges quickly only below (a + 1) / (a + b + 2); beyond, the
    # symmetry I_x(a, b) = 1 - I_(1-x)(b, a).
    if x < (a + 1) / (a + b + 2):
        return front * _beta_fraction(x, a, b) / a
    return 1 - front * _beta_fraction(1 - x, b, a) / b


def _beta_fraction(x: float, a: float, b: float) -> float:
    tiny, epsilon = 1e-300, 1e-15

    def guarded(value: float) -> float:
        return value if abs(value) >= tiny else tiny

    c = 1.0
    d = 1 / guarded(1 - (a + b) * x / (a + 1))
    fraction = d
    for m in range(1, 10_000):
        even = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        d = 1 / guarded(1 + even * d)
        c = guarded(1 + even / c)
        fraction *= d * c
        odd = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1 / guarded(1 + odd * d)
        c = guarded(1 + odd / c)
        step = d * c
        fraction *= step
        if abs(step - 1) < epsilon:
            break
    return fraction


def student_t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with df degrees of freedom (df may be fractional)."""
    if df <= 0:
        raise StatsError(f"degrees of freedom must be positive, got {df}")
    if math.isinf(t):
        return 0.0
    return _regularized_beta(df / (df + t * t), df / 2, 0.5)


@dataclass(frozen=True)
class PermutationTest:
    """A two-sided permutation test on the difference of means of two groups.

    Why a permutation test: with 3..10 repetitions a side nothing is known about the
    distribution, and Welch's t-test would assume normal means. Under "both groups come
    from one distribution" every split of the pooled values into groups of the same sizes
    is equally likely; p is the share of splits whose difference of means is at least as
    large as the one observed. Small groups are enumerated exactly, so p is exact, not
    an estimate. The mean, not the median, as the test statistic: with 5 values the median
    takes few distinct values and the test would lose most of its power. With LARGE_GROUP
    or more a side the means are close to normal, and Welch's t-test (`method` WELCH)
    replaces the sampled splits.
    """

    p_value: float
    observed_difference: float  # mean(b) - mean(a)
    exact: bool  # every split enumerated, or RANDOM_PERMUTATIONS sampled (or Welch)
    permutations: int  # 0 for Welch's t-test
    smallest_p_value: float  # the least p these group sizes can give at all
    # EXACT_PERMUTATION, RANDOM_PERMUTATION, or WELCH for large groups (module docstring)
    method: str = EXACT_PERMUTATION

    def significant(self, alpha: float = ALPHA) -> bool:
        return self.p_value < alpha

    def can_be_significant(self, alpha: float = ALPHA) -> bool:
        """False when the groups are too small: 3 and 3 give at best p = 0.1."""
        return self.smallest_p_value < alpha


def permutation_test(
    a: Sequence[float], b: Sequence[float], *, seed: int = SEED
) -> PermutationTest:
    first, second = checked_values(a), checked_values(b)
    pooled = first + second
    size_a, total = len(first), sum(first + second)
    size_b = len(second)
    observed = statistics.fmean(second) - statistics.fmean(first)
    # Sums of floats in another order differ in the last bits: a split as extreme as the
    # observed one must count even if its difference came out 1 ulp smaller.
    tolerance = 1e-9 * max(abs(v) for v in pooled) if any(pooled) else 0.0

    def difference(sum_a: float) -> float:
        return (total - sum_a) / size_b - sum_a / size_a

    splits = math.comb(len(pooled), size_a)
    extreme_splits = 1 if size_a != size_b else 2  # the two most extreme splits mirror
    if splits <= EXACT_PERMUTATION_LIMIT:
        count = sum(
            1
            for chosen in itertools.combinations(pooled, size_a)
            if abs(difference(sum(chosen))) >= abs(observed) - tolerance
        )
        return PermutationTest(
            p_value=count / splits,
            observed_difference=observed,
            exact=True,
            permutations=splits,
            smallest_p_value=extreme_splits / splits,
            method=EXACT_PERMUTATION,
        )
    if min(size_a, size_b) >= LARGE_GROUP:
        return welch_test(first, second)
    generator = random.Random(seed)  # noqa: S311 - reproducible sampling, not secrets
    count = sum(
        1
        for _ in range(RANDOM_PERMUTATIONS)
        if abs(difference(sum(generator.sample(pooled, size_a)))) >= abs(observed) - tolerance
    )
    # (count + 1) / (R + 1): the observed split is one of the splits, and p is never 0.
    return PermutationTest(
        p_value=(count + 1) / (RANDOM_PERMUTATIONS + 1),
        observed_difference=observed,
        exact=False,
        permutations=RANDOM_PERMUTATIONS,
        smallest_p_value=1 / (RANDOM_PERMUTATIONS + 1),
        method=RANDOM_PERMUTATION,
    )


def welch_test(a: Sequence[float], b: Sequence[float]) -> PermutationTest:
    """Welch's t-test, two-sided, on the difference of means (module docstring); two or
    more values a side."""
    first, second = checked_values(a), checked_values(b)
    if min(len(first), len(second)) < 2:
        raise StatsError("Welch's t-test needs two or more values a side")
    observed = statistics.fmean(second) - statistics.fmean(first)
    spread, df = _welch_spread(first, second)
    if spread == 0:  # both groups constant: they differ or they do not, for certain
        p_value = 1.0 if observed == 0 else 0.0
    else:
        p_value = student_t_two_sided(observed / math.sqrt(spread), df)
    return PermutationTest(
        p_value=p_value,
        observed_difference=observed,
        exact=False,
        permutations=0,
        smallest_p_value=0.0,
        method=WELCH,
    )


def _welch_spread(first: Sequence[float], second: Sequence[float]) -> tuple[float, float]:
    """The variance of the difference of means, and its Welch-Satterthwaite degrees of
    freedom (inf when both groups are constant)."""
    share_a = statistics.variance(first) / len(first)
    share_b = statistics.variance(second) / len(second)
    spread = share_a + share_b
    if spread == 0:
        return 0.0, math.inf
    df = spread**2 / (share_a**2 / (len(first) - 1) + share_b**2 / (len(second) - 1))
    return spread, df


def student_t_quantile(p_two_sided: float, df: float) -> float:
    """The t > 0 with P(|T| >= t) = p_two_sided for Student's t with df degrees of
    freedom: bisection on student_t_two_sided, which falls as t grows."""
    if not 0 < p_two_sided < 1:
        raise StatsError(f"a two-sided probability must be between 0 and 1, got {p_two_sided}")
    low, high = 0.0, 1.0
    while student_t_two_sided(high, df) > p_two_sided:
        high *= 2
    for _ in range(200):
        middle = (low + high) / 2
        if student_t_two_sided(middle, df) > p_two_sided:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * high:
            break
    return (low + high) / 2


def welch_interval(
    a: Sequence[float], b: Sequence[float], *, confidence: float = CONFIDENCE
) -> ConfidenceInterval:
    """The confidence interval of mean(b) - mean(a) that goes with Welch's t-test: it
    leaves out 0 exactly when the test's p is below 1 - confidence."""
    first, second = checked_values(a), checked_values(b)
    if min(len(first), len(second)) < 2:
        raise StatsError("Welch's interval needs two or more values a side")
    observed = statistics.fmean(second) - statistics.fmean(first)
    spread, df = _welch_spread(first, second)
    half = 0.0 if spread == 0 else student_t_quantile(1 - confidence, df) * math.sqrt(spread)
    return ConfidenceInterval(observed - half, observed + half, confidence, "difference of means")
