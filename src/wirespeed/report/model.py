"""One report model built from a stored run; every export renders from it.

The table has tests as rows and paths (x variants) as columns, like the tables people make
by hand. A cell holds, per flow, the median goodput over repetitions with its spread
(analysis.stats) and the physical ceiling beside it, and refers to numbered notes: why a
trial failed, what a tool warned about, what the numbers themselves give away (a
sender-side figure, loss >= 99.5 %), and what the repetitions say together (unstable,
an outlier).
"""

from __future__ import annotations

import dataclasses
import enum
import statistics
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property

from wirespeed.analysis.ceiling import Ceiling, ceiling_for
from wirespeed.analysis.expectations import Judgement, Verdict, judge_cell, overall
from wirespeed.analysis.findings import (
    IMPOSSIBLE_FRACTION,
    in_lab,
    label_among,
    restates_warning,
)
from wirespeed.analysis.findings import hint as finding_hint
from wirespeed.analysis.stats import OUTLIER_Z, UNSTABLE_CV, Stability, Summary, summarize
from wirespeed.expectations import (
    Expectation,
    StoredExpectationsError,
    TestExpectations,
    decode,
    item_text,
    value_text,
)
from wirespeed.model import (
    Direction,
    DirectionResult,
    Finding,
    FindingKind,
    Flow,
    LinkModel,
    Proto,
    Tool,
    TrialOutcome,
    TrialStatus,
    WarningKind,
)
from wirespeed.report.budgets import Budget
from wirespeed.report.forwarding import ForwardingTable, forwarding_tables
from wirespeed.report.measured import MeasuredRow, Place, measured_table
from wirespeed.report.stored_summary import busiest_core_load, summary_fields
from wirespeed.store.gc_pause import gc_paused
from wirespeed.store.records import PackedDirection, RunInfo, RunRecord, RunStatus

# What each tool warning means for the figure it qualifies, said for a reader.
WARNING_HINTS: dict[WarningKind, str] = {
    WarningKind.NO_SERVER_REPORT: (
        "no server report: receiver-side goodput and loss unknown, the figure is the sender's rate"
    ),
    WarningKind.ACK_OF_LAST_DATAGRAM: (
        "the server never acknowledged the last datagram: its report may be missing"
    ),
    WarningKind.LOSS_SATURATED: (
        "loss >= 99.5 % (iperf prints 1e+02%): the receiver got almost nothing; "
        "the loss shown is computed from the counters"
    ),
    WarningKind.IMPLAUSIBLE_COUNTERS: (
        "counters that cannot be true (more received than sent, or lost > total): "
        "the figure is suspect"
    ),
    WarningKind.WINDOW_ADJUSTED: "the kernel gave another socket buffer than requested",
    WarningKind.FRAGMENTED: (
        "datagrams larger than MTU - 28 are IP-fragmented: the ceiling counts every "
        "fragment's headers"
    ),
    WarningKind.CONNECT_FAILED: (
        "a connection failed: nothing listened at the server's address and port, or a "
        "route or firewall between them stopped it"
    ),
    WarningKind.TRUNCATED: "the output ended before the final summary",
    WarningKind.TOOL_ERROR: "the tool reported an error",
    WarningKind.TIMED_BY_THE_WIRE: (
        "the receiver timed the flow short (iperf2 takes many streams late): the goodput "
        "is its bytes over the time the receiving interface saw them arrive"
    ),
    WarningKind.OTHER: "the tool printed a warning",
}
SENDER_SIDE_HINT = (
    "receiver-side goodput unknown: the figure is the sender's rate, which counts lost data"
)
# A dual test's (iperf2 -d): its server opens the reverse connection back to the client.
DUAL_CONNECT_HINT = (
    "a connection failed (iperf2 -d: the server connects back to the client, which NAT "
    "and firewalls block; bidir works through them)"
)
ABOVE_CEILING_HINT = (
    "above the physical ceiling: the link is faster than the plan says, or the figure is wrong"
)
INTERVAL_RAISED_HINT = (
    "the device sampled less often than asked: it cannot wait a fraction of a second "
    "(busybox built without fractional sleep, as OpenWrt ships it)"
)
# In a summary's JSON when the interval asked for was kept: most are, and they need not
# be decoded to tell (a summary the check misses is decoded, never misread).
_INTERVAL_KEPT = '"requested_interval_s": null'
MISSING_FLOW_HINT = "a direction has no result in some trials (not measured or not reported)"
UNSTABLE_HINT = (
    f"the standard deviation is more than {UNSTABLE_CV * 100:.0f} % of the mean: the result may be "
    "unstable; look for what else ran (CPU load, throttling, other traffic) and repeat"
)
OUTLIER_HINT = (
    f"an outlier: a repetition more than {OUTLIER_Z} robust deviations from the median; "
    "something disturbed it, or the device has two states (check that trial's raw output)"
)
SATURATED_LOSS = 99.5  # iperf rounds anything above to 1e+02%
# A figure above the ceiling by more than the IMPOSSIBLE finding's margin (clocks and
# rounding: 1 % is not news) is noted: the same margin, judged in analysis/findings.py.
CEILING_TOLERANCE = IMPOSSIBLE_FRACTION


