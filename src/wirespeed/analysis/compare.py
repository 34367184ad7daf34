"""Two sets of measurements side by side: two runs, two paths or two variants of one run.

Trials are grouped by (test id, path, variant, flow), the groups of side A matched with
those of side B on everything but what is compared, and each match gets the medians of
both, the ratio B/A with a bootstrap interval, a permutation test (Welch's t-test for
groups of 20 or more) and a verdict. A
difference that the repetitions cannot tell from noise is "not significant", whatever the
ratio: pyperf's rule, so nobody reads a 1.02x speed-up into two noisy runs.
"""

from __future__ import annotations

import difflib
import enum
from collections.abc import Iterable
from dataclasses import dataclass

from wirespeed.analysis.stats import (
    ALPHA,
    ConfidenceInterval,
    PermutationTest,
    Summary,
    permutation_test,
    ratio_interval,
    summarize,
)
from wirespeed.errors import UsageError
from wirespeed.model import Better, Flow, TrialStatus
from wirespeed.store.records import RunRecord


class CompareBy(enum.StrEnum):
    """What differs between side A and side B."""

    RUN = "run"
    PATH = "path"
    VARIANT = "variant"


class Verdict(enum.StrEnum):
    SIGNIFICANT = "significant"
    NOT_SIGNIFICANT = "not significant"
    SINGLE_RUN = "single run"  # one side has one repetition: no test is possible
    ONLY_A = "only in A"
    ONLY_B = "only in B"
    NO_RATIO = "no ratio"  # A's median is 0: nothing to divide by


@dataclass(frozen=True)
class Group:
    """The goodput of one flow of one test on one path in one variant, over repetitions."""

    test_id: str
    test_name: str
    path: str
    variant: str
    flow: Flow
    values_bps: tuple[float, ...]
    trials: tuple[str, ...]  # Trial.key of each value
    # What the values are: goodput (bit/s, higher is better) unless a measurement beside
    # the flows says otherwise (a latency probe's, in ms, lower is better); then `flow`
    # is the test's first and means nothing.
    measure: CompareMeasure | None = None


@dataclass(frozen=True)
class CompareMeasure:
    """A measurement compared beside goodput: its name, labels, unit and better way."""

    name: str
    labels: tuple[tuple[str, str], ...]
    unit: str
    better: Better

    @property
    def item(self) -> str:
        """ "rtt loaded, p50", as Measurement.item says it."""
        if not self.labels:
            return self.name
        return f"{self.name} " + ", ".join(value for _, value in self.labels)


# The latency figures a comparison shows for a probed test (analysis/latency.py): the
# idle and loaded round trips and what the load added. The grade is the increase's
# letter, said beside it.
COMPARED_LATENCY: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("rtt", (("load", "idle"), ("statistic", "p50"))),
    ("rtt", (("load", "loaded"), ("statistic", "p50"))),
    ("rtt", (("load", "loaded"), ("statistic", "p99"))),
    ("latency increase", (("way", "round trip"),)),
)


@dataclass(frozen=True)
class SideInfo:
    """What side A or B is: a run, or a path or variant within a run."""

    label: str  # "run 7", "WAN", "irq-a72"
    run_id: int
    run_title: str | None
    started_at: float
    path: str | None = None  # set when comparing paths
    variant: str | None = None  # set when comparing variants


@dataclass(frozen=True)
class ComparedCell:
    """One matched group: A against B."""

    test_id: str
    test_name: str
    path: str | None  # None when the paths are what is compared
    variant: str | None  # None when the variants are what is compared
    flow: Flow
    a: Summary | None
    b: Summary | None
    a_trials: tuple[str, ...]
    b_trials: tuple[str, ...]
    ratio: float | None  # median(B) / median(A)
    ratio_interval: ConfidenceInterval | None
    test: PermutationTest | None
    verdict: Verdict
    measure: CompareMeasure | None = None  # None: goodput

    @property
    def better(self) -> Better:
        return Better.HIGHER if self.measure is None else self.measure.better

    @property
    def too_few_repetitions(self) -> bool:
        """Both sides repeated, yet too few times for any difference to reach ALPHA."""
        return self.test is not None and not self.test.can_be_significant(ALPHA)


