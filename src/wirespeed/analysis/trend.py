"""A device's figures over firmware, kernels or time: did the new version make it slower?

Runs are put in series by their comparison key (analysis/comparison_key.py): one series
per measurement that several runs measured the same way. Within a series:

- **Labelled groups** (`by` a label: `firmware`, `kernel`, `os` or any `run --label`
  key): the runs are grouped by their value of the label, groups in the order their first
  run started, and each group is judged against the one before it (and, given a
  baseline, the newest against the baseline). The judgement is Welch's t-test on the
  difference of means with its confidence interval, plus a minimum effect: a change is a
  regression or a progression only when the test says the groups differ AND the change
  is larger than the minimum effect, by default the measurement's own noise (the larger
  coefficient of variation of the two groups). A group of five samples or more leaves
  its outliers out of the test (`without_outliers`). Why Welch's t and not Mann-Whitney or the
  permutation test `compare` uses: docs/trend.md, measured in benchmarks/trend_detection.py.
- **Change points** over time, whatever the labels, by binary segmentation: every split
  of the series into a before and an after of SPLIT_SIDE runs or more is tried, and the
  one Welch's test finds most unlike is judged as two groups (`judge`, each run's median
  a sample): it holds when its p, Bonferroni-corrected by the number of splits tried, is
  under alpha and the change is larger than the minimum effect. Where it holds, each
  side is looked at again the same way. Why this and not jumpavg (FD.io CSIT's change
  detection): at 5 runs before and 5 after a 10 % drop, CV 3 %, jumpavg sees about one
  drop in five, the best split nearly nine in ten (docs/trend.md, measured in
  benchmarks/trend_detection.py).

What is compared: each run's median when both groups have MIN_RUNS or more runs (the
runs are the samples: repetitions of one run share its boot and its conditions, and
would make a change between two boots look certain), else every repetition (one run of
five repetitions a firmware is the common case, and its repetitions are all there is).
"""

from __future__ import annotations

import enum
import itertools
import math
import statistics
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property

from wirespeed.analysis.comparison_key import SeriesKey, series_key
from wirespeed.analysis.group_tests import WELCH, welch_interval, welch_test
from wirespeed.analysis.stats import (
    ALPHA,
    ConfidenceInterval,
    Summary,
    outlier_indices,
    percent_change,
    summarize,
)
from wirespeed.model import Better, TrialStatus
from wirespeed.store.records import RunRecord

MIN_RUNS = 3  # both groups this many runs or more: a run's median is one sample
OUTLIERS_FROM = 5  # a group of this many samples or more leaves its outliers out of the test
AUTOMATIC_KEYS = ("kernel", "os")  # grouping keys every run has: its DUT's
# Runs a side of a change point, at least: Welch's test on fewer cannot tell a 10 % drop
# from a CV of 3 % (benchmarks/trend_detection.py, 3 runs a group: 66.5 % caught).
SPLIT_SIDE = 3


class Change(enum.StrEnum):
    REGRESSION = "regression"
    PROGRESSION = "progression"
    NO_CHANGE = "no change"
    TOO_FEW = "too few"  # a group of one value: no test is possible


MOVED = (Change.REGRESSION, Change.PROGRESSION)


@dataclass(frozen=True)
class RunPoint:
    """One run's figures of a series."""

    run_id: int
    started_at: float
    group: str | None  # its value of the label; None: unlabelled (or no label asked)
    values: tuple[float, ...]  # its repetitions, in run order

    # Worked out once: a page reads a point's median, and a group's summary, several
    # times (its dot, its table row, its step), and the fields never change.
    @cached_property
    def median(self) -> float:
        return statistics.median(self.values)


@dataclass(frozen=True)
class Group:
    name: str  # the label's value ("23.05.3"), or "run 7" for a baseline run
    points: tuple[RunPoint, ...]

    @cached_property
    def run_ids(self) -> tuple[int, ...]:
        return tuple(p.run_id for p in self.points)

    @cached_property
    def repetitions(self) -> tuple[float, ...]:
        return tuple(v for p in self.points for v in p.values)

    @cached_property
    def summary(self) -> Summary:
        """Of every repetition: what the tables show as the group's median."""
        return summarize(self.repetitions)


