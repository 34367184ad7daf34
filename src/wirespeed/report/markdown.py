"""The report as Markdown, shaped like the tables people post: tests down, paths across.

Titles, names and what devices said go through markdown_text: viewers render raw HTML,
so a '<' from a plan or a device is written as '&lt;'. Our own figures keep their '<'
('<0.01 %'), which starts no tag.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from wirespeed.report.content import Report
from wirespeed.report.document import Document
from wirespeed.report.note_text import NoteWords, more_text, note_words, trial_words
from wirespeed.report.sections import SECTIONS, NotesSection, Section, SectionTable
from wirespeed.report.text import (
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

    for section in SECTIONS:
        own = OWN_LINES.get(type(section))
        if own is not None:
            lines += own(report)
            continue
        for table in section.tables(report):
            lines += _table_lines(table)
    return "\n".join(lines).rstrip() + "\n"


def render_document_markdown(document: Document) -> str:
    """A document: its title, its lines as a list, then each part under its heading."""
    lines = [f"# {markdown_text(document.title)}", ""]
    if document.summary:
        lines += [f"**{markdown_text(document.summary)}**", ""]
    if document.lines:
        lines += [*(f"- {markdown_text(line)}" for line in document.lines), ""]
    for part in document.shown_parts:
        lines += [f"## {markdown_text(part.heading)}", ""]
        if part.summary:
            lines += [f"**{markdown_text(part.summary)}**", ""]
        if part.lines:
            lines += [*(f"- {markdown_text(line)}" for line in part.lines), ""]
        for table in part.tables:
            lines += _table_lines(table)
    return "\n".join(lines).rstrip() + "\n"


def _table_lines(table: SectionTable) -> list[str]:
    """A section's table: its title as a heading, its legend after it, a line each (with
    a hard break where it has several)."""
    lines = [f"{'#' * table.level} {markdown_text(table.title)}", ""] if table.title else []
    lines.append(_table_row([markdown_text(heading) for heading in table.headings]))
    lines.append(_table_row(["---"] + ["--:"] * (len(table.headings) - 1)))
    for row in table.rows:
        cells = [markdown_text(row.label), *(_figure_cell(list(c)) for c in row.cells)]
        lines.append(_table_row(cells))
    lines.append("")
    if len(table.legend) == 1:
        lines += [table.legend[0], ""]
    elif table.legend:
        lines += [*(f"{line}  " for line in table.legend), ""]
    return lines


def notes_lines(report: Report) -> list[str]:
    """Which figures rest on one repetition, then the numbered notes."""
    single_run = single_run_text(report)
    lines = [single_run, ""] if single_run else []
    trials = trial_words(report)
    notes = [_note_line(note_words(report, n, trials), n.number) for n in report.notes]
    return [*lines, *notes, ""] if notes else lines


# The sections written otherwise than as their tables: the notes as numbered lines.
OWN_LINES: dict[type[Section], Callable[[Report], list[str]]] = {NotesSection: notes_lines}