def cv_text(cv: float) -> str:
    """'CV 0.1 %', and 'CV 0.03 %' rather than a steady link's 'CV 0.0 %'."""
    percent = cv * 100
    return f"CV {percent:.2f} %" if percent < 0.1 else f"CV {percent:.1f} %"


class NoteKind(enum.StrEnum):
    FAILURE = "failure"
    WARNING = "warning"
    FINDING = "finding"  # a verdict of analysis/findings.py
    EXPECTATION = "expectation"  # what a test had to reach (`expect:`), met or not


@dataclass(frozen=True)
class DeviceLoad:
    """What the DUT's CPU did during a cell's trials (median over its repetitions)."""

    busiest_cpu: int
    busy_pct: float
    softirq_pct: float  # of the busiest core's time
    temperature_max_c: float | None
    n: int  # repetitions with samples


@dataclass(frozen=True)
class Measure:
    """What a note's figures measure, for saying their range once ('98.2-100.0 % of the
    ceiling') instead of one message per cell."""

    unit: str  # after the figures: "% of the ceiling"
    digits: int  # decimals of each figure
    before: str = ""  # before them: "CV "
    # Whether the figure is all that each message says ("941.2 Mbit/s is 99.9 % of the
    # ceiling"); else one message alone is worth showing beside the range.
    says_all: bool = False


OF_CEILING = Measure("% of the ceiling", 1, says_all=True)
BUSIEST_CORE = Measure("% busy on the busiest core", 0)
VARIATION = Measure("%", 1, before="CV ")


@dataclass(frozen=True)
class Note:
    """A numbered footnote: one failure reason or one kind of warning, with its trials."""

    number: int
    kind: NoteKind
    code: str  # "failed", a WarningKind value, "sender-side", "above-ceiling", ...
    text: str
    details: tuple[str, ...]  # the tool's own words, each distinct message once
    trials: tuple[str, ...]  # Trial.key of each trial it concerns
    # For the reports people read (report/note_text.py); the JSON export keeps the
    # fields above. A finding's label ("line rate reached") and what to do about it,
    # apart; and the figure each cell or trial gave (`measure`), said as their range.
    label: str = ""
    advice: str = ""
    measure: Measure | None = None
    values: tuple[float, ...] = ()


@dataclass(frozen=True)
class Column:
    path: str
    variant: str
    label: str  # "WAN", or "WAN (irq-a72)" when the run has several variants
    link: LinkModel | None


