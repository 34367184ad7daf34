"""Whether two groups of repetitions differ: the permutation test, Welch's t-test and
Student's t, on known samples with known answers."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import statistics
from fractions import Fraction

import pytest

from wirespeed.analysis.group_tests import (
    EXACT_PERMUTATION,
    RANDOM_PERMUTATION,
    WELCH,
    PermutationTest,
    permutation_test,
    student_t_quantile,
    student_t_two_sided,
    welch_interval,
    welch_test,
)
from wirespeed.analysis.stats import StatsError


def test_clearly_separated_groups_of_five_differ() -> None:
    test = permutation_test([941, 940, 942, 941, 939], [94.1, 94.0, 94.3, 93.9, 94.2])
    assert test.exact
    assert test.permutations == 252  # C(10, 5)
    assert test.p_value < 0.05
    assert test.p_value == pytest.approx(2 / 252)  # the two most extreme splits


def test_two_draws_from_one_distribution_do_not_differ() -> None:
    generator = random.Random(3)
    a = [generator.gauss(941, 3) for _ in range(6)]
    b = [generator.gauss(941, 3) for _ in range(6)]
    assert not permutation_test(a, b).significant()


def test_three_and_three_can_never_be_significant() -> None:
    test = permutation_test([941, 940, 942], [94, 95, 93])
    assert test.smallest_p_value == pytest.approx(2 / 20)
    assert not test.can_be_significant()
    assert not test.significant()


def test_large_groups_are_sampled_reproducibly() -> None:
    a = [float(v) for v in range(12)]
    b = [float(v) + 6 for v in range(12)]
    first, second = permutation_test(a, b), permutation_test(a, b)
    assert not first.exact
    assert first == second
    assert first.p_value < 0.05


@pytest.mark.parametrize(
    ("t", "df", "p"),
    [  # two-sided critical values from a t table
        (2.086, 20, 0.05),
        (2.228, 10, 0.05),
        (12.706, 1, 0.05),
        (3.169, 10, 0.01),
        (2.0, 60, 0.05),
        (1.984, 100, 0.05),
        (2.626, 100, 0.01),
    ],
)
def test_the_t_distribution_matches_the_table(t: float, df: float, p: float) -> None:
    assert student_t_two_sided(t, df) == pytest.approx(p, abs=5e-4)
    assert student_t_two_sided(-t, df) == student_t_two_sided(t, df)


@pytest.mark.parametrize("t", [0.0, 0.3, 1.0, 2.5, 7.0, 40.0])
def test_the_t_distribution_matches_its_closed_forms(t: float) -> None:
    # df = 1 is Cauchy's distribution, df = 2 has a closed form too.
    assert student_t_two_sided(t, 1) == pytest.approx(1 - 2 * math.atan(t) / math.pi, rel=1e-12)
    assert student_t_two_sided(t, 2) == pytest.approx(1 - t / math.sqrt(2 + t * t), rel=1e-12)


def test_large_groups_take_welch_s_t_test() -> None:
    generator = random.Random(7)
    a = [generator.gauss(941, 3) for _ in range(30)]
    b = [generator.gauss(945, 3) for _ in range(25)]
    test = permutation_test(a, b)
    assert test.method == WELCH
    assert not test.exact and test.permutations == 0
    assert test.can_be_significant()
    share_a, share_b = statistics.variance(a) / 30, statistics.variance(b) / 25
    t = (statistics.fmean(b) - statistics.fmean(a)) / math.sqrt(share_a + share_b)
    df = (share_a + share_b) ** 2 / (share_a**2 / 29 + share_b**2 / 24)
    assert test.p_value == pytest.approx(student_t_two_sided(t, df))
    assert test.significant()
    same = [generator.gauss(941, 3) for _ in range(40)]
    assert not permutation_test(a, same).significant()


def test_welch_on_constant_groups_is_certain() -> None:
    assert permutation_test([941.0] * 20, [941.0] * 20).p_value == 1.0
    assert permutation_test([941.0] * 20, [940.0] * 20).p_value == 0.0


def test_small_and_mixed_groups_keep_the_permutation_test() -> None:
    assert permutation_test([941, 940, 942], [94, 95, 93]).method == EXACT_PERMUTATION
    generator = random.Random(8)
    a = [generator.gauss(941, 3) for _ in range(12)]
    b = [generator.gauss(941, 3) for _ in range(40)]  # too many splits, one side too small
    assert permutation_test(a, b).method == RANDOM_PERMUTATION


# Welch's interval of mean(b) - mean(a) and the t quantile it rests on, against SciPy 1.17.1
# (scipy.stats.ttest_ind(b, a, equal_var=False).confidence_interval(c), and
# scipy.stats.t.isf(p / 2, df)), computed once outside the project.
WELCH_A = [941.2, 941.6, 939.0, 941.3, 940.9]


WELCH_B = [944.0, 945.5, 943.1, 946.2]


WELCH_TWO_A_SIDE_P = 0.14806674664969888  # ttest_ind([3.0, 4.5], [1.0, 2.0], equal_var=False)


@pytest.mark.parametrize(
    ("confidence", "low", "high"),
    [(0.95, 1.7821202451008253, 6.017879754899356), (0.9, 2.229917965327699, 5.570082034672483)],
)
def test_welch_s_interval_is_scipy_s(confidence: float, low: float, high: float) -> None:
    interval = welch_interval(WELCH_A, WELCH_B, confidence=confidence)
    assert interval.low == pytest.approx(low) and interval.high == pytest.approx(high)
    assert interval.confidence == confidence
    assert interval.statistic == "difference of means"
    assert interval.resamples is None and interval.seed is None


def test_welch_s_interval_with_a_variance_of_the_difference_of_exactly_1() -> None:
    # 2 / 2 + 0 / 2 = 1, one degree of freedom. SciPy 1.17.1: ttest_ind([5.0, 5.0],
    # [0.0, 2.0], equal_var=False).confidence_interval(): 4 -+ 12.706204736174694.
    interval = welch_interval([0.0, 2.0], [5.0, 5.0])
    assert interval.low == pytest.approx(-8.706204736174694, rel=1e-9)
    assert interval.high == pytest.approx(16.706204736174694, rel=1e-9)


def test_welch_s_interval_defaults_to_95_percent_and_is_a_point_for_constant_groups() -> None:
    assert welch_interval(WELCH_A, WELCH_B) == welch_interval(WELCH_A, WELCH_B, confidence=0.95)
    point = welch_interval([941.0, 941.0], [943.0, 943.0, 943.0])
    assert (point.low, point.high) == (2.0, 2.0)


@pytest.mark.parametrize("sizes", [(1, 3), (3, 1)])
def test_welch_needs_two_values_a_side(sizes: tuple[int, int]) -> None:
    a, b = WELCH_A[: sizes[0]], WELCH_B[: sizes[1]]
    with pytest.raises(StatsError, match=r"^Welch's interval needs two or more values a side$"):
        welch_interval(a, b)
    with pytest.raises(StatsError, match=r"^Welch's t-test needs two or more values a side$"):
        welch_test(a, b)


def test_welch_s_test_is_scipy_s() -> None:
    test = welch_test(WELCH_A, WELCH_B)
    assert test.p_value == pytest.approx(0.004674251717952526, rel=1e-9)
    assert test.observed_difference == pytest.approx(statistics.fmean(WELCH_B) - 940.8)
    assert (test.exact, test.permutations, test.smallest_p_value, test.method) == (
        False,
        0,
        0.0,
        WELCH,
    )


@pytest.mark.parametrize(
    ("p", "df", "t"),
    [
        (0.05, 10, 2.2281388519862753),
        (0.01, 3.5, 5.085702223091258),
        (0.05, 7.3, 2.3450667365477034),
        (0.2, 1, 3.0776835371752536),
        (0.001, 30, 3.645958635042021),
        (0.5, 10, 0.6998120613124317),  # below 1
        (0.8, 3, 0.2766706623326898),
    ],
)
def test_the_t_quantile_is_scipy_s(p: float, df: float, t: float) -> None:
    assert student_t_quantile(p, df) == pytest.approx(t, rel=1e-10)


@pytest.mark.parametrize("p", [0.0, 1.0, -0.1, 1.5])
def test_a_t_quantile_outside_0_to_1_fails_at_the_door(p: float) -> None:
    with pytest.raises(StatsError, match="between 0 and 1"):
        student_t_quantile(p, 10)


def _exact_p(a: list[float], b: list[float]) -> Fraction:
    """The permutation test's p in exact arithmetic: the values as the decimals written."""
    first = [Fraction(str(v)) for v in a]
    pooled = first + [Fraction(str(v)) for v in b]
    total, size_a, size_b = sum(pooled, Fraction(0)), len(a), len(b)

    def difference(chosen: tuple[Fraction, ...] | list[Fraction]) -> Fraction:
        sum_a = sum(chosen, Fraction(0))
        return abs((total - sum_a) / size_b - sum_a / size_a)

    splits = list(itertools.combinations(pooled, size_a))
    extreme = sum(1 for chosen in splits if difference(chosen) >= difference(first))
    return Fraction(extreme, len(splits))


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # Decimal values whose sums in another order differ in the last bits.
        ([0.3, 0.1, 0.6, 0.7], [0.7, 0.2, 0.1, 0.1]),
        # One repetition of eight apart: every split is as extreme as the observed one.
        ([313.3e6] * 4, [313.3e6] * 3 + [940.7e6 / 3]),
    ],
)
def test_a_split_as_extreme_as_the_observed_one_counts_despite_rounding(
    a: list[float], b: list[float]
) -> None:
    assert permutation_test(a, b).p_value == pytest.approx(float(_exact_p(a, b)), abs=1e-12)