@dataclass(frozen=True)
class MinEffect:
    """The smallest change worth a verdict: a fixed fraction, or (None) the noise of the
    groups compared."""

    fraction: float | None = None

    def threshold(self, noise: float) -> float:
        return noise if self.fraction is None else self.fraction

    @property
    def text(self) -> str:
        return "noise" if self.fraction is None else f"{self.fraction * 100:g} %"


@dataclass(frozen=True)
class Judgement:
    """Group `after` against group `before`, in one series."""

    before: str
    after: str
    change: Change
    ratio: float | None  # mean(after) / mean(before), what the test judged
    interval: ConfidenceInterval | None  # of the ratio (the difference's over mean(before))
    p_value: float | None
    noise: float | None  # the larger CV of the two groups' samples, a fraction
    min_effect: float | None  # the threshold this verdict used, a fraction
    samples: str  # "runs" or "repetitions": what was compared (module docstring)
    method: str  # WELCH
    # Outliers left out of the test, of before and of after (`without_outliers`).
    left_out: tuple[int, int] = (0, 0)

    @property
    def percent(self) -> float | None:
        return percent_change(self.ratio)


@dataclass(frozen=True)
class ChangePoint:
    """Where the series moved: the first run of the new level (`change_steps`)."""

    run_id: int
    index: int  # of that run in the series
    before: float  # the previous level's mean
    after: float
    change: Change

    @property
    def percent(self) -> float:
        return (self.after / self.before - 1) * 100 if self.before else math.inf


@dataclass(frozen=True)
class Series:
    key: SeriesKey
    test_id: str
    test_name: str
    unit: str
    better: Better
    points: tuple[RunPoint, ...]  # by start time
    groups: tuple[Group, ...]  # by the start of their first run; () unlabelled
    steps: tuple[Judgement, ...]  # each group against the one before
    baseline: Judgement | None  # the newest group against the baseline, when one is given
    change_points: tuple[ChangePoint, ...]

    @property
    def item(self) -> str:
        text = self.key.name
        if self.key.labels:
            text += " " + ", ".join(value for _, value in self.key.labels)
        text += f" on {self.key.path}"
        if self.key.variant != "default":
            text += f" ({self.key.variant})"
        return text

    @property
    def newest(self) -> Judgement | None:
        """What a gate judges: the newest group against the baseline, else against the
        one before it; unlabelled, the last change point's step."""
        if self.baseline is not None:
            return self.baseline
        return self.steps[-1] if self.steps else None

    @property
    def too_short_for_change_points(self) -> bool:
        """Fewer runs than two sides of a change point: none is looked for."""
        return len(self.points) < 2 * SPLIT_SIDE


@dataclass(frozen=True)
class Trend:
    by: str | None  # the label grouped by; None: time only (change points)
    series: tuple[Series, ...]
    min_effect: MinEffect
    alpha: float
    baseline: str | None
    unlabelled: tuple[int, ...]  # runs left out: they have no value of `by`
    runs: int  # runs looked at

    def regressions(self) -> list[Series]:
        """Series whose newest group regressed (a gate's "no")."""
        return [
            s for s in self.series if s.newest is not None and s.newest.change is Change.REGRESSION
        ]


def label_of(record: RunRecord, by: str) -> str | None:
    """The run's value of label `by`: one it was given (`run --label by=...`), else for
    `kernel` and `os` its DUT's (or, without a DUT, its one host's); None when it has
    none."""
    labels = record.info.provenance.get("labels")
    if isinstance(labels, Mapping) and labels.get(by) not in (None, ""):
        return str(labels[by])
    if by not in AUTOMATIC_KEYS:
        return None
    hosts = record.info.hosts
    duts = [h for h in hosts if h.role and "dut" in h.role] or list(hosts)
    found = dict.fromkeys(getattr(h, by) for h in duts if getattr(h, by))
    return ", ".join(str(v) for v in found) or None


def run_labels(record: RunRecord) -> dict[str, str]:
    labels = record.info.provenance.get("labels")
    if not isinstance(labels, Mapping):
        return {}
    return {str(k): str(v) for k, v in labels.items()}


_Collected = dict[SeriesKey, tuple[str, str, str, Better, dict[int, list[float]]]]


