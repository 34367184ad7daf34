"""The report and the list of runs as rich tables."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from wirespeed.report.ab import (
    AB_LEGEND,
    AbTable,
    ab_cell_lines,
    ab_header,
    ab_row_lead,
    ab_title,
    build_ab,
)
from wirespeed.report.model import NoteKind, Report
from wirespeed.report.text import (
    DASH,
    LEGEND,
    cell_lines,
    column_text,
    host_tools,
    paths_of,
    provenance_lines,
    run_line,
    single_run_text,
    when,
)
from wirespeed.store.records import RunStatus, RunSummary

STATUS_STYLES = {
    RunStatus.COMPLETE: "green",
    RunStatus.RUNNING: "yellow",
    RunStatus.INTERRUPTED: "yellow",
    RunStatus.FAILED: "red",
}


def render_terminal(report: Report, console: Console) -> None:
    console.print(Text(report.title, style="bold"))
    console.print(Text(run_line(report), style="dim"))
    for host in report.info.hosts:
        facts = [host.role, host.os, host.kernel, host_tools(host)]
        console.print(Text(f"  {host.name}: " + ", ".join(f for f in facts if f)))
    paths = paths_of(report)
    for column in report.columns:
        console.print(Text("  " + column_text(column, paths.get(column.path))))
    for line in provenance_lines(report):
        console.print(Text("  " + line, style="dim"))

    # Texts, never markup strings: "[1]" in a cell is a note mark, not a rich tag.
    table = Table(caption=Text(LEGEND), caption_justify="left")
    table.add_column("Test")
    for column in report.columns:
        table.add_column(Text(column.label), justify="right")
    for row in report.rows:
        cells = [Text(f"{row.test_id} {row.test_name}")]
        for cell in row.cells:
            text = Text("\n".join(cell_lines(cell)))
            if cell is not None and cell.trials_ok == 0:
                text.stylize("red")
            cells.append(text)
        table.add_row(*cells)
    console.print(table)
    single_run = single_run_text(report)
    if single_run:
        console.print(Text(single_run, style="dim"))

    for note in report.notes:
        style = "red" if note.kind is NoteKind.FAILURE else "yellow"
        mark = Text(f"[{note.number}] ", style=style)
        mark.append(note.text)
        if note.details:
            mark.append(" (" + "; ".join(note.details) + ")", style="dim")
        mark.append(": " + ", ".join(note.trials), style="dim")
        console.print(mark)

    ab = build_ab(report)
    if ab is not None:
        render_ab(ab, console)


def render_ab(ab: AbTable, console: Console) -> None:
    table = Table(
        title=Text(ab_title(ab), style="bold"),
        caption=Text(AB_LEGEND),
        caption_justify="left",
    )
    for index, header in enumerate(ab_header(ab)):
        lead = index < len(ab_header(ab)) - len(ab.columns)
        table.add_column(Text(header), justify="left" if lead else "right")
    for row in ab.rows:
        cells = [Text(text) for text in ab_row_lead(ab, row)]
        cells += [Text("\n".join(ab_cell_lines(cell))) for cell in row.cells]
        table.add_row(*cells)
    console.print(table)


def render_runs(runs: list[RunSummary], console: Console) -> None:
    if not runs:
        console.print("no runs stored yet")
        return
    table = Table()
    for header, justify in (
        ("ID", "right"),
        ("Started", "left"),
        ("Title", "left"),
        ("Status", "left"),
        ("OK", "right"),
        ("Failed", "right"),
        ("Paths", "left"),
    ):
        table.add_column(header, justify=justify)  # type: ignore[arg-type]
    for run in runs:
        table.add_row(
            str(run.id),
            when(run.started_at),
            Text(run.title or DASH),
            Text(run.status.value, style=STATUS_STYLES[run.status]),
            str(run.trials_ok),
            Text(str(run.trials_failed), style="red" if run.trials_failed else ""),
            Text(", ".join(run.paths) or DASH),
        )
    console.print(table)
