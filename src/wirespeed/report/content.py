"""What a report holds: the traffic table (tests down, columns of paths and variants,
cells of flow figures over repetitions), the numbered notes, each trial's detail and the
tables of benchmarks and searches. report/model.py builds it from a stored run; every
format renders from it.
"""

from __future__ import annotations

import enum
import statistics
from dataclasses import dataclass

from wirespeed.analysis.ceiling import Ceiling
from wirespeed.analysis.expectations import Judgement, Verdict, overall
from wirespeed.analysis.findings import IMPOSSIBLE_FRACTION
from wirespeed.model import Direction, DirectionResult, Flow, LinkModel, Proto, Tool, TrialOutcome
from wirespeed.report.budgets import Budget
from wirespeed.report.forwarding import ForwardingTable
from wirespeed.report.measured import MeasuredRow, Place
from wirespeed.report.repetitions import Repetitions
from wirespeed.store.records import PackedDirection, RunInfo, RunStatus

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
class FlowFigure(Repetitions):
    """One flow of one cell over its repetitions."""

    flow: Flow
    values_bps: tuple[float, ...]  # goodput of each repetition that measured this flow
    ceiling: Ceiling | None
    loss_percents: tuple[float, ...] = ()  # UDP: each repetition's loss from the counters
    trials: tuple[str, ...] = ()  # Trial.key of each value, in the same order

    @property
    def repeated(self) -> tuple[float, ...]:
        return self.values_bps

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
