"""How often `wirespeed trend` catches a real drop, and how often it cries wolf.

Simulated histories of one measurement: a group of runs on the old firmware, a group on
the new one, each run one figure (a run's median) with the noise wirespeed measures: a
coefficient of variation of 1-5 %, and now and then (ONE_IN runs) a slow run, as a
background job or a throttle makes one (SLOW_BY CVs below the level). The new firmware
is 10 % slower (caught: the share of series whose gate fires) or the same (false alarms:
the share whose gate fires all the same). The gate fires when the newest group is judged
a regression against the one before.

Methods, side by side on the same series:
- welch+noise: the trend's own (analysis/trend.py): Welch's t-test, p < 0.05, and a
  change larger than the groups' noise (their larger CV).
- welch: Welch's t-test alone, no minimum effect.
- mann-whitney+noise: the Mann-Whitney U test (exact), p < 0.05, and the same minimum
  effect.
- compare: `wirespeed compare`'s rule (a permutation test and the ratio's bootstrap
  interval agree), no minimum effect.
- jumpavg: FD.io CSIT's change detection on the series of runs, labels unknown to it:
  the gate fires when its newest segment is a regression.

And for unlabelled history (the same two groups as one series, nothing saying where it
changed): jumpavg against wirespeed's change points (analysis/trend.py, imported: the
best split of the series judged as two groups, Bonferroni-corrected over the splits,
looked for again in each side), and how often wirespeed's newest change point is at the
run where the drop began.

    .venv/bin/python -m benchmarks.trend_detection --series 1000
"""

from __future__ import annotations

import argparse
import functools
import itertools
import random
import statistics
import time
from collections.abc import Callable, Sequence

from benchmarks.common import emit
from wirespeed.analysis.group_tests import permutation_test
from wirespeed.analysis.stats import ratio_interval
from wirespeed.analysis.trend import Change, Group, RunPoint, change_points, judge
from wirespeed.model import Better

LEVEL = 1000.0  # Mbit/s, say
ONE_IN = 20  # one run in 20 is slow
SLOW_BY = 3.0  # ... by 3 CVs
SEED = 20261205
CVS = (0.01, 0.02, 0.03, 0.05)
RUNS = (3, 5, 10, 30)
DROP = 0.10
UNLABELLED_RUNS = (5, 10, 15)  # runs before the drop, and as many after


def simulate(generator: random.Random, runs: int, cv: float, level: float) -> list[float]:
    values = []
    for _ in range(runs):
        value = generator.gauss(level, cv * level)
        if generator.randrange(ONE_IN) == 0:
            value -= SLOW_BY * cv * level
        values.append(value)
    return values


def _group(name: str, values: Sequence[float], first_id: int) -> Group:
    points = tuple(
        RunPoint(first_id + i, float(first_id + i), name, (v,)) for i, v in enumerate(values)
    )
    return Group(name, points)


def welch_noise(before: Sequence[float], after: Sequence[float]) -> bool:
    judged = judge(_group("old", before, 0), _group("new", after, 1000), Better.HIGHER)
    return judged.change is Change.REGRESSION


def welch_alone(before: Sequence[float], after: Sequence[float]) -> bool:
    from wirespeed.analysis.trend import MinEffect

    judged = judge(
        _group("old", before, 0), _group("new", after, 1000), Better.HIGHER, min_effect=MinEffect(0)
    )
    return judged.change is Change.REGRESSION


def _noise(values: Sequence[float]) -> float:
    return statistics.stdev(values) / statistics.fmean(values)


@functools.cache
def _rank_sums(n: int, m: int) -> tuple[int, ...]:
    """How many ways n of the ranks 1..n+m add up to each sum: the exact null
    distribution of the rank sum (no ties: the simulated figures are continuous)."""
    top = sum(range(m + 1, n + m + 1))
    ways = [[0] * (top + 1) for _ in range(n + 1)]
    ways[0][0] = 1
    for rank in range(1, n + m + 1):
        for k in range(min(rank, n), 0, -1):
            row, below = ways[k], ways[k - 1]
            for total in range(top, rank - 1, -1):
                row[total] += below[total - rank]
    return tuple(ways[n])


def mann_whitney_p(a: Sequence[float], b: Sequence[float]) -> float:
    """Two-sided p of the Mann-Whitney U test, exact: the share of rank sums of `a` at
    least as far from their centre as the one observed."""
    n, m = len(a), len(b)
    ranked = sorted(itertools.chain(a, b))
    rank_sum = sum(ranked.index(v) + 1 for v in a)
    counts = _rank_sums(n, m)
    centre = n * (n + m + 1) / 2
    far = abs(rank_sum - centre)
    extreme = sum(c for total, c in enumerate(counts) if abs(total - centre) >= far - 1e-9)
    return extreme / sum(counts)


def mann_whitney_noise(before: Sequence[float], after: Sequence[float]) -> bool:
    ratio = statistics.fmean(after) / statistics.fmean(before)
    large = abs(ratio - 1) > max(_noise(before), _noise(after))
    return mann_whitney_p(before, after) < 0.05 and large and ratio < 1


def compare_rule(before: Sequence[float], after: Sequence[float]) -> bool:
    test = permutation_test(before, after)
    interval = ratio_interval(before, after, resamples=500)
    clear = interval is not None and not interval.contains(1.0)
    return test.significant() and clear and test.observed_difference < 0


def jumpavg_gate(before: Sequence[float], after: Sequence[float]) -> bool:
    return jumpavg_series([*before, *after])


