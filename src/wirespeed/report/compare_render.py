"""A comparison as a table people read: the terminal (rich) and Markdown.

Shaped like the seeds' "Nanopi-R4S vs Nanopi-R2S" table: tests down, A and B across,
then B/A with its verdict. A ratio is only called a difference when the repetitions
support it; otherwise the cell says "not significant", never a bare 1.02x.
"""

from __future__ import annotations

import math

from rich.console import Console
from rich.table import Table
from rich.text import Text

from wirespeed.analysis.compare import CompareBy, ComparedCell, Comparison, SideInfo, Verdict
from wirespeed.analysis.stats import ALPHA, CONFIDENCE, ConfidenceInterval, Summary
from wirespeed.model import Better, Flow
from wirespeed.report.budgets import Budget, budgets_text
from wirespeed.report.measure_text import summary_text
from wirespeed.report.terminal import plain_text
from wirespeed.report.text import (
    ARROWS,
    DASH,
    markdown_table_safe,
    markdown_text,
    mbit_text,
    spread_text,
    when,
)

TIMES = "\N{MULTIPLICATION SIGN}"
ELLIPSIS = "\N{HORIZONTAL ELLIPSIS}"
LEGEND = (
    "Mbit/s: median goodput \N{PLUS-MINUS SIGN} its distance to the farther end of its "
    f"{CONFIDENCE * 100:.0f} % bootstrap interval (n repetitions). B/A: the ratio of the medians "
    f"with its {CONFIDENCE * 100:.0f} % bootstrap interval. Significant: a two-sided permutation "
    f"test on the difference of means (exact for small groups) gives p < {ALPHA} and the "
    "interval of the ratio excludes 1; otherwise the difference is not told apart from noise."
)
LATENCY_LEGEND = (
    " Beside a probed test's flows its latency figures (docs/latency.md), each in its unit "
    "and compared alike: lower is better."
)


def legend(comparison: Comparison) -> str:
    """The legend, with a word on the latency figures where the comparison has any."""
    probed = any(cell.measure is not None for cell in comparison.cells)
    return LEGEND + LATENCY_LEGEND if probed else LEGEND


VERDICT_STYLES = {
    Verdict.SIGNIFICANT: "bold",
    Verdict.NOT_SIGNIFICANT: "dim",
    Verdict.SINGLE_RUN: "yellow",
}


def ratio_text(ratio: float, interval: ConfidenceInterval | None = None) -> str:
    """Three significant digits (10.0, 1.02, 0.100), the interval to the same place."""
    if ratio >= 100:
        digits = 0
    elif ratio <= 0:
        digits = 2
    else:
        # Decide the digits on the rounded ratio: 9.9996 reads 10.0, like 10.0004 does.
        shown = float(f"{ratio:.3g}")
        digits = min(max(2 - math.floor(math.log10(shown)), 0), 6)
    # An interval that rounds to a point hides its width: give it the digits to show it.
    while (
        interval is not None
        and digits < 4
        and (f"{interval.low:.{digits}f}" == f"{interval.high:.{digits}f}")
    ):
        digits += 1
    text = f"{ratio:.{digits}f}{TIMES}"
    if interval is not None:
        text += f" ({interval.low:.{digits}f} {ELLIPSIS} {interval.high:.{digits}f})"
    return text


def p_text(p_value: float) -> str:
    return "p < 0.001" if p_value < 0.001 else f"p = {p_value:.3f}"


def verdict_text(cell: ComparedCell) -> str:
    """'significant: 10.0x (9.8 … 10.2), p = 0.008', 'not significant (p = 0.420)' ...;
    a latency figure's significant change also says whether B is better (lower)."""
    said = _verdict_text(cell)
    if cell.measure is not None and cell.verdict is Verdict.SIGNIFICANT and cell.ratio:
        lower = cell.ratio < 1
        better = lower == (cell.better is Better.LOWER)
        said += f": B {'lower' if lower else 'higher'}, {'better' if better else 'worse'}"
    return said


def _verdict_text(cell: ComparedCell) -> str:
    if cell.verdict is Verdict.ONLY_A:
        return "only in A"
    if cell.verdict is Verdict.ONLY_B:
        return "only in B"
    if cell.verdict is Verdict.NO_RATIO:
        if cell.measure is not None:
            return "a figure of 0 or below: no ratio"
        return "A measured 0: no ratio"
    assert cell.ratio is not None
    if cell.verdict is Verdict.SINGLE_RUN:
        # In parentheses, as the seeds' author wrote a figure he did not trust: "556 (854)".
        return f"single run: no significance ({ratio_text(cell.ratio)})"
    assert cell.test is not None
    if cell.verdict is Verdict.SIGNIFICANT:
        return (
            f"significant: {ratio_text(cell.ratio, cell.ratio_interval)}, "
            f"{p_text(cell.test.p_value)}"
        )
    if cell.too_few_repetitions:
        n_a = cell.a.n if cell.a else 0
        n_b = cell.b.n if cell.b else 0
        return (
            f"not significant: {n_a} and {n_b} repetitions cannot reach p < {ALPHA} "
            "(repeat 4 or more times)"
        )
    return f"not significant ({p_text(cell.test.p_value)})"


