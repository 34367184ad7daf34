"""Statistics of a few repetitions: known samples with known answers."""

from __future__ import annotations

import dataclasses
import itertools
import math
import random
import statistics
from fractions import Fraction

import pytest

from wirespeed.analysis.stats import (
    RESAMPLES,
    SEED,
    ConfidenceInterval,
    Stability,
    StatsError,
    Summary,
    bootstrap_interval,
    median_distribution,
    outlier_indices,
    ratio_interval,
    summarize,
)

M = 1e6


def test_five_repetitions_at_line_rate_are_stable() -> None:
    summary = summarize([941.2 * M, 941.6 * M, 939.0 * M, 941.3 * M, 940.9 * M])
    assert summary.n == 5
    assert summary.median == 941.2 * M
    assert summary.mean == pytest.approx(940.8 * M)
    assert summary.stdev == pytest.approx(statistics.stdev([941.2, 941.6, 939.0, 941.3, 940.9]) * M)
    assert (summary.minimum, summary.maximum) == (939.0 * M, 941.6 * M)
    assert summary.cv == pytest.approx(summary.stdev / summary.mean)  # type: ignore[operator]
    assert summary.stability is Stability.STABLE
    assert summary.interval is not None
    assert summary.interval.statistic == "median"
    assert summary.interval.low <= summary.median <= summary.interval.high
    assert summary.interval.low >= 939.0 * M and summary.interval.high <= 941.6 * M


def test_one_repetition_is_a_single_run_without_spread() -> None:
    summary = summarize([941 * M])
    assert summary.stability is Stability.SINGLE_RUN
    assert (summary.stdev, summary.cv, summary.interval, summary.outliers) == (None, None, None, ())
    assert summary.median == summary.mean == 941 * M


def test_the_r2s_bridge_of_the_seeds_is_unstable() -> None:
    # The seeds' Nanopi-R2S Br0 column: 681, 360, 360, 647, 460, 64 Mbit/s.
    summary = summarize([v * M for v in (681, 360, 360, 647, 460, 64)])
    assert summary.cv is not None and summary.cv > 0.05
    assert summary.stability is Stability.UNSTABLE


def test_two_values_give_the_interval_min_to_max() -> None:
    interval = bootstrap_interval([940.0, 942.0])
    assert (interval.low, interval.high) == (940.0, 942.0)


def test_the_bootstrap_interval_contains_the_true_median() -> None:
    generator = random.Random(7)
    sample = [generator.gauss(941.0, 2.0) for _ in range(15)]
    assert bootstrap_interval(sample).contains(941.0)


def test_the_bootstrap_interval_covers_the_true_median_most_of_the_time() -> None:
    # A percentile bootstrap of the median undercovers a little at small n: ask for 85 %.
    generator = random.Random(11)
    covered = sum(
        bootstrap_interval([generator.gauss(100.0, 5.0) for _ in range(9)]).contains(100.0)
        for _ in range(100)
    )
    assert covered >= 85


def test_the_same_values_always_give_the_same_interval() -> None:
    values = [941.2, 941.6, 939.0, 941.3, 940.9, 938.7]
    assert bootstrap_interval(values) == bootstrap_interval(list(values))
    assert summarize(values) == summarize(values)


def test_a_repetition_far_from_the_others_is_an_outlier() -> None:
    assert outlier_indices([941, 940, 942, 941, 680]) == (4,)
    # More than half equal: the MAD is 0 and the mean absolute deviation stands in.
    assert outlier_indices([941, 941, 941, 941, 680]) == (4,)


def test_iperf_rounding_is_not_an_outlier() -> None:
    # 938 among 941s is odd to a z-score, but 0.3 % is the queue, not a disturbance.
    assert outlier_indices([941, 941, 941, 941, 938]) == ()
    assert outlier_indices([941.0, 941.0, 941.2]) == ()


def test_two_values_cannot_tell_which_is_the_odd_one() -> None:
    assert outlier_indices([941, 64]) == ()