def test_identical_groups_do_not_differ_whether_enumerated_or_sampled() -> None:
    exact = permutation_test([0.0, 0.0, 0.0], [0.0, 0.0, 0.0])
    assert (exact.p_value, exact.observed_difference) == (1.0, 0.0)
    sampled = permutation_test([5.0] * 12, [5.0] * 13)
    assert sampled.method == RANDOM_PERMUTATION
    assert sampled.p_value == 1.0  # every sampled split as extreme, and the observed one
    assert not permutation_test([0.0] * 12, [0.0] * 13).significant()


def test_sampled_splits_are_counted_with_the_observed_one() -> None:
    # Disjoint groups of 12 and 13: only the two most extreme of C(25, 12) = 5,200,300
    # splits are as extreme, and 10,000 samples meet neither: p = 1 / 10,001.
    a = [941.0 + i / 10 for i in range(12)]
    b = [94.0 + i / 10 for i in range(13)]
    test = permutation_test(a, b)
    assert test.p_value == 1 / 10_001 == test.smallest_p_value
    assert (test.exact, test.permutations, test.method) == (False, 10_000, RANDOM_PERMUTATION)
    assert test.observed_difference == pytest.approx(statistics.fmean(b) - statistics.fmean(a))


def test_the_exact_test_says_its_observed_difference_and_its_smallest_p() -> None:
    test = permutation_test([941.0, 940.0, 942.0], [94.0, 95.0, 93.0, 96.0])
    assert test.observed_difference == pytest.approx(94.5 - 941.0)
    # Unequal sizes: the most extreme split has no mirror image, 1 of C(7, 3) = 35.
    assert test.smallest_p_value == pytest.approx(1 / 35) == test.p_value
    assert (test.exact, test.permutations, test.method) == (True, 35, EXACT_PERMUTATION)