def _collect(records: Sequence[RunRecord], path: str | None) -> _Collected:
    """Every passed trial's measurements, by comparison key, then by run."""
    collected: _Collected = {}
    for record in records:
        for outcome in record.outcomes:
            if outcome.status is not TrialStatus.OK or outcome.result is None:
                continue
            trial = outcome.trial
            if path is not None and trial.path.name != path:
                continue
            # The trial's comparison key is the same for each of its measurements:
            # worked out once (for the first), the others' keys differ in their
            # measurement's name and labels only.
            first: SeriesKey | None = None
            for m in outcome.result.measured():
                if first is None:
                    key = first = series_key(trial, m, outcome.result.tool_version)
                else:
                    key = replace(first, name=m.name, labels=m.labels)
                entry = collected.setdefault(
                    key, (trial.test.id, trial.test.name, m.unit, m.better, {})
                )
                entry[4].setdefault(record.id, []).append(m.value)
    return collected


def trend(
    records: Sequence[RunRecord],
    *,
    by: str | None,
    min_effect: MinEffect = MinEffect(),
    alpha: float = ALPHA,
    baseline: str | None = None,
    path: str | None = None,
) -> Trend:
    """The runs' series, each judged group against group (by a label) and for change
    points. baseline: a value of `by`, or a run id ("7"): the newest group is also judged
    against it."""
    ordered = sorted(records, key=lambda r: (r.info.started_at, r.id))
    groups_of_run = {r.id: (label_of(r, by) if by is not None else None) for r in ordered}
    unlabelled = tuple(r.id for r in ordered if by is not None and groups_of_run[r.id] is None)
    started = {r.id: r.info.started_at for r in ordered}
    series = []
    for key, (test_id, test_name, unit, better, by_run) in _collect(ordered, path).items():
        points = tuple(
            RunPoint(run_id, started[run_id], groups_of_run[run_id], tuple(values))
            for run_id, values in sorted(
                by_run.items(), key=lambda item: (started[item[0]], item[0])
            )
        )
        if len(points) < 2:
            continue  # one run is no history
        labelled = [p for p in points if p.group is not None]
        groups = _groups(labelled)
        steps = tuple(
            judge(a, b, better, min_effect=min_effect, alpha=alpha)
            for a, b in itertools.pairwise(groups)
        )
        found = change_steps(points, better, min_effect=min_effect, alpha=alpha)
        against = None
        if baseline is not None and groups:
            base = _baseline_group(baseline, groups, points)
            if base is not None and base.name != groups[-1].name:
                against = judge(base, groups[-1], better, min_effect=min_effect, alpha=alpha)
        series.append(
            Series(
                key=key,
                test_id=test_id,
                test_name=test_name,
                unit=unit,
                better=better,
                points=points,
                groups=groups,
                steps=steps if by is not None else tuple(step for _, step in found),
                baseline=against,
                change_points=tuple(point for point, _ in found),
            )
        )
    return Trend(
        by=by,
        series=tuple(series),
        min_effect=min_effect,
        alpha=alpha,
        baseline=baseline,
        unlabelled=unlabelled,
        runs=len(ordered),
    )


def _groups(points: Iterable[RunPoint]) -> tuple[Group, ...]:
    grouped: dict[str, list[RunPoint]] = {}
    for point in points:  # in start order: a group's place is its first run's
        assert point.group is not None
        grouped.setdefault(point.group, []).append(point)
    return tuple(Group(name, tuple(members)) for name, members in grouped.items())


def _baseline_group(
    baseline: str, groups: Sequence[Group], points: Sequence[RunPoint]
) -> Group | None:
    for group in groups:
        if group.name == baseline:
            return group
    if baseline.isdigit():
        for point in points:
            if point.run_id == int(baseline):
                return Group(f"run {point.run_id}", (point,))
    return None


def samples_of(before: Group, after: Group) -> tuple[tuple[float, ...], tuple[float, ...], str]:
    """What is compared (module docstring): runs' medians, or every repetition."""
    if min(len(before.points), len(after.points)) >= MIN_RUNS:
        return (
            tuple(p.median for p in before.points),
            tuple(p.median for p in after.points),
            "runs",
        )
    return before.repetitions, after.repetitions, "repetitions"


def _noise(values: Sequence[float]) -> float:
    mean = statistics.fmean(values)
    return statistics.stdev(values) / abs(mean) if mean else math.inf