def figure_text(
    summary: Summary | None, budgets: tuple[Budget, ...] = (), unit: str | None = None
) -> str:
    """'941', '941.2 ±0.4 (n=5)'; with `budgets` (`--as`): '941 = 29.4 Msps sc16'; a
    measurement in its `unit`: '39.30 ms', '39.3 ±0.5 ms (n=3)'."""
    if summary is None:
        return DASH
    if unit is not None:
        said = summary_text(summary, unit)
        return said if summary.n == 1 else f"{said} (n={summary.n})"
    text = (
        mbit_text(summary.median) if summary.n == 1 else f"{spread_text(summary)} (n={summary.n})"
    )
    return f"{text} {budgets_text(budgets, summary.median)}" if budgets else text


def test_text(cell: ComparedCell, with_arrow: bool) -> str:
    text = f"{cell.test_id} {cell.test_name}"
    if cell.measure is not None:
        return f"{text}: {cell.measure.item} ({cell.better.value} is better)"
    return f"{text} {ARROWS[cell.flow]}" if with_arrow else text


def _tests_with_arrows(comparison: Comparison) -> set[str]:
    """Tests whose rows need a flow arrow: those with a down flow (dual, bidir, down)."""
    return {c.test_id for c in comparison.cells if c.flow is not Flow.UP and c.measure is None}


def side_line(name: str, side: SideInfo, by: CompareBy) -> str:
    title = f", {side.run_title}" if side.run_title else ""
    if by is CompareBy.RUN:
        return f"{name}: run {side.run_id}{title}, {when(side.started_at)}"
    return f"{name}: {by.value} {side.label}"


def heading(comparison: Comparison) -> str:
    a, b = comparison.a, comparison.b
    if comparison.by is CompareBy.RUN:
        return f"Run {b.run_id} against run {a.run_id}"
    title = f" ({a.run_title})" if a.run_title else ""
    return f"{b.label} against {a.label}, {comparison.by.value}s of run {a.run_id}{title}"


def where_headers(comparison: Comparison) -> list[str]:
    """Path and variant columns, where they tell rows apart and are not what is compared."""
    headers = []
    if comparison.by is not CompareBy.PATH:
        headers.append("Path")
    variants = {c.variant for c in comparison.cells}
    if comparison.by is not CompareBy.VARIANT and variants != {"default"}:
        headers.append("Variant")
    return headers


def table_rows(comparison: Comparison, budgets: tuple[Budget, ...] = ()) -> list[list[str]]:
    """[test, where..., A, B, B/A] per compared cell."""
    headers = where_headers(comparison)
    with_arrows = _tests_with_arrows(comparison)
    rows = []
    for cell in comparison.cells:
        where = []
        if "Path" in headers:
            where.append(cell.path or "")
        if "Variant" in headers:
            where.append(cell.variant or "")
        rows.append(
            [
                test_text(cell, cell.test_id in with_arrows),
                *where,
                figure_text(cell.a, budgets, _unit(cell)),
                figure_text(cell.b, budgets, _unit(cell)),
                verdict_text(cell),
            ]
        )
    return rows


def _unit(cell: ComparedCell) -> str | None:
    """A measurement's unit; None for goodput, said in Mbit/s by the legend."""
    return None if cell.measure is None else cell.measure.unit


def header_row(comparison: Comparison) -> list[str]:
    return [
        "Test",
        *where_headers(comparison),
        f"A: {comparison.a.label}",
        f"B: {comparison.b.label}",
        "B/A",
    ]


def render_compare_terminal(
    comparison: Comparison, console: Console, budgets: tuple[Budget, ...] = ()
) -> None:
    console.print(plain_text(heading(comparison), style="bold"))
    for name, side in (("A", comparison.a), ("B", comparison.b)):
        console.print(plain_text("  " + side_line(name, side, comparison.by), style="dim"))
    if not comparison.cells:
        console.print("nothing to compare: no test measured on either side")
        return
    table = Table(caption=Text(legend(comparison)), caption_justify="left")
    headers = header_row(comparison)
    for index, header in enumerate(headers):
        table.add_column(
            plain_text(header), justify="left" if index < len(headers) - 3 else "right"
        )
    for cell, row in zip(comparison.cells, table_rows(comparison, budgets), strict=True):
        verdict = plain_text(row[-1], style=VERDICT_STYLES.get(cell.verdict, ""))
        table.add_row(*(plain_text(value) for value in row[:-1]), verdict)
    console.print(table)


def _markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _markdown_table_row(row: list[str]) -> str:
    """The test and where cells hold names from a plan: escaped as any such text. The
    figures and the verdict are our own words and keep their '<' ('p < 0.05')."""
    *named, a, b, verdict = row
    figures = [markdown_table_safe(text) for text in (a, b, verdict)]
    return _markdown_row([markdown_text(text) for text in named] + figures)


def render_compare_markdown(comparison: Comparison, budgets: tuple[Budget, ...] = ()) -> str:
    lines = [f"# {markdown_text(heading(comparison))}", ""]
    lines += [
        f"- {markdown_text(side_line(name, side, comparison.by))}"
        for name, side in (("A", comparison.a), ("B", comparison.b))
    ]
    lines.append("")
    if not comparison.cells:
        lines.append("Nothing to compare: no test measured on either side.")
        return "\n".join(lines) + "\n"
    headers = header_row(comparison)
    lines.append(_markdown_row([markdown_text(header) for header in headers]))
    lines.append("| " + " | ".join(["---"] * (len(headers) - 3) + ["--:"] * 3) + " |")
    lines += [_markdown_table_row(row) for row in table_rows(comparison, budgets)]
    lines += ["", legend(comparison)]
    return "\n".join(lines) + "\n"
