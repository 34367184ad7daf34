"""The A/B table of a run with several variants: each variant against the first.

Rows are tests (per path when the run has several, per flow for tests with two), columns
the variants, each cell the median goodput with its spread and, beside the first column,
the difference to it in percent with the verdict of analysis/compare.py. When the
variants differ in MTU, MTU becomes a row dimension instead: the seed's table of MTU 1500
and 512 by default and tuned, where variants with the same settings apart from the MTU
share a column and every difference is taken at the same MTU.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from wirespeed.analysis.compare import (
    ComparedCell,
    Group,
    Verdict,
    compare_variants,
    goodput_groups,
)
from wirespeed.analysis.stats import Summary, summarize
from wirespeed.model import Flow
from wirespeed.report.model import Report
from wirespeed.report.text import ARROWS, DASH, mbit_text, spread_text
from wirespeed.store.records import RunRecord

MIN_TESTED = 3  # fewer repetitions a side, and the difference is shown but not judged
AB_LEGEND = (
    "Mbit/s: median goodput over the repetitions (\N{PLUS-MINUS SIGN} the farther end of its "
    "95 % interval); %: the median against the first column's at the same MTU; "
    "significant: a permutation test (Welch's t-test from 20 repetitions a side; p < 0.05) "
    "and the ratio's 95 % interval agree that "
    "the variants differ; too few to test: so few repetitions that no difference could "
    "reach p < 0.05 (4 a side at least, `wirespeed run --repeat 5`)."
)


@dataclass(frozen=True)
class AbCell:
    variant: str
    summary: Summary | None
    compared: ComparedCell | None = None  # None in the first column


@dataclass(frozen=True)
class AbRow:
    test_id: str
    test_name: str
    path: str
    mtu: int | None  # set when MTU is a dimension of the variants
    flow: Flow
    two_flows: bool
    cells: tuple[AbCell | None, ...]  # one per AbTable.columns; None: not run there

    @property
    def label(self) -> str:
        arrow = f" {ARROWS[self.flow]}" if self.two_flows else ""
        return f"{self.test_id} {self.test_name}{arrow}"


@dataclass(frozen=True)
class AbTable:
    columns: tuple[str, ...]  # the first variant of each column
    rows: tuple[AbRow, ...]
    by_mtu: bool  # rows per MTU
    several_paths: bool

    @property
    def baseline(self) -> str:
        return self.columns[0]


def record_of(report: Report) -> RunRecord:
    """The run as the analyses take it."""
    return RunRecord(
        id=report.run_id,
        info=report.info,
        status=report.status,
        finished_at=report.finished_at,
        outcomes=tuple(detail.outcome for detail in report.trials),
    )


def _states(report: Report) -> Mapping[str, Mapping[str, object]]:
    """What each variant set, as the runner recorded it; {} for runs without it."""
    found = report.info.provenance.get("variants")
    if not isinstance(found, Mapping):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, Mapping)}


def build_ab(report: Report) -> AbTable | None:
    """The A/B table, or None when the run has fewer than two variants or no traffic
    test."""
    outcomes = [detail.outcome for detail in report.trials]
    variants = list(dict.fromkeys(o.trial.variant for o in outcomes))
    if len(variants) < 2:
        return None
    states = _states(report)

    def mtu_of(variant: str) -> int | None:
        mtu = states.get(variant, {}).get("mtu")
        return mtu if isinstance(mtu, int) else None

    by_mtu = len({mtu_of(v) for v in variants}) > 1

    def profile(variant: str) -> str:
        if not by_mtu:
            return variant
        rest = {k: v for k, v in states.get(variant, {}).items() if k != "mtu"}
        return repr(sorted((k, repr(v)) for k, v in rest.items()))

    columns: dict[str, str] = {}  # profile -> label (its first variant)
    for variant in variants:
        columns.setdefault(profile(variant), variant)
    profiles = list(columns)
    links = {o.trial.path.name: o.trial.path.link for o in outcomes}

    def row_mtu(variant: str, path: str) -> int | None:
        if not by_mtu:
            return None
        link = links.get(path)
        return mtu_of(variant) or (link.mtu if link is not None else None)

    record = record_of(report)
    groups = goodput_groups(record)
    # (test, path, mtu, flow) -> profile -> group, in run order
    table: dict[tuple[str, str, int | None, Flow], dict[str, Group]] = {}
    names: dict[str, str] = {}
    for group in groups:
        key = (group.test_id, group.path, row_mtu(group.variant, group.path), group.flow)
        table.setdefault(key, {}).setdefault(profile(group.variant), group)
        names[group.test_id] = group.test_name
    flows_of: dict[str, set[Flow]] = {}
    for test_id, _, _, flow in table:
        flows_of.setdefault(test_id, set()).add(flow)
    # Rows grouped by test, then path, then MTU as the run met them, up before down.
    first_seen: dict[tuple[object, ...], int] = {}
    for key in table:
        for depth in (1, 2, 3):
            first_seen.setdefault(key[:depth], len(first_seen))
    keys = sorted(
        table,
        key=lambda k: (
            first_seen[k[:1]],
            first_seen[k[:2]],
            first_seen[k[:3]],
            k[3] is not Flow.UP,
        ),
    )

    comparisons: dict[tuple[str, str], dict[tuple[str, str, Flow], ComparedCell]] = {}

    def compared(a: str, b: str, key: tuple[str, str, int | None, Flow]) -> ComparedCell | None:
        if (a, b) not in comparisons:
            done = compare_variants(record, a, b)
            comparisons[(a, b)] = {(c.test_id, c.path or "", c.flow): c for c in done.cells}
        return comparisons[(a, b)].get((key[0], key[1], key[3]))

    rows = []
    for key in keys:
        here = table[key]
        base = here.get(profiles[0])
        cells: list[AbCell | None] = []
        for index, name in enumerate(profiles):
            found = here.get(name)
            if found is None:
                cells.append(None)
                continue
            summary = summarize(found.values_bps) if found.values_bps else None
            against = None
            if index > 0 and base is not None:
                against = compared(base.variant, found.variant, key)
            cells.append(AbCell(found.variant, summary, against))
        rows.append(
            AbRow(
                test_id=key[0],
                test_name=names[key[0]],
                path=key[1],
                mtu=key[2],
                flow=key[3],
                two_flows=len(flows_of[key[0]]) > 1,
                cells=tuple(cells),
            )
        )
    if not rows:
        return None  # its variants ran benchmarks or searches only: report/ab_measured.py
    several_paths = len({row.path for row in rows}) > 1
    return AbTable(tuple(columns.values()), tuple(rows), by_mtu, several_paths)


def verdict_text(cell: ComparedCell) -> str:
    """'significant', 'not significant', 'single run', or why there is no verdict."""
    if cell.verdict in (Verdict.ONLY_A, Verdict.ONLY_B):
        return "nothing to compare"
    if cell.verdict is Verdict.NO_RATIO:
        return "no ratio (0 in the first column)"
    n = min(cell.a.n if cell.a else 0, cell.b.n if cell.b else 0)
    if n == 1:
        return "single run"
    if n < MIN_TESTED or cell.too_few_repetitions:
        # Three a side cannot reach p < 0.05 at all: "not significant" would mislead.
        return f"n={n}: too few to test"
    return cell.verdict.value


def delta_text(cell: ComparedCell) -> str:
    """'+12.3 %, significant'."""
    if cell.ratio is None:
        return verdict_text(cell)
    return f"{(cell.ratio - 1) * 100:+.1f} %, {verdict_text(cell)}"


def figure_text(summary: Summary | None) -> str:
    if summary is None:
        return DASH
    if summary.n == 1:
        return mbit_text(summary.median)
    return f"{spread_text(summary)} (n={summary.n})"


def ab_cell_lines(cell: AbCell | None) -> list[str]:
    """A cell as lines: the figure, then the difference to the first column."""
    if cell is None:
        return [""]
    lines = [figure_text(cell.summary)]
    if cell.compared is not None:
        lines.append(delta_text(cell.compared))
    return lines


def ab_title(table: AbTable) -> str:
    return f"Variants against {table.baseline}" + (" at each MTU" if table.by_mtu else "")


def ab_header(table: AbTable) -> list[str]:
    head = ["Test"]
    if table.several_paths:
        head.append("Path")
    if table.by_mtu:
        head.append("MTU")
    return head + list(table.columns)


def ab_row_lead(table: AbTable, row: AbRow) -> list[str]:
    lead = [row.label]
    if table.several_paths:
        lead.append(row.path)
    if table.by_mtu:
        lead.append(str(row.mtu) if row.mtu is not None else DASH)
    return lead
