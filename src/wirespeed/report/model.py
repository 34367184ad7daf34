"""One report model built from a stored run; every export renders from it.

The table has tests as rows and paths (x variants) as columns, like the tables people make
by hand. A cell holds, per flow, the median goodput over repetitions with its spread
(analysis.stats) and the physical ceiling beside it, and refers to numbered notes: why a
trial failed, what a tool warned about, what the numbers themselves give away (a
sender-side figure, loss >= 99.5 %), and what the repetitions say together (unstable,
an outlier). What a report holds is in report/content.py, its notes in report/notes.py.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence

from wirespeed.analysis.ceiling import Ceiling, ceiling_for
from wirespeed.analysis.expectations import judge_cell
from wirespeed.expectations import (
    Expectation,
    StoredExpectationsError,
    TestExpectations,
    decode,
)
from wirespeed.model import LinkModel, TrialOutcome, TrialStatus
from wirespeed.report.content import (
    Cell,
    Column,
    DeviceLoad,
    FlowFigure,
    Measure,
    Note,
    NoteKind,
    Report,
    Row,
    TrialDetail,
    cv_text,
    flows_of,
)
from wirespeed.report.forwarding import forwarding_tables
from wirespeed.report.measured import measured_table
from wirespeed.report.notes import (
    ABOVE_CEILING_HINT,
    Notes,
    expectation_notes,
    judge_measured,
    outcome_notes,
    repetition_notes,
)
from wirespeed.report.stored_summary import busiest_core_load
from wirespeed.store.gc_pause import gc_paused
from wirespeed.store.records import RunInfo, RunRecord

# What a report holds, said where it is built: most readers take them from here.
__all__ = [
    "ABOVE_CEILING_HINT",
    "Cell",
    "Column",
    "DeviceLoad",
    "FlowFigure",
    "Measure",
    "Note",
    "NoteKind",
    "Report",
    "Row",
    "TrialDetail",
    "build_report",
    "cv_text",
    "flows_of",
]


def _device_load(outcomes: list[TrialOutcome]) -> DeviceLoad | None:
    """The DUT's load over a cell's trials, from each trial's first DUT sampler."""
    loads = []
    for outcome in outcomes:
        monitor = next((m for m in outcome.monitors if m.role == "dut" and m.summary), None)
        if monitor is None:
            continue
        load = busiest_core_load(monitor.summary)
        if load is not None:
            loads.append(load)
    if not loads:
        return None
    cpus = [load.cpu for load in loads]
    temperatures = [load.temperature_max_c for load in loads if load.temperature_max_c is not None]
    return DeviceLoad(
        busiest_cpu=max(set(cpus), key=cpus.count),
        busy_pct=statistics.median(load.busy_pct for load in loads),
        softirq_pct=statistics.median(load.softirq_pct for load in loads),
        temperature_max_c=max(temperatures) if temperatures else None,
        n=len(loads),
    )


def _cell(outcomes: list[TrialOutcome], ceiling: Ceiling | None, note_numbers: set[int]) -> Cell:
    spec = outcomes[0].trial.test.spec
    ok = [o for o in outcomes if o.status is TrialStatus.OK and o.result is not None]
    flows = []
    for flow in spec.flows:
        measured = [
            (o.trial.key, d)
            for o in ok
            if o.result and (d := o.result.direction(flow)) and d.goodput_bps is not None
        ]
        values = tuple(d.goodput_bps for _, d in measured if d.goodput_bps is not None)
        losses = tuple(
            loss
            for _, d in measured
            if d.udp is not None and (loss := d.udp.loss_percent) is not None
        )
        keys = tuple(key for key, _ in measured)
        flows.append(FlowFigure(flow, values, ceiling, losses, keys))
    return Cell(
        flows=tuple(flows),
        trials_ok=len(ok),
        trials_failed=len(outcomes) - len(ok),
        notes=tuple(sorted(note_numbers)),
        device=_device_load(ok),
    )


def _first_seen(items: Iterable[tuple[str, ...]]) -> list[tuple[str, ...]]:
    return list(dict.fromkeys(items))


def _plan_expectations(info: RunInfo) -> Callable[[str, str, str], tuple[Expectation, ...]]:
    """What the run's plan expects of (test id, path, variant): as stored with the run,
    so that every report of a run (and of a run resumed) judges the same, whatever a
    later version reads in the plan. A run stored before they were (no stored
    expectations) has them read again from its stored plan; a run without a plan
    (imported), or whose plan this version refuses, expects nothing."""
    if info.expectations is not None:
        try:
            stored = decode(info.expectations)
        except StoredExpectationsError:
            stored = {}
        return _expected_of(stored)
    if info.plan_text is None:
        return lambda test, path, variant: ()
    from wirespeed.plan import PlanError, parse_plan

    try:
        plan = parse_plan(info.plan_text, source=info.plan_path or "<stored plan>")
    except PlanError:
        return lambda test, path, variant: ()
    return plan.expectations_for


def _expected_of(
    by_test: dict[str, TestExpectations],
) -> Callable[[str, str, str], tuple[Expectation, ...]]:
    def expected(test: str, path: str, variant: str) -> tuple[Expectation, ...]:
        of_test = by_test.get(test)
        return () if of_test is None else of_test.for_cell(path, variant)

    return expected