@dataclass(frozen=True)
class FlowFigure:
    """One flow of one cell over its repetitions."""

    flow: Flow
    values_bps: tuple[float, ...]  # goodput of each repetition that measured this flow
    ceiling: Ceiling | None
    loss_percents: tuple[float, ...] = ()  # UDP: each repetition's loss from the counters
    trials: tuple[str, ...] = ()  # Trial.key of each value, in the same order

    @property
    def n(self) -> int:
        return len(self.values_bps)

    @cached_property
    def summary(self) -> Summary | None:
        """Median, mean ± sd, interval, CV and outliers; computed once (the bootstrap)."""
        return summarize(self.values_bps) if self.values_bps else None

    @property
    def outlier_trials(self) -> tuple[str, ...]:
        summary = self.summary
        if summary is None or not self.trials:
            return ()
        return tuple(self.trials[i] for i in summary.outliers)

    @property
    def goodput_bps(self) -> float | None:
        return statistics.median(self.values_bps) if self.values_bps else None

    @property
    def above_ceiling(self) -> bool:
        """Whether the median is above what the link can carry: a figure that cannot be
        true, whatever else says of it (ABOVE_CEILING_HINT)."""
        goodput, ceiling = self.goodput_bps, self.ceiling
        if goodput is None or ceiling is None:
            return False
        return goodput > ceiling.bits_per_second * CEILING_TOLERANCE

    @property
    def loss_percent(self) -> float | None:
        return statistics.median(self.loss_percents) if self.loss_percents else None


@dataclass(frozen=True)
class Cell:
    flows: tuple[FlowFigure, ...]
    trials_ok: int
    trials_failed: int
    notes: tuple[int, ...]  # Note.number, ascending
    device: DeviceLoad | None = None
    # The plan's expectations of this cell, each judged on each flow it concerns.
    judgements: tuple[Judgement, ...] = ()

    @property
    def n(self) -> int:
        return max((f.n for f in self.flows), default=0)

    @property
    def verdict(self) -> Verdict | None:
        """The worst of the cell's judgements; None when nothing was expected of it."""
        return overall(j.verdict for j in self.judgements)


@dataclass(frozen=True)
class Row:
    test_id: str
    test_name: str
    tool: Tool
    protocol: Proto
    direction: Direction
    cells: tuple[Cell | None, ...]  # one per Report.columns; None: not run on that column


@dataclass(frozen=True)
class TrialDetail:
    """One trial as it ran: the source of the CSV and JSON per-trial records."""

    outcome: TrialOutcome
    ceiling: Ceiling | None
    notes: tuple[int, ...]

    def direction(self, flow: Flow) -> DirectionResult | None:
        result = self.outcome.result
        return None if result is None else result.direction(flow)


def flows_of(detail: TrialDetail) -> tuple[Flow, ...]:
    """The flows the test asked for, then any other the result holds."""
    wanted = detail.outcome.trial.test.spec.flows
    result = detail.outcome.result
    extra = () if result is None else tuple(d.flow for d in result.directions)
    return tuple(dict.fromkeys(wanted + extra))


