"""The report as Markdown, shaped like the tables people post: tests down, paths across.

Titles, names and what devices said go through markdown_text: viewers render raw HTML,
so a '<' from a plan or a device is written as '&lt;'. Our own figures keep their '<'
('<0.01 %'), which starts no tag.
"""

from __future__ import annotations

import re

from wirespeed.analysis.compare_within import VariantsComparison
from wirespeed.report import forwarding_text
from wirespeed.report.ab import ab_legend, ab_title, build_ab
from wirespeed.report.compare_many_render import cell_lines as many_cell_lines
from wirespeed.report.compare_many_render import row_label
from wirespeed.report.forwarding import ForwardingTable
from wirespeed.report.latency_table import FIGURES as LATENCY_FIGURES
from wirespeed.report.latency_table import LEGEND as LATENCY_LEGEND
from wirespeed.report.latency_table import latency_lines, line_texts
from wirespeed.report.measure_text import LEGEND as MEASURED_LEGEND
from wirespeed.report.measure_text import item_text, measured_cell_lines
from wirespeed.report.model import Report
from wirespeed.report.note_text import NoteWords, more_text, note_words, trial_words
from wirespeed.report.power_summary import power_summary_rows
from wirespeed.report.text import (
    LEGEND,
    cell_lines,
    column_text,
    host_tools,
    markdown_table_safe,
    markdown_text,
    one_line,
    paths_of,
    provenance_lines,
    run_line,
    single_run_text,
)

_BACKTICKS = re.compile("`+")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _table_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _figure_cell(lines: list[str]) -> str:
    # Figures are our own words: their '<' ('<0.01 %') stays as written. Two flows of one
    # test share a cell, one per line: <br> keeps it one table row.
    return "<br>".join(markdown_table_safe(line) for line in lines)


def _code_span(text: str) -> str:
    """Text in code, shown exactly as written, '<' and all (CommonMark takes a code span's
    text literally): the fence is longer than any run of backticks in the text, so none
    of them closes it, and a space keeps a backtick at either end from joining the fence
    (CommonMark drops one space at each end)."""
    text = one_line(text)
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _beside_code(text: str) -> str:
    # On a line with code spans, a backtick in the text could pair with a span's fence and
    # turn the span's literal text into markup: as an entity it pairs with nothing.
    return markdown_text(text).replace("`", "&#96;")


def _note_line(words: NoteWords, number: int) -> str:
    """'[3] no server report (`WARNING: ...`): test 7 on WAN', a hard break after it."""
    line = f"[{number}] {_beside_code(words.text)}"
    if words.details:
        quoted = [_code_span(detail) for detail in words.details]
        if words.more:
            quoted.append(_beside_code(more_text(words.more)))
        line += " (" + "; ".join(quoted) + ")"
    if words.where:
        line += ": " + _beside_code(words.where)
    return line + "  "


def render_markdown(report: Report) -> str:
    lines = [f"# {markdown_text(report.title)}", "", _sentence(markdown_text(run_line(report))), ""]

    if report.info.hosts:
        lines.append(_table_row(["Host", "Role", "OS", "Kernel", "Tools"]))
        lines.append(_table_row(["---"] * 5))
        for host in report.info.hosts:
            lines.append(
                _table_row(
                    [
                        markdown_text(value or "")
                        for value in (host.name, host.role, host.os, host.kernel, host_tools(host))
                    ]
                )
            )
        lines.append("")
    paths = paths_of(report)
    for column in report.columns:
        lines.append(f"- {markdown_text(column_text(column, paths.get(column.path)))}")
    lines += [f"- {markdown_text(line)}" for line in provenance_lines(report)]
    lines.append("")

    if report.has_traffic_table:
        lines.append(_table_row(["Test", *(markdown_text(c.label) for c in report.columns)]))
        lines.append(_table_row(["---"] + ["--:"] * len(report.columns)))
        for row in report.rows:
            cells = [markdown_text(f"{row.test_id} {row.test_name}")]
            cells += [_figure_cell(cell_lines(cell, budgets=report.budgets)) for cell in row.cells]
            lines.append(_table_row(cells))
        lines += ["", LEGEND, ""]
    if report.measured:
        places = report.measured_columns
        lines.append(_table_row(["Benchmark", *(markdown_text(p.label) for p in places)]))
        lines.append(_table_row(["---"] + ["--:"] * len(places)))
        for measured in report.measured:
            cells = [markdown_text(item_text(measured))]
            cells += [_figure_cell(measured_cell_lines(c, measured.unit)) for c in measured.cells]
            lines.append(_table_row(cells))
        lines += ["", MEASURED_LEGEND, ""]
        lines += _latency_lines(report)
    for table in report.forwarding:
        lines += _forwarding_lines(table)
    lines += _power_lines(report)
    single_run = single_run_text(report)
    if single_run:
        lines += [single_run, ""]

    trials = trial_words(report)
    lines += [_note_line(note_words(report, n, trials), n.number) for n in report.notes]

    ab = build_ab(report)
    if ab is not None:
        lines += ["", *render_ab_markdown(ab)]
    return "\n".join(lines).rstrip() + "\n"


def _latency_lines(report: Report) -> list[str]:
    """The probed tests' latency at a glance."""
    found = latency_lines(report.measured_columns, report.measured)
    if not found:
        return []
    lines = [_table_row(["Latency", *(f.title for f in LATENCY_FIGURES)])]
    lines.append(_table_row(["---"] + ["--:"] * len(LATENCY_FIGURES)))
    for line in found:
        where = markdown_text(f"{line.test_id} {line.test_name}, {line.place.label}")
        lines.append(_table_row([where, *(markdown_text(t) for t in line_texts(line))]))
    return [*lines, "", LATENCY_LEGEND, ""]


POWER_HEADER = ("Trial", "Idle W", "Load W", "mJ/Mbit", "Max °C", "Throttled")


def _power_lines(report: Report) -> list[str]:
    """Per trial its power, energy per Mbit, hottest temperature and throttling, where
    it has any (report/power_summary.py)."""
    rows = power_summary_rows([detail.outcome for detail in report.trials])
    if not rows:
        return []
    lines = ["### Power and temperature", "", _table_row(list(POWER_HEADER))]
    lines.append(_table_row(["---"] + ["--:"] * (len(POWER_HEADER) - 1)))
    lines += [_table_row([markdown_text(key), *map(markdown_text, cells)]) for key, cells in rows]
    return [*lines, ""]


def _forwarding_lines(table: ForwardingTable) -> list[str]:
    header = forwarding_text.header(table)
    lines = [f"### {markdown_text(forwarding_text.title(table))}", ""]
    lines.append(_table_row([markdown_text(h) for h in header]))
    lines.append(_table_row(["---"] + ["--:"] * (len(header) - 1)))
    for texts in forwarding_text.row_texts(table):
        lines.append(_table_row([_figure_cell([text]) for text in texts]))
    return [*lines, "", *(f"{line}  " for line in forwarding_text.legend_lines(table)), ""]


def render_ab_markdown(comparison: VariantsComparison) -> list[str]:
    lines = [f"## {markdown_text(ab_title(comparison))}", ""]
    lines.append(_table_row(["Measurement", *(markdown_text(v) for v in comparison.variants)]))
    lines.append(_table_row(["---"] + ["--:"] * len(comparison.variants)))
    for row in comparison.rows:
        cells = [markdown_text(row_label(row))]
        cells += [_figure_cell(many_cell_lines(row, cell)) for cell in row.cells]
        lines.append(_table_row(cells))
    return [*lines, "", ab_legend(comparison), ""]