@dataclass(frozen=True)
class Comparison:
    by: CompareBy
    a: SideInfo
    b: SideInfo
    cells: tuple[ComparedCell, ...]
    alpha: float = ALPHA


def goodput_groups(record: RunRecord) -> list[Group]:
    """The run's passed trials grouped by (test, path, variant, flow), in run order."""
    grouped: dict[tuple[str, str, str, Flow], tuple[str, list[float], list[str]]] = {}
    for outcome in record.outcomes:
        if outcome.status is not TrialStatus.OK or outcome.result is None:
            continue
        trial = outcome.trial
        for flow in trial.test.spec.flows:
            direction = outcome.result.direction(flow)
            if direction is None or direction.goodput_bps is None:
                continue
            key = (trial.test.id, trial.path.name, trial.variant, flow)
            _, values, keys = grouped.setdefault(key, (trial.test.name, [], []))
            values.append(direction.goodput_bps)
            keys.append(trial.key)
    return [
        Group(test_id, name, path, variant, flow, tuple(values), tuple(keys))
        for (test_id, path, variant, flow), (name, values, keys) in grouped.items()
    ]


def latency_groups(record: RunRecord) -> list[Group]:
    """The probed trials' latency figures (COMPARED_LATENCY) grouped by (test, path,
    variant, figure), in run order: compared as goodput is, lower being better."""
    wanted = set(COMPARED_LATENCY)
    grouped: dict[
        tuple[str, str, str, str, tuple[tuple[str, str], ...]],
        tuple[str, Flow, CompareMeasure, list[float], list[str]],
    ] = {}
    for outcome in record.outcomes:
        if outcome.status is not TrialStatus.OK or outcome.result is None:
            continue
        trial = outcome.trial
        for m in outcome.result.measurements:
            if (m.name, m.labels) not in wanted:
                continue
            key = (trial.test.id, trial.path.name, trial.variant, m.name, m.labels)
            measure = CompareMeasure(m.name, m.labels, m.unit, m.better)
            first_flow = trial.test.spec.flows[0]
            _, _, _, values, keys = grouped.setdefault(
                key, (trial.test.name, first_flow, measure, [], [])
            )
            values.append(m.value)
            keys.append(trial.key)
    order = {figure: index for index, figure in enumerate(COMPARED_LATENCY)}
    places = list(dict.fromkeys(key[:3] for key in grouped))
    # Each test's figures together, in COMPARED_LATENCY's order.
    items = sorted(
        grouped.items(),
        key=lambda item: (places.index(item[0][:3]), order[(item[0][3], item[0][4])]),
    )
    return [
        Group(test_id, name, path, variant, flow, tuple(v), tuple(k), measure)
        for (test_id, path, variant, _, _), (name, flow, measure, v, k) in items
    ]


def all_groups(record: RunRecord) -> list[Group]:
    """Goodput of every flow, then the probed tests' latency figures."""
    return goodput_groups(record) + latency_groups(record)


def compare_groups(a: Group | None, b: Group | None, by: CompareBy) -> ComparedCell:
    """One matched pair (either side may be missing) with its ratio, test and verdict."""
    some = a or b
    assert some is not None, "a comparison needs at least one side"
    a_summary = summarize(a.values_bps) if a else None
    b_summary = summarize(b.values_bps) if b else None
    ratio = interval = test = None
    if a_summary is None:
        verdict = Verdict.ONLY_B
    elif b_summary is None:
        verdict = Verdict.ONLY_A
    elif a_summary.median <= 0 or b_summary.median < 0:
        # Nothing to divide by; a latency increase can be below 0 (noise on an idle path).
        verdict = Verdict.NO_RATIO
    else:
        ratio = b_summary.median / a_summary.median
        if a_summary.n < 2 or b_summary.n < 2:
            verdict = Verdict.SINGLE_RUN
        else:
            interval = ratio_interval(a_summary.values, b_summary.values)
            test = permutation_test(a_summary.values, b_summary.values)
            # Both must agree: the test says the groups differ, and the interval of the
            # ratio keeps clear of 1. Either alone can be fooled by ties in tiny groups.
            differs = test.significant(ALPHA) and (
                interval is not None and not interval.contains(1.0)
            )
            verdict = Verdict.SIGNIFICANT if differs else Verdict.NOT_SIGNIFICANT
    return ComparedCell(
        test_id=some.test_id,
        test_name=some.test_name,
        path=None if by is CompareBy.PATH else some.path,
        variant=None if by is CompareBy.VARIANT else some.variant,
        flow=some.flow,
        a=a_summary,
        b=b_summary,
        a_trials=a.trials if a else (),
        b_trials=b.trials if b else (),
        ratio=ratio,
        ratio_interval=interval,
        test=test,
        verdict=verdict,
        measure=some.measure,
    )


