"""Statistics of a few repetitions: known samples with known answers."""

from __future__ import annotations

import itertools
import math
import random
import statistics

import pytest

from wirespeed.analysis.stats import (
    EXACT_PERMUTATION,
    RANDOM_PERMUTATION,
    RESAMPLES,
    SEED,
    WELCH,
    ConfidenceInterval,
    Stability,
    StatsError,
    bootstrap_interval,
    median_distribution,
    outlier_indices,
    permutation_test,
    ratio_interval,
    student_t_two_sided,
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