def test_the_r4s_wan_column_has_no_outlier() -> None:
    # The seeds' R4S WAN: 942, 941, 941, 922, 957, 926 spread, but none stands out.
    assert outlier_indices([942, 941, 941, 922, 957, 926]) == ()


def test_the_ratio_interval_is_about_ten_for_gbe_against_fe() -> None:
    interval = ratio_interval([94.1, 94.0, 94.2, 93.9, 94.1], [941, 940, 942, 939, 941])
    assert interval is not None
    assert interval.statistic == "ratio of medians"
    assert 9.9 < interval.low <= 10.0 <= interval.high < 10.1


def test_no_ratio_when_a_resample_of_a_is_zero() -> None:
    assert ratio_interval([0.0, 0.0, 1.0], [5.0, 6.0]) is None


@pytest.mark.parametrize("values", [[], [float("nan")], [1.0, float("inf")]])
def test_nothing_or_no_number_fails_at_the_door(values: list[float]) -> None:
    with pytest.raises(StatsError):
        summarize(values)


def test_an_upside_down_interval_fails_at_the_door() -> None:
    with pytest.raises(StatsError, match="low end"):
        ConfidenceInterval(2.0, 1.0)


def _every_resample(values: list[float]) -> tuple[float, float]:
    """The percentile interval over all n^n resamples, each counted once: the exact
    bootstrap distribution the interval is computed from, by brute force."""
    n = len(values)
    counts: dict[float, int] = {}
    for picks in itertools.product(values, repeat=n):
        median = statistics.median(picks)
        counts[median] = counts.get(median, 0) + 1
    seen, low, high = 0, None, None
    for median in sorted(counts):
        seen += counts[median]
        if low is None and seen * 40 > n**n:  # more than 2.5 % at or below
            low = median
        if high is None and seen * 40 >= 39 * n**n:  # 97.5 % or more at or below
            high = median
    assert low is not None and high is not None
    return low, high


@pytest.mark.parametrize(
    "values",
    [
        [940.0, 942.0],
        [941.0, 940.0, 939.5],
        [941.2, 941.6, 939.0, 941.3],
        [941.2, 941.6, 939.0, 941.3, 940.9],
        [941.0, 941.0, 941.0, 938.0, 941.0, 680.0],  # ties and an outlier
        [5.0, 1.0, 3.0, 3.0, 2.0, 4.0, 1.0],
        [681.0, 360.0, 360.0, 647.0, 460.0, 64.0],
    ],
)
def test_the_interval_is_that_of_every_resample(values: list[float]) -> None:
    interval = bootstrap_interval(values)
    assert (interval.low, interval.high) == _every_resample(values)
    assert interval.resamples is None  # exact: nothing was drawn


def test_many_repetitions_agree_with_monte_carlo_resampling() -> None:
    generator = random.Random(5)
    values = [generator.gauss(930e6, 5e6) for _ in range(40)]
    draws = random.Random(1)
    estimates = sorted(
        statistics.median(draws.choices(values, k=len(values))) for _ in range(20_000)
    )
    interval = bootstrap_interval(values)
    # 20,000 resamples estimate each end to within a neighbouring possible median.
    assert estimates[400] <= interval.low <= estimates[600]
    assert estimates[19_400] <= interval.high <= estimates[19_600]


def test_the_interval_of_known_values() -> None:
    interval = bootstrap_interval([941.2, 941.6, 939.0, 941.3, 940.9])
    assert (interval.low, interval.high) == (939.0, 941.6)
    # The seeds' R2S Br0 column: from the pair (64, 360) to the pair (647, 681).
    interval = bootstrap_interval([v * M for v in (681, 360, 360, 647, 460, 64)])
    assert (interval.low, interval.high) == (212 * M, 664 * M)


