"""The forwarding-rate table: per test, path and variant, one row per frame size and per
direction the search's figures (NDR and PDR in packets/s, as layer-2 and wire bit/s, as
% of the link's frame-rate ceiling, the forwarding rate at the bound, the search's
trials and seconds), as people note them: "1500 byte packets - 168 Mbit/s in, 173 Mbit/s
out ~14kpps".

The figures are the trials' measurements (search/measurements.py), over repetitions as
every benchmark's are (report/measured.py: one MeasuredCell per figure, its summary and
interval); the notes come from the searches' logs (search/log.py), kept among the
trial's raw outputs: a bound the generator set, not the device, and a search that
stopped before its bounds met. A run loaded without its raw outputs has the figures
and none of those notes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from wirespeed.model import LinkModel, ModelError, TrialOutcome, TrialStatus
from wirespeed.report.measured import MeasuredCell, MeasuredRow, Place, measured_table
from wirespeed.search.log import SEARCH_ARGV0, SearchLog, from_json
from wirespeed.search.model import Goal

# Directions in the order a table shows them; any other after these, as first met.
DIRECTION_ORDER = ("up", "down", "both", "in", "out")
SEARCH_TRIALS = "search trials"
SEARCH_TIME = "search time"
# The figures of a goal G are named "G", "G L2", "G L1", "G of ceiling", "G forwarding
# rate" (search/measurements.py); a goal's own figure is the one in packets/s.
PPS = "pps"
FORWARDING_RATE = " forwarding rate"

# (code, text, trial key, detail) -> the report's note number: how the table's notes
# join the report's numbered ones (model.py's collector).
AddNote = Callable[[str, str, str, str], int]


@dataclass(frozen=True)
class SearchRun:
    """One repetition's search of a cell, as its log tells it."""

    trial: str  # Trial.key
    repetition: int
    log: SearchLog


@dataclass(frozen=True)
class ForwardingCell:
    """One frame size in one direction, over the repetitions."""

    frame: int  # bytes with FCS
    direction: str
    labels: tuple[tuple[str, str], ...]  # the measurements' own labels
    figures: tuple[tuple[str, MeasuredCell], ...]  # by measurement name
    searches: tuple[SearchRun, ...]  # empty when the raw outputs were not loaded
    notes: tuple[int, ...]  # the report's Note.number of what its searches say

    def figure(self, name: str) -> MeasuredCell | None:
        return next((cell for named, cell in self.figures if named == name), None)

    def generator_limited(self, goal: str) -> bool:
        """Whether a repetition's bound for `goal` is where the generator stopped."""
        for run in self.searches:
            for result in run.log.result.goals:
                if result.goal.name == goal and result.generator_limited:
                    return True
        return False

    def at_least(self, goal: str) -> bool:
        """Whether a repetition's figure for `goal` is a lower bound only (the plan's
        max_rate or the generator stopped the search below the link's ceiling)."""
        return any(
            run.log.at_least(result)
            for run in self.searches
            for result in run.log.result.goals
            if result.goal.name == goal
        )


@dataclass(frozen=True)
class ForwardingRow:
    frame: int
    cells: tuple[ForwardingCell | None, ...]  # one per ForwardingTable.directions


@dataclass(frozen=True)
class ForwardingTable:
    test_id: str
    test_name: str
    place: Place
    link: LinkModel | None
    goals: tuple[str, ...]  # "NDR", "PDR": the first is the table's main figure
    goal_specs: tuple[Goal, ...]  # as the logs define them (none without logs)
    directions: tuple[str, ...]
    rows: tuple[ForwardingRow, ...]  # frame sizes ascending
    trials_ok: int
    trials_failed: int
    notes: tuple[int, ...]  # the trials' own notes (a failure, a tool's warning)

    @property
    def cells(self) -> tuple[ForwardingCell, ...]:
        return tuple(cell for row in self.rows for cell in row.cells if cell is not None)

    @property
    def has_ceiling(self) -> bool:
        """Whether the link has a frame-rate ceiling: no % of it on an unshaped link."""
        main = self.goals[0] if self.goals else ""
        return any(cell.figure(f"{main} of ceiling") for cell in self.cells)