@dataclass(frozen=True)
class Report:
    run_id: int
    info: RunInfo
    status: RunStatus
    finished_at: float | None
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    notes: tuple[Note, ...]
    trials: tuple[TrialDetail, ...]
    # The trials' interval series as the store keeps them, when the run was loaded with
    # Store.load_run(intervals="packed") (RunRecord.packed); None: the outcomes' own.
    packed: tuple[tuple[PackedDirection, ...], ...] | None = None
    # `--as`: each goodput also said as what an application needs (report/budgets.py).
    budgets: tuple[Budget, ...] = ()
    # The benchmarks' measurements (openssl speed, 7-zip ...): one row per test and
    # measurement, one column per place their trials ran (report/measured.py).
    measured_columns: tuple[Place, ...] = ()
    measured: tuple[MeasuredRow, ...] = ()
    # The forwarding-rate searches: a table per test, path and variant, frame sizes down
    # (report/forwarding.py); their measurements are not in `measured`.
    forwarding: tuple[ForwardingTable, ...] = ()
    # What the plan expects of the benchmarks and searches (theirs have no table cell),
    # judged per test, path and variant.
    measured_judgements: tuple[Judgement, ...] = ()

    @property
    def title(self) -> str:
        return self.info.title or f"wirespeed run {self.run_id}"

    @property
    def has_traffic_table(self) -> bool:
        """Whether the traffic tests' table shows: when there are any, or nothing else."""
        return bool(self.rows) or not (self.measured or self.forwarding)

    @property
    def judgements(self) -> tuple[Judgement, ...]:
        in_table = (j for row in self.rows for cell in row.cells if cell for j in cell.judgements)
        return (*in_table, *self.measured_judgements)

    @property
    def verdict(self) -> Verdict | None:
        """Whether the run reached what its plan expects: the worst of every judgement;
        None when the plan expects nothing."""
        return overall(j.verdict for j in self.judgements)

    def packed_series(self, trial: int, direction: DirectionResult) -> PackedDirection | None:
        """The packed series of one of the directions of trial number `trial`; None when
        the series are the outcomes' own."""
        result = self.trials[trial].outcome.result
        if self.packed is None or result is None:
            return None
        index = next(i for i, d in enumerate(result.directions) if d is direction)
        return self.packed[trial][index]


@dataclass
class _Collected:
    note: Note  # its number, kind, code, text and words; the lists below fill it
    details: list[str]
    trials: list[str]
    values: list[float]


class _Notes:
    """Collects notes, numbering each distinct one at first sight."""

    def __init__(self) -> None:
        self._by_key: dict[tuple[str, str], int] = {}
        self._items: list[_Collected] = []

    def add(
        self,
        kind: NoteKind,
        code: str,
        text: str,
        trial: str,
        detail: str = "",
        *,
        label: str = "",
        advice: str = "",
        value: tuple[Measure, float] | None = None,
    ) -> int:
        key = (code, text)
        if key not in self._by_key:
            measure = None if value is None else value[0]
            note = Note(len(self._items) + 1, kind, code, text, (), (), label, advice, measure)
            self._items.append(_Collected(note, [], [], []))
            self._by_key[key] = len(self._items)
        number = self._by_key[key]
        item = self._items[number - 1]
        if detail and detail not in item.details:
            item.details.append(detail)
        if trial not in item.trials:
            item.trials.append(trial)
        if value is not None and value[0] == item.note.measure:
            item.values.append(value[1])
        return number

    def build(self) -> tuple[Note, ...]:
        return tuple(
            dataclasses.replace(
                item.note,
                details=tuple(item.details),
                trials=tuple(item.trials),
                values=tuple(item.values),
            )
            for item in self._items
        )


def _finding_value(
    outcome: TrialOutcome, finding: Finding, ceiling: Ceiling | None
) -> tuple[Measure, float] | None:
    """The figure a finding rests on, for its note's range: a flow's share of the
    ceiling, the busiest core's load of the host it names."""
    result = outcome.result
    if finding.kind is FindingKind.LINE_RATE and finding.flow and ceiling and result:
        direction = result.direction(finding.flow)
        if direction is not None and direction.goodput_bps is not None:
            return OF_CEILING, direction.goodput_bps / ceiling.bits_per_second * 100
    if finding.kind in (FindingKind.CPU_BOUND, FindingKind.LAB_LIMITED):
        for monitor in outcome.monitors:
            if monitor.summary and finding.message.startswith(f"{monitor.host}:"):
                load = busiest_core_load(monitor.summary)
                if load is not None:
                    return BUSIEST_CORE, load.busy_pct
    return None