def test_a_p_value_or_smallest_p_equal_to_alpha_is_not_significant() -> None:
    at_alpha = PermutationTest(0.05, 1.0, True, 40, 0.05)
    assert not at_alpha.significant() and not at_alpha.can_be_significant()
    below = dataclasses.replace(at_alpha, p_value=0.0499, smallest_p_value=0.0499)
    assert below.significant() and below.can_be_significant()


def test_welch_takes_two_values_a_side() -> None:
    # SciPy 1.17.1: ttest_ind([3.0, 4.5], [1.0, 2.0], equal_var=False).pvalue
    assert welch_test([1.0, 2.0], [3.0, 4.5]).p_value == pytest.approx(WELCH_TWO_A_SIDE_P, rel=1e-9)


def test_the_t_distribution_at_its_extremes() -> None:
    assert student_t_two_sided(math.inf, 5) == 0.0 == student_t_two_sided(-math.inf, 5)
    # Beyond the floats' range of the CDF: p is about 2 / (pi 1e200), 0 to a float.
    assert student_t_two_sided(1e200, 1) < 1e-100
    with pytest.raises(StatsError, match="degrees of freedom must be positive, got 0"):
        student_t_two_sided(2.0, 0)
    with pytest.raises(StatsError, match="degrees of freedom must be positive, got -1"):
        student_t_two_sided(2.0, -1)


@pytest.mark.parametrize(
    ("t", "df", "p"),
    [  # SciPy 1.17.1: 2 * scipy.stats.t.sf(t, df)
        (0.1, 1000, 0.9203643690236041),
        (0.01, 50, 0.992061081367143),
        (0.5, 200, 0.6176247523164609),
        (3.0, 0.5, 0.3673081559859434),
        (1.0, 3.0, 0.3910022189557705),
        (0.2, 30, 0.8428301570593247),
    ],
)
def test_the_t_distribution_is_scipy_s(t: float, df: float, p: float) -> None:
    assert student_t_two_sided(t, df) == pytest.approx(p, rel=1e-11)


def test_exactly_20_000_splits_are_still_enumerated() -> None:
    # One value against 19,999: C(20,000, 1) = 20,000 splits, EXACT_PERMUTATION_LIMIT.
    others = [940.0 + (i % 7) / 10 for i in range(19_999)]
    test = permutation_test([941.0], others)
    assert (test.exact, test.permutations, test.method) == (True, 20_000, EXACT_PERMUTATION)
    # As far from the others' mean as 941.0: the values 940.0 .. 940.6 never are.
    assert test.p_value == pytest.approx(1 / 20_000)