def _frame_of(labels: tuple[tuple[str, str], ...]) -> tuple[int, str] | None:
    found = dict(labels)
    frame, direction = found.get("frame", ""), found.get("direction")
    digits = frame.removesuffix(" B")
    if direction is None or not digits.isdigit():
        return None
    return int(digits), direction


def _direction_rank(direction: str) -> int:
    return (
        DIRECTION_ORDER.index(direction) if direction in DIRECTION_ORDER else len(DIRECTION_ORDER)
    )


def search_logs(outcome: TrialOutcome) -> list[SearchLog | ModelError]:
    """The trial's search logs in the order run; an unreadable one as its error."""
    found: list[SearchLog | ModelError] = []
    for raw in outcome.raw:
        if raw.argv[:1] != (SEARCH_ARGV0,) or raw.format != "json" or not raw.text:
            continue
        try:
            found.append(from_json(raw.text))
        except ModelError as error:
            found.append(error)
    return found


def _goal_names(rows: Sequence[MeasuredRow], logs: Sequence[SearchLog]) -> tuple[str, ...]:
    if logs:
        return tuple(dict.fromkeys(g.goal.name for log in logs for g in log.result.goals))
    return tuple(
        dict.fromkeys(
            row.name for row in rows if row.unit == PPS and not row.name.endswith(FORWARDING_RATE)
        )
    )


def _count(value: float) -> str:
    return f"{value:,.0f}"


def _search_notes(
    frame: int, direction: str, runs: Sequence[SearchRun], add_note: AddNote
) -> set[int]:
    """What a cell's searches say beside their figures."""
    where = f"{frame} B {direction}"
    found: set[int] = set()
    limited = [
        (run, result)
        for run in runs
        for result in run.log.result.goals
        if result.generator_limited and result.lower is not None
    ]
    if limited:
        offered = [
            run.log.result.generator_ceiling
            if run.log.result.generator_ceiling is not None
            else max((t.offered for t in run.log.result.trials), default=0.0)
            for run, _ in limited
        ]
        least = min(result.lower for _, result in limited if result.lower is not None)
        text = (
            f"{where}: generator-limited: the generator offered at most {_count(max(offered))} "
            f"pps; the device forwards at least {_count(least)} pps, maybe more: the figure "
            "is the generator's limit, not the device's"
        )
        for run, _ in limited:
            found.add(add_note("generator-limited", text, run.trial, ""))
    capped = [
        (run, result)
        for run in runs
        for result in run.log.result.goals
        if run.log.at_least(result) and not result.generator_limited
    ]
    if capped:
        top = max(result.lower for _, result in capped if result.lower is not None)
        text = (
            f"{where}: a lower bound: nothing up to {_count(top)} pps, the highest load the "
            "search may try (max_rate), lost more than its goal allows; the device forwards "
            "at least that, maybe more"
        )
        for run, _ in capped:
            found.add(add_note("lower-bound", text, run.trial, ""))
    for run in runs:
        result = run.log.result
        open_goals = [g for g in result.goals if not g.converged]
        if result.stopped is None and not open_goals:
            continue
        bounds = ", ".join(
            f"{g.goal.name} {_count(g.lower) if g.lower is not None else '?'}"
            f"\N{EN DASH}{_count(g.upper) if g.upper is not None else '?'} pps"
            for g in open_goals
        )
        why = result.stopped or "its bounds are further apart than its goals ask"
        text = (
            f"{where}: the search stopped before converging: its figure is a lower bound "
            "further from the upper one than the goal asks"
        )
        detail = f"repetition {run.repetition}: {why}" + (f"; {bounds}" if bounds else "")
        found.add(add_note("not-converged", text, run.trial, detail))
    for run in runs:
        for goal in run.log.result.goals:
            if goal.lower is None and goal.upper is not None:
                text = (
                    f"{where}: even the lowest load lost more than {goal.goal.name} allows: "
                    f"no {goal.goal.name} to state"
                )
                found.add(add_note("no-throughput", text, run.trial, ""))
    return found


