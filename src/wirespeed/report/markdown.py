"""The report as Markdown, shaped like the tables people post: tests down, paths across."""

from __future__ import annotations

from wirespeed.report.ab import (
    AB_LEGEND,
    AbTable,
    ab_cell_lines,
    ab_header,
    ab_row_lead,
    ab_title,
    build_ab,
)
from wirespeed.report.model import Report
from wirespeed.report.text import (
    LEGEND,
    cell_lines,
    column_text,
    host_tools,
    paths_of,
    provenance_lines,
    run_line,
    single_run_text,
)


def _escape(text: str) -> str:
    # A pipe would end the cell; a newline the row.
    return text.replace("|", "\\|").replace("\n", " ")


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _table_row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def render_markdown(report: Report) -> str:
    lines = [f"# {_escape(report.title)}", "", _sentence(run_line(report)), ""]

    if report.info.hosts:
        lines.append(_table_row(["Host", "Role", "OS", "Kernel", "Tools"]))
        lines.append(_table_row(["---"] * 5))
        for host in report.info.hosts:
            lines.append(
                _table_row(
                    [
                        _escape(value or "")
                        for value in (host.name, host.role, host.os, host.kernel, host_tools(host))
                    ]
                )
            )
        lines.append("")
    paths = paths_of(report)
    for column in report.columns:
        lines.append(f"- {_escape(column_text(column, paths.get(column.path)))}")
    lines += [f"- {_escape(line)}" for line in provenance_lines(report)]
    lines.append("")

    lines.append(_table_row(["Test", *(_escape(c.label) for c in report.columns)]))
    lines.append(_table_row(["---"] + ["--:"] * len(report.columns)))
    for row in report.rows:
        cells = [_escape(f"{row.test_id} {row.test_name}")]
        # Two flows of one test share a cell, one per line: <br> keeps it one table row.
        cells += ["<br>".join(_escape(line) for line in cell_lines(cell)) for cell in row.cells]
        lines.append(_table_row(cells))
    lines += ["", LEGEND, ""]
    single_run = single_run_text(report)
    if single_run:
        lines += [single_run, ""]

    for note in report.notes:
        text = f"[{note.number}] {note.text}"
        if note.details:
            text += " (" + "; ".join(f"`{d}`" for d in note.details) + ")"
        text += ": " + ", ".join(note.trials)
        lines.append(_escape(text) + "  ")

    ab = build_ab(report)
    if ab is not None:
        lines += ["", *render_ab_markdown(ab)]
    return "\n".join(lines).rstrip() + "\n"


def render_ab_markdown(ab: AbTable) -> list[str]:
    header = ab_header(ab)
    lead = len(header) - len(ab.columns)
    lines = [f"## {_escape(ab_title(ab))}", ""]
    lines.append(_table_row([_escape(h) for h in header]))
    lines.append(_table_row(["---"] * lead + ["--:"] * len(ab.columns)))
    for row in ab.rows:
        cells = [_escape(text) for text in ab_row_lead(ab, row)]
        cells += ["<br>".join(_escape(line) for line in ab_cell_lines(c)) for c in row.cells]
        lines.append(_table_row(cells))
    return [*lines, "", AB_LEGEND, ""]
