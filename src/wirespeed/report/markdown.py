"""A result document (report/document.py) as Markdown; a run's report shaped like the
tables people post: tests down, paths across.

Titles, names and what devices said go through markdown_text: viewers render raw HTML,
so a '<' from a plan or a device is written as '&lt;'. Our own figures keep their '<'
('<0.01 %'), which starts no tag.
"""

from __future__ import annotations

import re

from wirespeed.report.document import Document
from wirespeed.report.sections import SectionTable
from wirespeed.report.text import (
    markdown_table_safe,
    markdown_text,
    one_line,
)

_BACKTICKS = re.compile("`+")


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
            quoted = (_quoted_line(line, part.quoted(i)) for i, line in enumerate(part.lines))
            lines += [*(f"- {line}" for line in quoted), ""]
        for table in part.tables:
            lines += _table_lines(table)
    return "\n".join(lines).rstrip() + "\n"


def _quoted_line(line: str, quotes: tuple[str, ...]) -> str:
    """A document's line, the words it quotes (Part.quotes) each as code."""
    if not quotes:
        return markdown_text(line)
    written, start = [], 0
    for quote in quotes:
        at = line.find(quote, start)
        if at < 0:
            continue
        written += [_beside_code(line[start:at]), _code_span(quote)]
        start = at + len(quote)
    return "".join([*written, _beside_code(line[start:])])


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