@pytest.mark.parametrize("n", [20, 21, 40, 41])
def test_themedian_distribution_gives_the_exact_interval(n: int) -> None:
    generator = random.Random(n)
    values = sorted(generator.gauss(930e6, 5e6) for _ in range(n))
    medians, cumulative = median_distribution(values)
    assert cumulative[-1] == pytest.approx(1.0, abs=1e-10)
    low = next(m for m, c in zip(medians, cumulative, strict=True) if c > 0.025)
    high = next(m for m, c in zip(medians, cumulative, strict=True) if c >= 0.975)
    interval = bootstrap_interval(values)
    assert (low, high) == (interval.low, interval.high)


def test_the_ratio_of_large_groups_agrees_with_resampling_the_values() -> None:
    generator = random.Random(9)
    a = [generator.gauss(930e6, 5e6) for _ in range(40)]
    b = [generator.gauss(935e6, 5e6) for _ in range(30)]
    interval = ratio_interval(a, b)
    assert interval is not None and interval == ratio_interval(a, b)
    assert (interval.resamples, interval.seed) == (RESAMPLES, SEED)
    draws = random.Random(2)
    estimates = sorted(
        statistics.median(draws.choices(b, k=30)) / statistics.median(draws.choices(a, k=40))
        for _ in range(20_000)
    )
    # Both are 2000 or 20,000 draws from the same bootstrap distribution of the ratio.
    assert estimates[300] <= interval.low <= estimates[700]
    assert estimates[19_300] <= interval.high <= estimates[19_700]


# -- the edges of each rule, and what a caller is told --------------------------------------


def test_an_interval_holds_its_own_ends_and_may_be_a_single_point() -> None:
    interval = ConfidenceInterval(939.0, 941.6)
    assert interval.contains(939.0) and interval.contains(941.6) and interval.contains(940.0)
    assert not interval.contains(938.99) and not interval.contains(941.61)
    point = ConfidenceInterval(941.0, 941.0)
    assert point.contains(941.0)


@pytest.mark.parametrize("confidence", [0.0, 1.0, 1.5, -0.5])
def test_a_confidence_outside_0_to_1_fails_at_the_door(confidence: float) -> None:
    with pytest.raises(StatsError, match=f"confidence must be between 0 and 1, got {confidence}"):
        ConfidenceInterval(939.0, 941.6, confidence)
    with pytest.raises(StatsError, match=f"confidence must be between 0 and 1, got {confidence}"):
        bootstrap_interval([940.0, 942.0], confidence=confidence)


def _summary(values: tuple[float, ...], median: float) -> Summary:
    return Summary(values, median, median, None, None, min(values, default=0.0),
                   max(values, default=0.0), None, ())  # fmt: skip


def test_a_summary_s_median_may_sit_on_its_minimum_or_maximum_but_not_outside() -> None:
    assert _summary((941.0, 941.0, 942.0), 941.0).median == 941.0
    assert _summary((940.0, 941.0, 941.0), 941.0).median == 941.0
    with pytest.raises(StatsError, match="the median is outside min … max"):
        _summary((940.0, 941.0), 943.0)
    with pytest.raises(StatsError, match=r"^a summary needs at least one value$"):
        _summary((), 0.0)


def test_a_summary_is_unstable_only_above_a_cv_of_5_percent() -> None:
    def with_cv(cv: float) -> Summary:
        return dataclasses.replace(_summary((940.0, 941.0, 942.0), 941.0), cv=cv)

    assert with_cv(0.05).stability is Stability.STABLE
    assert with_cv(0.0501).stability is Stability.UNSTABLE


def test_what_cannot_be_summarized_says_why() -> None:
    with pytest.raises(StatsError, match=r"^no values to summarize$"):
        summarize([])
    with pytest.raises(StatsError, match=r"values must be finite numbers, got \(1.0, nan\)"):
        summarize([1.0, float("nan")])


def test_the_interval_of_the_median_is_said_to_be_of_the_median() -> None:
    interval = bootstrap_interval([941.2, 941.6, 939.0, 941.3, 940.9])
    assert (interval.statistic, interval.confidence) == ("median", 0.95)


def test_three_values_can_hold_an_outlier() -> None:
    # Median 11, MAD 1: 100 lies 89 / 1.4826 = 60 robust sigmas away.
    assert outlier_indices([10.0, 11.0, 100.0]) == (2,)