def _notes_of(outcome: TrialOutcome, ceiling: Ceiling | None, notes: _Notes) -> set[int]:
    key = outcome.trial.key
    found: set[int] = set()
    if outcome.status is TrialStatus.FAILED:
        reason = outcome.reason or "no reason given"
        found.add(notes.add(NoteKind.FAILURE, "failed", f"failed: {reason}", key))
    for monitor in outcome.monitors:
        if monitor.summary and _INTERVAL_KEPT not in monitor.summary:
            fields = summary_fields(monitor.summary)
            asked = fields.get("requested_interval_s")
            if asked is not None:
                detail = f"{monitor.host}: every {fields['interval_s']:g} s, not {asked:g} s"
                code, hint = "interval-raised", INTERVAL_RAISED_HINT
                found.add(notes.add(NoteKind.WARNING, code, hint, key, detail))
    result = outcome.result
    if result is None:
        return found
    kinds = {w.kind for w in result.warnings}
    dual = outcome.trial.test.spec.direction is Direction.DUAL
    for warning in result.warnings:
        hint = WARNING_HINTS[warning.kind]
        if warning.kind is WarningKind.CONNECT_FAILED and dual:
            hint = DUAL_CONNECT_HINT
        found.add(notes.add(NoteKind.WARNING, warning.kind.value, hint, key, warning.message))
    # A benchmark and a search have measurements, no flows (report/measured.py).
    test = outcome.trial.test
    flows = () if test.options is not None else test.spec.flows
    for flow in flows:
        direction = result.direction(flow)
        if direction is None or direction.goodput_bps is None:
            found.add(notes.add(NoteKind.WARNING, "missing-flow", MISSING_FLOW_HINT, key))
            continue
        if direction.received is None and WarningKind.NO_SERVER_REPORT not in kinds:
            found.add(notes.add(NoteKind.WARNING, "sender-side", SENDER_SIDE_HINT, key))
        loss = None if direction.udp is None else direction.udp.loss_percent
        if loss is not None and loss >= SATURATED_LOSS:
            code = WarningKind.LOSS_SATURATED
            found.add(notes.add(NoteKind.WARNING, code.value, WARNING_HINTS[code], key))
        if ceiling is not None and direction.goodput_bps > ceiling.bits_per_second * (
            CEILING_TOLERANCE
        ):
            found.add(notes.add(NoteKind.WARNING, "above-ceiling", ABOVE_CEILING_HINT, key))
    emulated = in_lab(outcome)  # never advised to tune: its cores are this machine's
    for finding in outcome.findings:
        if finding.kind is FindingKind.IMPOSSIBLE or restates_warning(finding):
            continue
        label = label_among(finding, outcome.findings, flows)
        advice = finding_hint(finding.kind, emulated=emulated)
        found.add(
            notes.add(
                NoteKind.FINDING,
                finding.kind.value,
                f"{label}: {advice}",
                key,
                finding.message,
                label=label,
                advice=advice,
                value=_finding_value(outcome, finding, ceiling),
            )
        )
    return found


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


def _repetition_notes(
    cell: Cell, where: str, notes: _Notes, per_trial: dict[str, set[int]]
) -> set[int]:
    """Notes on what a cell's repetitions say together: unstable, or one far off."""
    found: set[int] = set()
    several_flows = len(cell.flows) > 1
    for figure in cell.flows:
        summary = figure.summary
        if summary is None or summary.n < 2:
            continue
        label = f"{where} {figure.flow.value}" if several_flows else where
        if summary.stability is Stability.UNSTABLE and summary.cv is not None:
            detail = f"{label}: {cv_text(summary.cv)} over {summary.n} repetitions"
            for index, key in enumerate(figure.trials):
                # One figure per cell and flow: its repetitions' variation together.
                cv = (VARIATION, summary.cv * 100) if index == 0 else None
                number = notes.add(
                    NoteKind.WARNING, "unstable", UNSTABLE_HINT, key, detail, value=cv
                )
                found.add(number)
                per_trial[key].add(number)
        for index, key in zip(summary.outliers, figure.outlier_trials, strict=True):
            detail = (
                f"{key}{f' {figure.flow.value}' if several_flows else ''}: "
                f"{summary.values[index] / 1e6:.1f} Mbit/s, median {summary.median / 1e6:.1f}"
            )
            number = notes.add(NoteKind.WARNING, "outlier", OUTLIER_HINT, key, detail)
            found.add(number)
            per_trial[key].add(number)
    return found


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


