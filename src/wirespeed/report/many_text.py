"""A comparison's cells in words (`wirespeed compare`, a run's variants, a card's A/B):
each cell's median, its change against the first column's with a mark, and the legend
that says what the marks mean. Every format of a comparison writes its cells with these.
"""

from __future__ import annotations

from wirespeed.analysis.compare_many import ManyCell, ManyRow, Verdict
from wirespeed.report.budgets import Budget, budgets_text
from wirespeed.report.measure_text import summary_text

MARKS = {Verdict.SIGNIFICANT: "*", Verdict.NOT_SIGNIFICANT: "~"}
LEGEND = (
    "Each cell: the median of the column's repetitions (\N{PLUS-MINUS SIGN} the farther end "
    "of its 95 % interval), and its change against the first column's. "
    "* the repetitions show a difference (permutation test and the ratio's interval agree); "
    "~ not significant: the repetitions cannot tell it from noise (3 a side or fewer never "
    "can: repeat 4 or more times); "
    "no mark: one side has a single repetition, no test is possible."
)


def percent_text(cell: ManyCell) -> str:
    if cell.percent is None:
        if cell.verdict is Verdict.NO_RATIO:
            return "no ratio"
        # A test without a ratio: a soak's outage rate against one of none.
        mark = MARKS.get(cell.verdict, "") if cell.verdict is not None else ""
        return f"no ratio{mark}" if mark else ""
    sign = "+" if cell.percent >= 0 else "\N{MINUS SIGN}"
    mark = MARKS.get(cell.verdict, "") if cell.verdict is not None else ""
    return f"{sign}{abs(cell.percent):.1f} %{mark}"


def said_as(row: ManyRow, budgets: tuple[Budget, ...]) -> bool:
    """Whether `--as` says this row's figures again: a goodput's, in bit/s."""
    return bool(budgets) and row.name == "goodput" and row.unit == "bit/s"


def cell_lines(row: ManyRow, cell: ManyCell | None, budgets: tuple[Budget, ...] = ()) -> list[str]:
    if cell is None:
        return ["\N{EN DASH}"]
    lines = [summary_text(cell.summary, row.unit)]
    if said_as(row, budgets):
        lines.append(budgets_text(budgets, cell.summary.median))
    change = percent_text(cell)
    if change:
        lines.append(change)
    if cell.not_comparable is not None:
        lines.append(f"not comparable: {cell.not_comparable}")
    return lines


def row_label(row: ManyRow) -> str:
    """The row's test, measurement and which way is better: "fwd NDR 64 B, up ↑"."""
    arrow = "\N{UPWARDS ARROW}" if row.better.value == "higher" else "\N{DOWNWARDS ARROW}"
    return f"{row.test_id} {row.item} {arrow}"