def test_identical_values_have_no_outlier() -> None:
    assert outlier_indices([941.0, 941.0, 941.0, 941.0]) == ()


def test_a_mad_below_one_unit_is_still_the_mad() -> None:
    # Gbit/s: median 9.41, MAD 0.01; 9.297 lies 0.113 / 0.014826 = 7.6 robust sigmas away
    # (the mean absolute deviation, 0.0266, would put it at 3.4 and keep it).
    assert outlier_indices([9.41, 9.42, 9.297, 9.41, 9.42]) == (2,)


def test_with_more_than_half_equal_a_modest_deviation_is_no_outlier() -> None:
    # MAD 0: the mean absolute deviation 26.9 / 7 = 3.843 is 4.816 sigma / 0.7979, and
    # 928.5 lies 12.5 / 4.816 = 2.6 sigmas away.
    assert outlier_indices([941.0, 947.2, 928.5, 941.0, 941.0, 932.8, 941.0]) == ()


def test_an_outlier_exactly_1_percent_from_the_median_is_one() -> None:
    # MAD 0, mean absolute deviation 0.2: 99 lies 1.0 / (0.2 / 0.7979) = 4.0 sigmas away,
    # and exactly 1 % of 100 from it.
    assert outlier_indices([100.0, 100.0, 100.0, 100.0, 99.0]) == (4,)


def _exact_medians(values: list[float]) -> dict[float, Fraction]:
    """P(median of a resample = m) for each possible m, over all n^n resamples: each
    multiset of drawn indices once, weighted by the number of orders it is drawn in."""
    data = sorted(values)
    n = len(data)
    weights: dict[float, int] = {}
    for picks in itertools.combinations_with_replacement(range(n), n):
        ways = math.factorial(n)
        for index in set(picks):
            ways //= math.factorial(picks.count(index))
        median = statistics.median(data[i] for i in picks)
        weights[median] = weights.get(median, 0) + ways
    return {m: Fraction(weights[m], n**n) for m in sorted(weights)}


@pytest.mark.parametrize(
    ("values", "confidence", "expected"),
    [
        # P(median <= 1) is exactly 1/4: the 25 % end is the next median, and so is the 75 %.
        ([1.0, 2.0], 0.5, (1.5, 1.5)),
        ([1.0, 2.0], 0.3, (1.5, 1.5)),
        ([4.0, 6.0, 6.0, 6.0], 0.5, (5.0, 6.0)),
        ([9.0, 5.0, 5.0, 7.0, 2.0, 6.0], 0.9, (3.5, 7.5)),
        ([5.0, 7.0, 0.0, 4.0, 7.0, 8.0], 0.9, (2.5, 7.5)),  # an end from a pair (0, 5)
        ([3.0, 3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0], 0.8, None),
        ([9.41, 9.42, 9.297, 9.41, 9.42, 9.38, 9.40], 0.95, None),
    ],
)
def test_the_interval_at_any_confidence_is_that_of_every_resample(
    values: list[float], confidence: float, expected: tuple[float, float] | None
) -> None:
    tail = (1 - Fraction(str(confidence))) / 2
    exact = _exact_medians(values)
    cumulative = list(zip(exact, itertools.accumulate(exact.values()), strict=True))
    low = next(m for m, p in cumulative if p > tail)
    high = next(m for m, p in cumulative if p >= 1 - tail)
    if expected is not None:
        assert (low, high) == expected
    interval = bootstrap_interval(values, confidence=confidence)
    assert (interval.low, interval.high, interval.confidence) == (low, high, confidence)