def _column_links(outcomes: Sequence[TrialOutcome]) -> dict[tuple[str, str], LinkModel | None]:
    """The link of each (path, variant) as its trials had it: a variant's MTU (mtu512) is
    set on the lab's links for its trials, so its column is at that MTU, not the path's.
    A column whose tests ran at different MTUs (each test setting its own) keeps the
    path's."""
    mtus: dict[tuple[str, str], set[int | None]] = defaultdict(set)
    links: dict[tuple[str, str], LinkModel | None] = {}
    for o in outcomes:
        place = (o.trial.path.name, o.trial.variant)
        links.setdefault(place, o.trial.path.link)
        mtus[place].add(o.trial.test.spec.mtu)
    for place, link in links.items():
        (mtu, *others) = mtus[place]
        if link is not None and mtu is not None and not others:
            links[place] = dataclasses.replace(link, mtu=mtu)
    return links


@gc_paused
def build_report(record: RunRecord) -> Report:
    notes = Notes()
    outcomes = record.outcomes
    expected_of = _plan_expectations(record.info)
    # A run's trials share a handful of tests and paths, and so their ceilings.
    ceiling_of: dict[tuple[int, int], Ceiling | None] = {}
    ceilings = []
    for o in outcomes:
        key = (id(o.trial.test), id(o.trial.path))
        if key not in ceiling_of:
            # A search's ceilings are per frame size, in its logs: no goodput ceiling.
            searches = o.trial.test.tool.searches
            ceiling_of[key] = None if searches else ceiling_for(o.trial)
        ceilings.append(ceiling_of[key])
    # By position, not by key: a resumed run may hold a key twice, each with its own notes.
    trial_notes = [outcome_notes(o, c, notes) for o, c in zip(outcomes, ceilings, strict=True)]
    # Repetition notes (unstable, outlier) name trials by key; they join those trials too.
    notes_by_key: dict[str, set[int]] = defaultdict(set)

    places = _first_seen(
        (o.trial.path.name, o.trial.variant) for o in outcomes if o.trial.test.yields_flows
    )
    several_variants = len({variant for _, variant in places}) > 1
    links = _column_links(outcomes)
    columns = tuple(
        Column(
            path=path,
            variant=variant,
            label=f"{path} ({variant})" if several_variants else path,
            link=links[(path, variant)],
        )
        for path, variant in places
    )

    # The positions of each test's trials per place, tests in the order first met.
    by_test: dict[str, dict[tuple[str, str], list[int]]] = {}
    for i, o in enumerate(outcomes):
        if not o.trial.test.yields_flows:
            continue  # a benchmark's figures are measurements: see measured_table()
        place = (o.trial.path.name, o.trial.variant)
        by_test.setdefault(o.trial.test.id, {}).setdefault(place, []).append(i)
    rows = []
    for test_id, of_test in by_test.items():
        test = outcomes[min(here[0] for here in of_test.values())].trial.test
        cells: list[Cell | None] = []
        for column in columns:
            here = of_test.get((column.path, column.variant))
            if not here:
                cells.append(None)
                continue
            numbers = {n for i in here for n in trial_notes[i]}
            cell = _cell([outcomes[i] for i in here], ceilings[here[0]], numbers)
            extra = repetition_notes(cell, f"{test_id} {column.label}", notes, notes_by_key)
            expected = expected_of(test_id, column.path, column.variant)
            if expected:
                of_cell = [outcomes[i] for i in here]
                cell = dataclasses.replace(cell, judgements=judge_cell(expected, of_cell))
                keys = [o.trial.key for o in of_cell]
                where = f"{test_id} {column.label}"
                extra |= expectation_notes(cell, where, keys, notes, notes_by_key)
            if extra:
                cell = dataclasses.replace(cell, notes=tuple(sorted(numbers | extra)))
            cells.append(cell)
        rows.append(
            Row(
                test_id=test.id,
                test_name=test.name,
                tool=test.tool,
                protocol=test.spec.protocol,
                direction=test.spec.direction,
                cells=tuple(cells),
            )
        )

    # The forwarding searches have a table of their own (report/forwarding.py).
    benchmarks = [
        (o, numbers)
        for o, numbers in zip(outcomes, trial_notes, strict=True)
        if not o.trial.test.tool.searches
    ]
    # Its places are labelled with their variant when the run has several of any test's.
    any_variants = len({o.trial.variant for o in outcomes}) > 1
    measured_columns, measured = measured_table(
        [o for o, _ in benchmarks], [numbers for _, numbers in benchmarks], any_variants
    )

    def add_search_note(code: str, text: str, trial: str, detail: str) -> int:
        number = notes.add(NoteKind.WARNING, code, text, trial, detail)
        notes_by_key[trial].add(number)
        return number

    forwarding = forwarding_tables(outcomes, trial_notes, any_variants, add_search_note, links)
    measured_judgements = judge_measured(outcomes, expected_of, notes, notes_by_key)
    details = tuple(
        TrialDetail(o, ceiling, tuple(sorted(numbers.union(notes_by_key.get(o.trial.key, ())))))
        for o, ceiling, numbers in zip(outcomes, ceilings, trial_notes, strict=True)
    )
    return Report(
        run_id=record.id,
        info=record.info,
        status=record.status,
        finished_at=record.finished_at,
        columns=columns,
        rows=tuple(rows),
        notes=notes.build(),
        trials=details,
        packed=record.packed,
        measured_columns=measured_columns,
        measured=measured,
        forwarding=forwarding,
        measured_judgements=measured_judgements,
    )