def _expectation_notes(
    cell: Cell, where: str, keys: Sequence[str], notes: _Notes, per_trial: dict[str, set[int]]
) -> set[int]:
    """A note per expectation and verdict: what was expected, what each cell measured.
    keys: the cell's trials, which a flow nothing measured concerns."""
    several_flows = len(cell.flows) > 1
    return _judgement_notes(
        cell.judgements, where, keys, notes, per_trial, several_flows=several_flows
    )


def _judgement_notes(
    judgements: Sequence[Judgement],
    where: str,
    keys: Sequence[str],
    notes: _Notes,
    per_trial: dict[str, set[int]],
    *,
    several_flows: bool = False,
) -> set[int]:
    found: set[int] = set()
    for judgement in judgements:
        verdict = judgement.verdict
        expectation = judgement.expectation
        flow = judgement.flow
        if flow is not None:
            label = f"{where} {flow.value}" if several_flows else where
        else:  # the measurement's own cell: "fwd NAT: NDR 1518 B, out"
            label = f"{where}: {item_text(expectation.name, judgement.labels)}"
        if judgement.measured is None:
            detail = f"{label}: nothing measured{judgement.set_aside_text}"
        else:
            measured = value_text(expectation.unit, judgement.measured)
            of = f", median of {judgement.n}" if judgement.n > 1 else ""
            detail = f"{label}: {measured}{of}{judgement.set_aside_text}"
        text = f"{expectation.text} expected: {verdict.value}"
        code = f"expectation-{verdict.value.replace(' ', '-')}"
        for key in judgement.trials or keys:
            number = notes.add(NoteKind.EXPECTATION, code, text, key, detail)
            found.add(number)
            per_trial[key].add(number)
    return found


def _measured_judgements(
    outcomes: Sequence[TrialOutcome],
    expected_of: Callable[[str, str, str], tuple[Expectation, ...]],
    notes: _Notes,
    per_trial: dict[str, set[int]],
) -> tuple[Judgement, ...]:
    """The expectations of the benchmarks and searches, per test, path and variant over
    its repetitions, each with its notes (the traffic tests' are their table's cells)."""
    cells: dict[tuple[str, str, str], list[TrialOutcome]] = {}
    for o in outcomes:
        if not o.trial.test.yields_flows:
            place = (o.trial.test.id, o.trial.path.name, o.trial.variant)
            cells.setdefault(place, []).append(o)
    several_variants = len({o.trial.variant for o in outcomes}) > 1
    found: list[Judgement] = []
    for (test_id, path, variant), of_cell in cells.items():
        expected = expected_of(test_id, path, variant)
        if not expected:
            continue
        judged = judge_cell(expected, of_cell)
        where = f"{test_id} {path} ({variant})" if several_variants else f"{test_id} {path}"
        keys = [o.trial.key for o in of_cell]
        _judgement_notes(judged, where, keys, notes, per_trial)
        found += judged
    return tuple(found)


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
    notes = _Notes()
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
    trial_notes = [_notes_of(o, c, notes) for o, c in zip(outcomes, ceilings, strict=True)]
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
            extra = _repetition_notes(cell, f"{test_id} {column.label}", notes, notes_by_key)
            expected = expected_of(test_id, column.path, column.variant)
            if expected:
                of_cell = [outcomes[i] for i in here]
                cell = dataclasses.replace(cell, judgements=judge_cell(expected, of_cell))
                keys = [o.trial.key for o in of_cell]
                where = f"{test_id} {column.label}"
                extra |= _expectation_notes(cell, where, keys, notes, notes_by_key)
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
    measured_judgements = _measured_judgements(outcomes, expected_of, notes, notes_by_key)
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