def judge(
    before: Group,
    after: Group,
    better: Better,
    *,
    min_effect: MinEffect = MinEffect(),
    alpha: float = ALPHA,
) -> Judgement:
    """`after` against `before`: Welch's t-test and a minimum effect (module docstring)."""
    a, b, samples = samples_of(before, after)
    left_out = (0, 0)
    # The measurement's noise is all of it, its slow runs included: what a change must
    # exceed. The test judges the typical run: outliers left out. (Measured with the
    # simulation of benchmarks/trend_detection.py: the noise of what is left as the
    # minimum effect made false alarms at 5 runs a side and CV 3 % 5.2 % instead of 3.0 %.)
    noise = max(_noise(a), _noise(b)) if min(len(a), len(b)) >= 2 else math.inf
    if min(len(a), len(b)) >= 2:
        kept_a, kept_b = without_outliers(a), without_outliers(b)
        left_out = (len(a) - len(kept_a), len(b) - len(kept_b))
        a, b = kept_a, kept_b
    if min(len(a), len(b)) < 2:
        ratio = _ratio(a, b)
        return Judgement(
            before.name, after.name, Change.TOO_FEW, ratio, None, None, None, None, samples, WELCH
        )
    test = welch_test(a, b)
    mean_a = statistics.fmean(a)
    threshold = min_effect.threshold(noise)
    if mean_a <= 0:
        # No ratio to speak of (a loss of 0 %): the test alone, in the measurement's unit.
        ratio, interval = None, None
        effect_large = test.observed_difference != 0
    else:
        difference = welch_interval(a, b, confidence=1 - alpha)
        ratio = 1 + test.observed_difference / mean_a
        interval = ConfidenceInterval(
            1 + difference.low / mean_a,
            1 + difference.high / mean_a,
            difference.confidence,
            "ratio of means",
        )
        effect_large = abs(ratio - 1) > threshold
    change = Change.NO_CHANGE
    if test.significant(alpha) and effect_large:
        higher = test.observed_difference > 0
        good = higher == (better is Better.HIGHER)
        change = Change.PROGRESSION if good else Change.REGRESSION
    return Judgement(
        before.name,
        after.name,
        change,
        ratio,
        interval,
        test.p_value,
        noise if math.isfinite(noise) else None,
        threshold if math.isfinite(threshold) else None,
        samples,
        WELCH,
        left_out,
    )


def without_outliers(values: Sequence[float]) -> tuple[float, ...]:
    """The values without the outliers stats.outlier_indices finds (a run slowed by a
    background job), in groups of OUTLIERS_FROM or more: the test judges the level of
    the typical run. Measured with the simulation of benchmarks/trend_detection.py
    (3,000 histories, CV 3 %, one run in twenty slow): with 5 runs a side Welch's test
    caught 95.1 % of 10 % drops with the slow runs in, 95.6 % with them out."""
    if len(values) < OUTLIERS_FROM:
        return tuple(values)
    odd = set(outlier_indices(values))
    return tuple(v for i, v in enumerate(values) if i not in odd)


def _ratio(a: Sequence[float], b: Sequence[float]) -> float | None:
    if not a or not b:
        return None
    mean_a = statistics.fmean(a)
    return statistics.fmean(b) / mean_a if mean_a > 0 else None


# -- change points ---------------------------------------------------------------------


def segments(
    points: Sequence[RunPoint],
    better: Better,
    *,
    min_effect: MinEffect = MinEffect(),
    alpha: float = ALPHA,
) -> list[tuple[int, int]]:
    """The series cut into segments of one level, as (first index, end index) pairs, by
    binary segmentation (module docstring): the best split of a segment, judged as two
    groups; where it holds, each side is looked at again. Where no split holds, the best
    stretch within the segment judged against the rest of it (`_best_stretch`)."""
    found: list[tuple[int, int]] = []
    pending = [(0, len(points))] if points else []
    while pending:
        start, end = pending.pop()
        part = points[start:end]
        cut = _best_split(part, better, min_effect=min_effect, alpha=alpha)
        if cut is not None:
            pending += [(start, start + cut), (start + cut, end)]
            continue
        stretch = _best_stretch(part, better, min_effect=min_effect, alpha=alpha)
        if stretch is None:
            found.append((start, end))
        else:
            i, j = stretch
            pending += [(start, start + i), (start + i, start + j), (start + j, end)]
    return sorted(found)


