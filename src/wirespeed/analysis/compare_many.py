"""Any number of runs side by side, measurement by measurement: the table people make of
boards and kernels (the seeds' "R4S FriendlyCore 4.19 | R4S Armbian 5.10 | Neo2", each
figure also as a % against the first column). The one comparison of wirespeed: two runs
are this table with two columns, and two paths or variants of one run, a run's variants
in its report and soaks are columns of it too (analysis/compare_within.py,
soak/comparison.py).

Rows are the measurements the runs share (a benchmark's "AES-128-CBC 1 KB, EVP", a traffic
test's goodput of each flow), matched on test id, variant, name and labels; the path is
part of the match only where a run measured the same thing on several paths (across
devices the paths are the devices, and differ by name). Each cell is the median of its
repetitions; from the second column on also its ratio to the first with the interval of
that ratio and a permutation test, and a verdict by one rule (`verdict_of`): a difference
that the repetitions cannot tell from noise is "not significant", whatever the ratio
(pyperf's rule, so nobody reads a 1.02x speed-up into two noisy runs).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wirespeed.analysis.group_tests import PermutationTest, permutation_test
from wirespeed.analysis.stats import (
    ALPHA,
    ConfidenceInterval,
    Summary,
    percent_change,
    ratio_interval,
    summarize,
)
from wirespeed.model import Better, Measurement, TrialStatus
from wirespeed.store.records import RunRecord


class Verdict(enum.StrEnum):
    SIGNIFICANT = "significant"
    NOT_SIGNIFICANT = "not significant"
    SINGLE_RUN = "single run"  # one side has one repetition: no test is possible
    NO_RATIO = "no ratio"  # the first column's median is 0 (or a figure below 0)


def verdict_of(test: PermutationTest, interval: ConfidenceInterval | None) -> Verdict:
    """The one significance rule: the test says the two differ AND the ratio's interval
    keeps clear of 1. Both, because either alone can be fooled by ties in tiny groups
    (a permutation test of 3 identical against 3 identical values, an interval of
    resampled medians that are all one value); a count without repetitions has no
    interval, and its exact test alone decides (soak/comparison.py)."""
    excludes_one = interval is None or not interval.contains(1.0)
    differs = test.significant(ALPHA) and excludes_one
    return Verdict.SIGNIFICANT if differs else Verdict.NOT_SIGNIFICANT


@dataclass(frozen=True)
class RunColumn:
    """One run as a column: who it measured, on which kernel; or one path or variant of
    a run (`path`, `variant` set: the run's other paths or variants are not in it)."""

    run_id: int
    title: str | None
    started_at: float
    devices: tuple[str, ...]  # the paths its trials ran on ("R4S", "WAN")
    kernels: tuple[str, ...]  # of its devices (or of the lab machine), distinct
    label: str  # "run 3: R4S, Linux 5.10.12"
    name: str | None = None  # a table's column heading, when not "run 3"
    path: str | None = None
    variant: str | None = None


@dataclass(frozen=True)
class ManyCell:
    summary: Summary
    trials: tuple[str, ...]
    # Against the first column's cell of the row (None in the first column, or when the
    # first column has none): median / first median, its interval, the test, the verdict.
    ratio: float | None = None
    ratio_interval: ConfidenceInterval | None = None
    test: PermutationTest | None = None
    verdict: Verdict | None = None
    # The first column's figure was measured otherwise (comparison_key.py): which key
    # differs; no ratio is given then.
    not_comparable: str | None = None

    @property
    def percent(self) -> float | None:
        """The change against the first column, in %: +43.7 for a ratio of 1.437."""
        return percent_change(self.ratio)


@dataclass(frozen=True)
class ManyRow:
    test_id: str
    test_name: str
    path: str | None  # set only where a run measured this on several paths
    variant: str
    name: str
    labels: tuple[tuple[str, str], ...]
    unit: str
    better: Better
    cells: tuple[ManyCell | None, ...]  # one per column; None: not measured in that run

    @property
    def item(self) -> str:
        text = self.name
        if self.labels:
            text += " " + ", ".join(value for _, value in self.labels)
        if self.path is not None:
            text += f" on {self.path}"
        if self.variant not in (DEFAULT_VARIANT, ALL_VARIANTS):
            text += f" ({self.variant})"
        return text


@dataclass(frozen=True)
class ManyComparison:
    columns: tuple[RunColumn, ...]
    rows: tuple[ManyRow, ...]
    alpha: float = ALPHA
    noun: str = "run"  # what a column is: "run", or "soak" (its run_id is the soak's)
    legend: str | None = None  # how to read a cell, where a run's words do not say it
    title: str | None = None  # the table's title, where "2 runs compared" would mislead
    # Lines shown with the columns: how the devices' configurations differ, which
    # columns are not valid to compare (analysis/validity.py); compare across stores
    # and bundles says them.
    notes: tuple[str, ...] = ()

    def title_text(self) -> str:
        return self.title or f"{len(self.columns)} {self.noun}s compared"

    def heading(self, column: RunColumn) -> str:
        return column.name or f"{self.noun} {column.run_id}"


# The variant a plan without `variants:` runs in (model.Trial's default).
DEFAULT_VARIANT = "default"
# A row's variant where the columns are variants (none of them is the row's).
ALL_VARIANTS = ""

Labels = tuple[tuple[str, str], ...]
_Key = tuple[str, str, str, str, Labels]  # test, path, variant, name, labels
_RowKey = tuple[str, str | None, str, str, Labels]  # the path only where it must match


Groups = dict[_Key, tuple[str, str, Better, list[float], list[str]]]


def groups_of(record: RunRecord, same_as: Mapping[str, str] | None = None) -> Groups:
    """The run's passed trials' measurements (a traffic test's flows', its probes'
    latency, a benchmark's, a search's) grouped over repetitions, in run order.
    same_as: variants named otherwise in other runs for the same state (a tuned card's
    `stock` is a plain card's `default`), matched under the name they map to."""
    grouped: Groups = {}
    for outcome in record.outcomes:
        if outcome.status is not TrialStatus.OK or outcome.result is None:
            continue
        trial = outcome.trial
        variant = (same_as or {}).get(trial.variant, trial.variant)
        where = (trial.test.id, trial.test.name, trial.path.name, variant)
        for m in outcome.result.measured():
            _add(grouped, where, m, trial.key)
    return grouped


def _add(grouped: Groups, where: tuple[str, str, str, str], m: Measurement, trial_key: str) -> None:
    """m, measured in repetition trial_key, into its group; where: (test id, test name,
    path, variant)."""
    test_id, test_name, path, variant = where
    key = (test_id, path, variant, m.name, m.labels)
    _, _, _, values, keys = grouped.setdefault(key, (test_name, m.unit, m.better, [], []))
    values.append(m.value)
    keys.append(trial_key)


def run_column(record: RunRecord) -> RunColumn:
    devices = tuple(dict.fromkeys(o.trial.path.name for o in record.outcomes))
    hosts = record.info.hosts
    duts = [h for h in hosts if h.role and "dut" in h.role] or list(hosts)
    kernels = tuple(dict.fromkeys(h.kernel for h in duts if h.kernel))
    said = ", ".join(devices) or "no trials"
    if kernels:
        said += " \N{MIDDLE DOT} " + ", ".join(kernels)
    return RunColumn(
        run_id=record.id,
        title=record.info.title,
        started_at=record.info.started_at,
        devices=devices,
        kernels=kernels,
        label=f"run {record.id}: {said}",
    )


def _cell(
    values: Sequence[float], trials: Sequence[str], first: ManyCell | None, is_first: bool
) -> ManyCell:
    summary = summarize(values)
    if is_first or first is None:
        return ManyCell(summary, tuple(trials))
    base = first.summary
    single = base.n < 2 or summary.n < 2
    if base.median == 0 and summary.median == 0:
        # Nothing against nothing (no retransmits either side): the same, and no test
        # could say otherwise.
        verdict = Verdict.SINGLE_RUN if single else Verdict.NOT_SIGNIFICANT
        return ManyCell(summary, tuple(trials), ratio=1.0, verdict=verdict)
    if base.median <= 0 or summary.median < 0:
        # Nothing to divide by; a latency increase can be below 0 (noise on an idle path).
        return ManyCell(summary, tuple(trials), verdict=Verdict.NO_RATIO)
    ratio = summary.median / base.median
    if single:
        return ManyCell(summary, tuple(trials), ratio=ratio, verdict=Verdict.SINGLE_RUN)
    interval = ratio_interval(base.values, summary.values)
    test = permutation_test(base.values, summary.values)
    return ManyCell(
        summary,
        tuple(trials),
        ratio=ratio,
        ratio_interval=interval,
        test=test,
        # An interval of None here means a resample of the first had a median of 0: no
        # interval to agree, so no verdict of "significant" on the test alone.
        verdict=Verdict.NOT_SIGNIFICANT if interval is None else verdict_of(test, interval),
    )


def compare_many(
    records: Sequence[RunRecord],
    *,
    same_as: Mapping[str, str] | None = None,
    strict: bool = False,
) -> ManyComparison:
    """The runs in the order given, the first the baseline of every %; same_as as
    groups_of's. A figure measured otherwise than the first column's (another comparison
    key) says which key differs; strict (runs of other stores and bundles): it has no
    ratio either. Runs of one store are compared as asked, a gigabit run against a Fast
    Ethernet one too, with the difference said beside each figure."""
    rows = compare_columns([groups_of(record, same_as) for record in records])
    return ManyComparison(
        tuple(run_column(r) for r in records), _comparable(rows, records, strict=strict)
    )


def _comparable(
    rows: Sequence[ManyRow], records: Sequence[RunRecord], *, strict: bool
) -> tuple[ManyRow, ...]:
    """Each cell whose figure was measured otherwise than the first column's (another
    comparison key) saying which key differs; strict: without its ratio."""
    from wirespeed.analysis.comparison_key import KeyPart, difference, key_of

    by_key = [{o.trial.key: o for o in record.outcomes} for record in records]
    keys: dict[tuple[int, str], tuple[KeyPart, ...]] = {}

    def key(index: int, trial: str) -> tuple[KeyPart, ...] | None:
        outcome = by_key[index].get(trial)
        if outcome is None:
            return None
        if (index, trial) not in keys:
            keys[(index, trial)] = key_of(outcome, records[index])
        return keys[(index, trial)]

    marked = []
    for row in rows:
        first = row.cells[0] if row.cells else None
        base = None if first is None or not first.trials else key(0, first.trials[0])
        cells = list(row.cells)
        for index, cell in enumerate(cells[1:], start=1):
            if base is None or cell is None or not cell.trials:
                continue
            theirs = key(index, cell.trials[0])
            said = None if theirs is None else difference(base, theirs)
            if said is not None and strict:
                cells[index] = ManyCell(cell.summary, cell.trials, not_comparable=said)
            elif said is not None:
                cells[index] = dataclasses.replace(cell, not_comparable=said)
        marked.append(row if cells == list(row.cells) else _with_cells(row, tuple(cells)))
    return tuple(marked)


def _with_cells(row: ManyRow, cells: tuple[ManyCell | None, ...]) -> ManyRow:
    return ManyRow(
        row.test_id,
        row.test_name,
        row.path,
        row.variant,
        row.name,
        row.labels,
        row.unit,
        row.better,
        cells,
    )


# One column's repetitions: each a key that names it and what it measured.
Repetitions = Sequence[tuple[str, Sequence[Measurement]]]


def compare_repetitions(
    columns: Sequence[RunColumn],
    measured: Sequence[Repetitions],
    *,
    test_id: str,
    test_name: str,
    noun: str,
    legend: str,
) -> ManyComparison:
    """Columns of one test that is not a run's (a soak), measured in repetitions, side
    by side as runs are: the first the baseline of every %."""
    per_column: list[Groups] = []
    for repetitions in measured:
        grouped: Groups = {}
        for key, measurements in repetitions:
            for m in measurements:
                _add(grouped, (test_id, test_name, "", DEFAULT_VARIANT), m, key)
        per_column.append(grouped)
    rows = compare_columns(per_column)
    return ManyComparison(tuple(columns), rows, noun=noun, legend=legend)


def compare_columns(per_run: Sequence[Groups]) -> tuple[ManyRow, ...]:
    """Rows matched across the columns' groups, each cell against the first column's."""
    # A measurement met on several paths of one run keeps its path in the match.
    several_paths: set[tuple[str, str, str, tuple[tuple[str, str], ...]]] = set()
    for groups in per_run:
        seen: dict[tuple[str, str, str, tuple[tuple[str, str], ...]], str] = {}
        for test_id, path, variant, name, labels in groups:
            match = (test_id, variant, name, labels)
            if seen.setdefault(match, path) != path:
                several_paths.add(match)
    rows: dict[_RowKey, list[tuple[list[float], list[str]] | None]] = {}
    meta: dict[_RowKey, tuple[str, str, Better]] = {}
    for index, groups in enumerate(per_run):
        for (test_id, path, variant, name, labels), (
            test_name,
            unit,
            better,
            values,
            keys,
        ) in groups.items():
            shown = path if (test_id, variant, name, labels) in several_paths else None
            key = (test_id, shown, variant, name, labels)
            meta.setdefault(key, (test_name, unit, better))
            slots = rows.setdefault(key, [None] * len(per_run))
            if slots[index] is None:
                slots[index] = (values, keys)
    built = []
    for key, slots in rows.items():
        test_id, shown, variant, name, labels = key
        test_name, unit, better = meta[key]
        cells: list[ManyCell | None] = []
        first: ManyCell | None = None
        for index, slot in enumerate(slots):
            if slot is None:
                cells.append(None)
                continue
            values, keys = slot
            cell = _cell(values, keys, first, index == 0)
            if index == 0:
                first = cell
            cells.append(cell)
        built.append(
            ManyRow(test_id, test_name, shown, variant, name, labels, unit, better, tuple(cells))
        )
    return _by_frame_size(built)


# A forwarding search's cells in the order people read them, whatever order they ran in.
_DIRECTIONS = ("up", "down", "both", "in", "out")


def _cell_order(row: ManyRow) -> tuple[int, int] | None:
    """(frame bytes, direction's rank) of a row labelled with both; None otherwise."""
    labels = dict(row.labels)
    frame, direction = labels.get("frame", "").removesuffix(" B"), labels.get("direction")
    if not frame.isdigit() or direction is None:
        return None
    rank = _DIRECTIONS.index(direction) if direction in _DIRECTIONS else len(_DIRECTIONS)
    return int(frame), rank


def _by_frame_size(rows: list[ManyRow]) -> tuple[ManyRow, ...]:
    """The rows with a frame size, in the places they hold, ordered by test, frame size,
    direction (each cell's measurements in their own order); every other row stays."""
    at = [i for i, row in enumerate(rows) if _cell_order(row) is not None]
    tests = {key: n for n, key in enumerate(dict.fromkeys(_place(rows[i]) for i in at))}

    def order(i: int) -> tuple[int, tuple[int, int], int]:
        row = rows[i]
        cell = _cell_order(row)
        assert cell is not None
        return tests[_place(row)], cell, i

    placed = list(rows)
    for slot, index in zip(at, sorted(at, key=order), strict=True):
        placed[slot] = rows[index]
    return tuple(placed)


def _place(row: ManyRow) -> tuple[str, str | None, str]:
    return row.test_id, row.path, row.variant
