"""The report's numbered notes, each distinct one numbered at first sight: why a trial
failed, what a tool warned about, what the numbers themselves give away (a sender-side
figure, loss >= 99.5 %, a figure above the ceiling), what the analysis found, what a
cell's repetitions say together (unstable, an outlier) and what the plan's `expect:`
came to. report/model.py collects them while it builds a report.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wirespeed.analysis.ceiling import Ceiling
from wirespeed.analysis.expectations import Judgement, judge_cell
from wirespeed.analysis.findings import hint as finding_hint
from wirespeed.analysis.findings import in_lab, label_among, restates_warning
from wirespeed.analysis.stats import OUTLIER_Z, UNSTABLE_CV, Stability
from wirespeed.expectations import Expectation, item_text, value_text
from wirespeed.model import Direction, Finding, FindingKind, TrialOutcome, TrialStatus, WarningKind
from wirespeed.report.content import (
    BUSIEST_CORE,
    CEILING_TOLERANCE,
    OF_CEILING,
    VARIATION,
    Cell,
    Measure,
    Note,
    NoteKind,
    cv_text,
)
from wirespeed.report.stored_summary import busiest_core_load, summary_fields

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


@dataclass
class _Collected:
    note: Note  # its number, kind, code, text and words; the lists below fill it
    details: list[str]
    trials: list[str]
    values: list[float]


class Notes:
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


def outcome_notes(outcome: TrialOutcome, ceiling: Ceiling | None, notes: Notes) -> set[int]:
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


def repetition_notes(
    cell: Cell, where: str, notes: Notes, per_trial: dict[str, set[int]]
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


def expectation_notes(
    cell: Cell, where: str, keys: Sequence[str], notes: Notes, per_trial: dict[str, set[int]]
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
    notes: Notes,
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


def judge_measured(
    outcomes: Sequence[TrialOutcome],
    expected_of: Callable[[str, str, str], tuple[Expectation, ...]],
    notes: Notes,
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