def _match_key(group: Group, by: CompareBy) -> tuple[object, ...]:
    """Everything that identifies a group except the thing compared."""
    what = (group.flow.value,) if group.measure is None else (group.measure.item,)
    if by is CompareBy.PATH:
        return (group.test_id, group.variant, *what)
    if by is CompareBy.VARIANT:
        return (group.test_id, group.path, *what)
    return (group.test_id, group.path, group.variant, *what)


def _match(
    a_groups: Iterable[Group], b_groups: Iterable[Group], by: CompareBy
) -> list[ComparedCell]:
    a_by_key = {_match_key(g, by): g for g in a_groups}
    b_by_key = {_match_key(g, by): g for g in b_groups}
    keys = list(dict.fromkeys([*a_by_key, *b_by_key]))  # A's order, then B's extra groups
    return [compare_groups(a_by_key.get(k), b_by_key.get(k), by) for k in keys]


def _side(record: RunRecord, label: str, **where: str) -> SideInfo:
    return SideInfo(
        label=label,
        run_id=record.id,
        run_title=record.info.title,
        started_at=record.info.started_at,
        **where,
    )


def compare_runs(a: RunRecord, b: RunRecord) -> Comparison:
    """Run B against run A, test by test on the same path and variant."""
    return Comparison(
        by=CompareBy.RUN,
        a=_side(a, f"run {a.id}"),
        b=_side(b, f"run {b.id}"),
        cells=tuple(_match(all_groups(a), all_groups(b), CompareBy.RUN)),
    )


def _require_names(wanted: Iterable[str], known: list[str], what: str, run_id: int) -> None:
    for name in wanted:
        if name not in known:
            # difflib, not plan.problems.did_you_mean: importing the plan package loads
            # pydantic, which `wirespeed compare` has no other use for.
            # Case-blind, since path names are typed as people write them ("wan", "WAN").
            by_lower = {k.lower(): k for k in known}
            close = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.6)
            guess = f" (did you mean {by_lower[close[0]]!r}?)" if close else ""
            raise UsageError(
                f"run {run_id} has no {what} {name!r}{guess}",
                hint=f"its {what}s are {', '.join(known) or 'none'}",
            )


def compare_paths(record: RunRecord, path_a: str, path_b: str) -> Comparison:
    """Two paths of one run (the seeds' WAN against Br0), test by test."""
    groups = all_groups(record)
    known = list(dict.fromkeys(o.trial.path.name for o in record.outcomes))
    _require_names((path_a, path_b), known, "path", record.id)
    return Comparison(
        by=CompareBy.PATH,
        a=_side(record, path_a, path=path_a),
        b=_side(record, path_b, path=path_b),
        cells=tuple(
            _match(
                [g for g in groups if g.path == path_a],
                [g for g in groups if g.path == path_b],
                CompareBy.PATH,
            )
        ),
    )


def compare_variants(record: RunRecord, variant_a: str, variant_b: str) -> Comparison:
    """Two variants of one run (IRQ affinity off and on), test by test on each path."""
    groups = all_groups(record)
    known = list(dict.fromkeys(o.trial.variant for o in record.outcomes))
    _require_names((variant_a, variant_b), known, "variant", record.id)
    return Comparison(
        by=CompareBy.VARIANT,
        a=_side(record, variant_a, variant=variant_a),
        b=_side(record, variant_b, variant=variant_b),
        cells=tuple(
            _match(
                [g for g in groups if g.variant == variant_a],
                [g for g in groups if g.variant == variant_b],
                CompareBy.VARIANT,
            )
        ),
    )