def _best_split(
    points: Sequence[RunPoint], better: Better, *, min_effect: MinEffect, alpha: float
) -> int | None:
    """Where the points split into the two groups most unlike, when that split holds:
    judged as two groups (`judge`), its p, Bonferroni-corrected by the splits tried,
    under alpha and the change larger than the minimum effect; None when no split
    holds. The split is found by Welch's test on every sample: `judge` leaves a side's
    outliers out, and a side that straddles the change would lose the other level's runs
    as outliers and look as clean as the right split."""
    splits = range(SPLIT_SIDE, len(points) - SPLIT_SIDE + 1)
    best: tuple[float, int] | None = None
    for k in splits:
        a, b, _ = samples_of(_side(points[:k]), _side(points[k:]))
        p_value = welch_test(a, b).p_value
        if best is None or p_value < best[0]:
            best = (p_value, k)
    if best is None:
        return None
    k = best[1]
    judged = judge(_side(points[:k]), _side(points[k:]), better, min_effect=min_effect)
    if judged.p_value is None or judged.p_value * len(splits) >= alpha:
        return None
    return k if judged.change in MOVED else None


def _best_stretch(
    points: Sequence[RunPoint], better: Better, *, min_effect: MinEffect, alpha: float
) -> tuple[int, int] | None:
    """A level that came and went (a bad nightly, fixed later): no single split tells
    it, each side holding both levels and their spread. The stretch [i, j) of
    SPLIT_SIDE runs or more, with as many before and after it, that Welch's test finds
    most unlike the runs around it, judged against them (`judge`), Bonferroni-corrected
    by the stretches tried; None when none holds."""
    n = len(points)
    stretches = [
        (i, j)
        for i in range(SPLIT_SIDE, n - 2 * SPLIT_SIDE + 1)
        for j in range(i + SPLIT_SIDE, n - SPLIT_SIDE + 1)
    ]
    best: tuple[float, int, int] | None = None
    for i, j in stretches:
        a, b, _ = samples_of(_side([*points[:i], *points[j:]]), _side(points[i:j]))
        p_value = welch_test(a, b).p_value
        if best is None or p_value < best[0]:
            best = (p_value, i, j)
    if best is None:
        return None
    _, i, j = best
    around = _side([*points[:i], *points[j:]])
    judged = judge(around, _side(points[i:j]), better, min_effect=min_effect)
    if judged.p_value is None or judged.p_value * len(stretches) >= alpha:
        return None
    return (i, j) if judged.change in MOVED else None


def _side(points: Sequence[RunPoint]) -> Group:
    return Group(f"from run {points[0].run_id}", tuple(points))


def change_steps(
    points: Sequence[RunPoint],
    better: Better,
    *,
    min_effect: MinEffect = MinEffect(),
    alpha: float = ALPHA,
) -> tuple[tuple[ChangePoint, Judgement], ...]:
    """Each change point with its step: the segments on either side of it judged as two
    groups (`judge`). A boundary whose two segments that judgement cannot tell apart
    (its split held against a longer stretch of the series) is dropped, its segments
    joined, until every boundary left is a regression or a progression."""
    parts = segments(points, better, min_effect=min_effect, alpha=alpha)
    while True:
        found = []
        for (start_a, end_a), (start_b, end_b) in itertools.pairwise(parts):
            judged = judge(
                _side(points[start_a:end_a]),
                _side(points[start_b:end_b]),
                better,
                min_effect=min_effect,
                alpha=alpha,
            )
            found.append((start_b, judged))
        weak = [i for i, (_, j) in enumerate(found) if j.change not in MOVED]
        if not weak:
            break
        joined = weak[0]  # the first: joining it changes its neighbours' judgements
        parts[joined : joined + 2] = [(parts[joined][0], parts[joined + 1][1])]
    steps = []
    for ((start_a, end_a), (start_b, end_b)), (_, judged) in zip(
        itertools.pairwise(parts), found, strict=True
    ):
        first = points[start_b].run_id
        steps.append(
            (
                ChangePoint(
                    run_id=first,
                    index=start_b,
                    before=_level(points[start_a:end_a]),
                    after=_level(points[start_b:end_b]),
                    change=judged.change,
                ),
                replace(judged, before=f"before run {first}", after=f"from run {first}"),
            )
        )
    return tuple(steps)


def _level(points: Sequence[RunPoint]) -> float:
    return statistics.fmean(v for p in points for v in p.values)


def change_points(
    points: Sequence[RunPoint],
    better: Better,
    *,
    min_effect: MinEffect = MinEffect(),
    alpha: float = ALPHA,
) -> tuple[ChangePoint, ...]:
    """Where the series' level moved (module docstring)."""
    return tuple(
        point for point, _ in change_steps(points, better, min_effect=min_effect, alpha=alpha)
    )