METHODS: dict[str, Callable[[Sequence[float], Sequence[float]], bool]] = {
    "welch+noise": welch_noise,
    "welch": welch_alone,
    "mann-whitney+noise": mann_whitney_noise,
    "compare": compare_rule,
    "jumpavg": jumpavg_gate,
}


def measure(series: int, cvs: Sequence[float], runs: Sequence[int]) -> list[dict[str, object]]:
    rows = []
    for cv, size in itertools.product(cvs, runs):
        for drop in (DROP, 0.0):
            generator = random.Random(f"{SEED}-{cv}-{size}-{drop}")
            pairs = [
                (
                    simulate(generator, size, cv, LEVEL),
                    simulate(generator, size, cv, LEVEL * (1 - drop)),
                )
                for _ in range(series)
            ]
            row: dict[str, object] = {"cv": cv, "runs": size, "drop": drop}
            for name, method in METHODS.items():
                if name == "compare" and size > 5:
                    continue  # its sampled permutations take minutes at 30 a side
                started = time.perf_counter()
                fired = sum(1 for a, b in pairs if method(a, b))
                row[name] = round(100 * fired / series, 1)
                row[f"{name} ms"] = round(1000 * (time.perf_counter() - started) / series, 2)
            rows.append(row)
    return rows


# -- unlabelled: the same two groups as one series of runs, nothing says where it changed


def _series(values: Sequence[float]) -> list[RunPoint]:
    return [RunPoint(i, float(i), None, (v,)) for i, v in enumerate(values)]


def change_point_gate(values: Sequence[float]) -> bool:
    """wirespeed's change points (analysis/trend.py: the best split of the series judged
    as two groups, Bonferroni-corrected, looked for again in each side): the gate fires
    when the newest change point is a regression."""
    found = change_points(_series(values), Better.HIGHER)
    return bool(found) and found[-1].change is Change.REGRESSION


def change_point_at(values: Sequence[float], index: int) -> bool:
    """The newest change point is a regression at the run where the drop began."""
    found = change_points(_series(values), Better.HIGHER)
    return bool(found) and found[-1].change is Change.REGRESSION and found[-1].index == index


def jumpavg_series(values: Sequence[float]) -> bool:
    from jumpavg import classify  # type: ignore[import-untyped]

    groups = classify(list(values))
    return len(groups) > 1 and bool(groups[-1].comment == "regression")


UNLABELLED: dict[str, Callable[[Sequence[float]], bool]] = {
    "jumpavg": jumpavg_series,
    "wirespeed (best split)": change_point_gate,
}


def measure_unlabelled(
    series: int, cvs: Sequence[float], runs: Sequence[int]
) -> list[dict[str, object]]:
    rows = []
    for cv, size in itertools.product(cvs, runs):
        for drop in (DROP, 0.0):
            generator = random.Random(f"{SEED}-unlabelled-{cv}-{size}-{drop}")
            histories = [
                simulate(generator, size, cv, LEVEL)
                + simulate(generator, size, cv, LEVEL * (1 - drop))
                for _ in range(series)
            ]
            row: dict[str, object] = {"cv": cv, "runs": size, "drop": drop}
            for name, method in UNLABELLED.items():
                started = time.perf_counter()
                row[name] = round(100 * sum(1 for h in histories if method(h)) / series, 1)
                row[f"{name} ms"] = round(1000 * (time.perf_counter() - started) / series, 2)
            if drop:
                at = sum(1 for h in histories if change_point_at(h, size))
                row["wirespeed at the drop's run"] = round(100 * at / series, 1)
            else:
                # A change point of either sign where there is none: the gate does not
                # fire on a progression, but the page and the table show it.
                said = sum(1 for h in histories if change_points(_series(h), Better.HIGHER))
                row["wirespeed, any change point"] = round(100 * said / series, 1)
            rows.append(row)
    return rows


def _cell(caught: dict[str, object], false: dict[str, object], name: str) -> str:
    if name in caught and name in false:
        return f"{caught[name]:g} / {false[name]:g}"
    if name in caught:  # measured on the drops only
        return f"{caught[name]:g}"
    if name in false:  # measured on the histories with no change only
        return f"{false[name]:g}"
    return "\N{EN DASH}"


def table(rows: Sequence[dict[str, object]], names: Sequence[str] = tuple(METHODS)) -> str:
    """Markdown: caught (10 % drop) / false alarms (no change), per method."""
    lines = [
        "| CV | runs a group | " + " | ".join(names) + " |",
        "|---|---|" + "---|" * len(names),
    ]
    by = {(r["cv"], r["runs"], r["drop"]): r for r in rows}
    for cv, size in dict.fromkeys((r["cv"], r["runs"]) for r in rows):
        caught, false = by[(cv, size, DROP)], by[(cv, size, 0.0)]
        cells = [_cell(caught, false, n) for n in names]
        lines.append(f"| {float(str(cv)) * 100:g} % | {size} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--series", type=int, default=1000, help="series per cell")
    args = parser.parse_args()
    rows = measure(args.series, CVS, RUNS)
    unlabelled = measure_unlabelled(args.series, CVS, UNLABELLED_RUNS)
    emit("trend_detection", {"series": args.series, "rows": rows, "unlabelled": unlabelled})
    print(table(rows))
    print()
    names = (*UNLABELLED, "wirespeed at the drop's run", "wirespeed, any change point")
    print(table(unlabelled, names))


if __name__ == "__main__":
    main()