@pytest.mark.parametrize(
    "values",
    [
        [941.0, 940.0, 939.5],
        [1.0, 2.0, 3.0, 4.0],  # the pairs (1, 4) and (2, 3) share the median 2.5
        [5.0, 1.0, 3.0, 3.0, 2.0, 4.0, 1.0],  # ties
        [1.0, 2.0, 2.0, 3.0, 5.0, 8.0],
        [float(v) for v in range(1, 9)],
        [3.0, 3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0],
    ],
)
def test_the_median_distribution_is_that_of_every_resample(values: list[float]) -> None:
    exact = _exact_medians(values)
    medians, cumulative = median_distribution(sorted(values))
    assert medians == list(exact)
    expected = itertools.accumulate(exact.values())
    assert all(abs(c - float(e)) < 1e-13 for c, e in zip(cumulative, expected, strict=True))


@pytest.mark.parametrize("n", [21, 41, 101])
def test_the_median_distribution_of_many_values_is_the_binomial_tail(n: int) -> None:
    """Odd n: P(median <= x(j)) = P(k or more of n draws among the first j), k = (n+1)/2,
    in exact arithmetic; the floats within 1e-13 of it (medians below 1e-15 left out)."""
    k = (n + 1) // 2

    def at_most(j: int) -> Fraction:
        return sum(
            (Fraction(math.comb(n, c) * j**c * (n - j) ** (n - c), n**n) for c in range(k, n + 1)),
            Fraction(0),
        )

    medians, cumulative = median_distribution([float(v) for v in range(n)])
    assert medians == [float(v) for v in range(n) if at_most(v + 1) - at_most(v) > 1e-15]
    assert all(
        abs(c - float(at_most(int(m) + 1))) < 1e-13
        for m, c in zip(medians, cumulative, strict=True)
    )


@pytest.mark.parametrize("confidence", [0.95, 0.9])
def test_the_ratio_of_small_groups_is_the_seeded_bootstrap_s_percentiles(
    confidence: float,
) -> None:
    """RESAMPLES resamples from random.Random(SEED), each a resample of a then one of b:
    the interval leaves (1 - confidence) / 2 of the sorted ratios outside each end."""
    a = [93.51, 93.77, 94.14, 94.06]
    b = [938.1, 941.5, 941.9, 944.4, 943.3, 939.1]
    draws = random.Random(SEED)
    ratios = []
    for _ in range(RESAMPLES):
        below = statistics.median(draws.choices(a, k=4))
        ratios.append(statistics.median(draws.choices(b, k=6)) / below)
    ratios.sort()
    outside = round((1 - confidence) / 2 * RESAMPLES)  # 50 or 100 each side
    interval = ratio_interval(a, b, confidence=confidence)
    assert interval is not None
    assert (interval.low, interval.high) == (ratios[outside], ratios[RESAMPLES - 1 - outside])
    assert (interval.statistic, interval.confidence) == ("ratio of medians", confidence)
    assert (interval.resamples, interval.seed) == (RESAMPLES, SEED)


def test_twenty_a_side_draw_each_median_from_its_exact_distribution() -> None:
    """LARGE_GROUP (20) or more a side, every value of a positive (here in Gbit/s, below
    1): each resample's median drawn from median_distribution, a's RESAMPLES then b's."""
    generator = random.Random(12)
    a = [generator.gauss(0.93, 0.005) for _ in range(20)]
    b = [generator.gauss(0.935, 0.005) for _ in range(21)]
    medians_a, cumulative_a = median_distribution(sorted(a))
    medians_b, cumulative_b = median_distribution(sorted(b))
    draws = random.Random(SEED)
    below = draws.choices(medians_a, cum_weights=cumulative_a, k=RESAMPLES)
    above = draws.choices(medians_b, cum_weights=cumulative_b, k=RESAMPLES)
    ratios = sorted(y / x for x, y in zip(below, above, strict=True))
    interval = ratio_interval(a, b)
    assert interval is not None
    assert (interval.low, interval.high) == (ratios[50], ratios[RESAMPLES - 51])
    assert (interval.statistic, interval.resamples, interval.seed) == (
        "ratio of medians",
        RESAMPLES,
        SEED,
    )


def test_a_large_group_whose_resample_median_can_be_zero_has_no_ratio() -> None:
    a = [0.0] * 12 + [0.93] * 8  # most resamples' median is 0
    assert ratio_interval(a, [0.94] * 20) is None