def forwarding_tables(
    outcomes: Sequence[TrialOutcome],
    trial_notes: Sequence[set[int]],
    several_variants: bool,
    add_note: AddNote,
    links: Mapping[tuple[str, str], LinkModel | None],
) -> tuple[ForwardingTable, ...]:
    """The tables of the forwarding tests among `outcomes` (trial_notes by position),
    one per test, path and variant in the order first run; `links` the link of each
    (path, variant) as its trials had it (a variant's MTU)."""
    chosen = [
        (outcome, numbers)
        for outcome, numbers in zip(outcomes, trial_notes, strict=True)
        if outcome.trial.test.tool.searches
    ]
    if not chosen:
        return ()
    places, rows = measured_table([o for o, _ in chosen], [n for _, n in chosen], several_variants)
    place_at = {(p.path, p.variant): i for i, p in enumerate(places)}
    tables = []
    keys = dict.fromkeys((o.trial.test.id, o.trial.path.name, o.trial.variant) for o, _ in chosen)
    for test_id, path, variant in keys:
        mine = [
            (o, n)
            for o, n in chosen
            if (o.trial.test.id, o.trial.path.name, o.trial.variant) == (test_id, path, variant)
        ]
        first = mine[0][0].trial
        column = place_at[(path, variant)]
        figures: dict[tuple[int, str], dict[str, MeasuredCell]] = {}
        labels_of: dict[tuple[int, str], tuple[tuple[str, str], ...]] = {}
        own_rows = [row for row in rows if row.test_id == test_id]
        for row in own_rows:
            cell_key = _frame_of(row.labels)
            measured = row.cells[column]
            if cell_key is None or measured is None or not measured.values:
                continue
            figures.setdefault(cell_key, {})[row.name] = measured
            labels_of.setdefault(cell_key, row.labels)
        runs: dict[tuple[int, str], list[SearchRun]] = {}
        logs: list[SearchLog] = []
        for outcome, _ in mine:
            # A failed trial's finished searches are kept and shown: they were measured.
            for log in search_logs(outcome):
                if isinstance(log, ModelError):
                    add_note(
                        "unreadable-search-log",
                        f"a search log unread: {log}",
                        outcome.trial.key,
                        "",
                    )
                    continue
                logs.append(log)
                run = SearchRun(outcome.trial.key, outcome.trial.repetition, log)
                runs.setdefault((log.frame, log.direction), []).append(run)
        cell_keys = list(dict.fromkeys([*figures, *runs]))
        directions = tuple(
            sorted(
                dict.fromkeys(d for _, d in cell_keys),
                key=lambda d: (_direction_rank(d), [k[1] for k in cell_keys].index(d)),
            )
        )
        cells: dict[tuple[int, str], ForwardingCell] = {}
        for frame, direction in cell_keys:
            searched = runs.get((frame, direction), [])
            notes = _search_notes(frame, direction, searched, add_note)
            cells[(frame, direction)] = ForwardingCell(
                frame=frame,
                direction=direction,
                labels=labels_of.get((frame, direction), ()),
                figures=tuple(figures.get((frame, direction), {}).items()),
                searches=tuple(searched),
                notes=tuple(sorted(notes)),
            )
        frames = sorted({frame for frame, _ in cell_keys})
        specs = tuple({g.goal.name: g.goal for log in logs for g in log.result.goals}.values())
        tables.append(
            ForwardingTable(
                test_id=test_id,
                test_name=first.test.name,
                place=places[column],
                link=links.get((path, variant), first.path.link),
                goals=_goal_names(own_rows, logs),
                goal_specs=specs,
                directions=directions,
                rows=tuple(
                    ForwardingRow(frame, tuple(cells.get((frame, d)) for d in directions))
                    for frame in frames
                ),
                trials_ok=sum(1 for o, _ in mine if o.status is TrialStatus.OK),
                trials_failed=sum(1 for o, _ in mine if o.status is not TrialStatus.OK),
                notes=tuple(sorted({number for _, numbers in mine for number in numbers})),
            )
        )
    return tuple(tables)
