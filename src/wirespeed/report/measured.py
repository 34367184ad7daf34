"""The benchmarks' table: one row per test and measurement, one column per place.

A benchmark (openssl speed, 7-zip, UnixBench ...) yields measurements, each with a name,
a unit, which way is better and labels; this table is built from them alone, so that a
new benchmark needs nothing here: its rows are "AES-128-CBC 1 KB, EVP", its cells the
median of the repetitions with their interval and spread, in the measurement's unit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.model import Better, Tool, TrialOutcome, TrialStatus
from wirespeed.report.repetitions import Repetitions


@dataclass(frozen=True)
class Place:
    """Where a benchmark ran: its path (the device), in a variant."""

    path: str
    variant: str
    label: str  # "R4S", or "R4S (performance)" when the run has several variants


@dataclass(frozen=True)
class MeasuredCell(Repetitions):
    """One measurement of one test at one place, over its repetitions."""

    values: tuple[float, ...]
    trials: tuple[str, ...]  # Trial.key of each value
    trials_failed: int
    notes: tuple[int, ...]  # the report's Note.number of its trials, ascending

    @property
    def repeated(self) -> tuple[float, ...]:
        return self.values


@dataclass(frozen=True)
class MeasuredRow:
    test_id: str
    test_name: str
    tool: Tool
    name: str
    labels: tuple[tuple[str, str], ...]
    unit: str
    better: Better
    cells: tuple[MeasuredCell | None, ...]  # one per place; None: not measured there

    @property
    def item(self) -> str:
        """ "AES-128-CBC 1 KB, EVP", as Measurement.item says it."""
        if not self.labels:
            return self.name
        return f"{self.name} " + ", ".join(value for _, value in self.labels)


def measured_table(
    outcomes: Sequence[TrialOutcome],
    trial_notes: Sequence[set[int]],
    several_variants: bool,
) -> tuple[tuple[Place, ...], tuple[MeasuredRow, ...]]:
    """The places and rows of the benchmarks among `outcomes`, and of the traffic tests
    with latency probes (their flows have their own table: here only what the probes
    measured); `trial_notes` gives each outcome's note numbers, by position."""
    places: dict[tuple[str, str], None] = {}
    # (test id, name, labels) -> (test name, tool, unit, better)
    rows: dict[tuple[str, str, tuple[tuple[str, str], ...]], tuple[str, Tool, str, Better]] = {}
    values: dict[tuple[object, ...], list[tuple[float, str]]] = {}
    failed: dict[tuple[str, str, str], int] = {}
    notes: dict[tuple[str, str, str], set[int]] = {}
    tests: dict[str, tuple[str, Tool]] = {}
    for outcome, numbers in zip(outcomes, trial_notes, strict=True):
        trial = outcome.trial
        # A traffic test's flows have their own table; here only what it measured beside
        # them (the board's power during it), where it did.
        beside = trial.test.yields_flows
        if beside and (outcome.result is None or not outcome.result.measurements):
            continue
        place = (trial.path.name, trial.variant)
        places.setdefault(place, None)
        where = (trial.test.id, *place)
        tests.setdefault(trial.test.id, (trial.test.name, trial.test.tool))
        notes.setdefault(where, set()).update(numbers)
        if outcome.status is not TrialStatus.OK:
            failed[where] = failed.get(where, 0) + 1
        if outcome.result is None:
            continue  # a failed trial's figures, where it has any (a search's finished
            # cells), are kept: they were measured
        for m in outcome.result.measurements if beside else outcome.result.measured():
            row_key = (trial.test.id, m.name, m.labels)
            rows.setdefault(row_key, (trial.test.name, trial.test.tool, m.unit, m.better))
            values.setdefault((*row_key, *place), []).append((m.value, trial.key))
    columns = tuple(
        Place(path, variant, f"{path} ({variant})" if several_variants else path)
        for path, variant in places
    )
    # A test that failed everywhere still shows: as a row of failures without figures.
    for test_id, _, _ in failed:
        if not any(key[0] == test_id for key in rows):
            test_name, tool = tests[test_id]
            rows[(test_id, "(no result)", ())] = (test_name, tool, "", Better.HIGHER)
    built = []
    for (test_id, name, labels), (test_name, tool, unit, better) in rows.items():
        cells: list[MeasuredCell | None] = []
        for column in columns:
            where = (test_id, column.path, column.variant)
            found = values.get((test_id, name, labels, column.path, column.variant), [])
            if not found and where not in failed:
                cells.append(None)
                continue
            cells.append(
                MeasuredCell(
                    values=tuple(v for v, _ in found),
                    trials=tuple(k for _, k in found),
                    trials_failed=failed.get(where, 0),
                    notes=tuple(sorted(notes.get(where, ()))),
                )
            )
        built.append(
            MeasuredRow(test_id, test_name, tool, name, labels, unit, better, tuple(cells))
        )
    return columns, tuple(built)
