"""The report and the list of runs as rich tables: the report's sections
(report/sections.py) in their order, each table drawn alike, but the sections this
module prints its own way (OWN_PRINTS)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable

from rich import box
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from wirespeed.analysis.expectations import Verdict
from wirespeed.report import forwarding_text
from wirespeed.report.content import NoteKind, Report
from wirespeed.report.document import Document, TableRow, Tone
from wirespeed.report.forwarding import ForwardingTable
from wirespeed.report.note_text import more_text, note_words, trial_words
from wirespeed.report.sections import (
    SECTIONS,
    ForwardingSection,
    NotesSection,
    Section,
    SectionTable,
)
from wirespeed.report.text import (
    DASH,
    FAILED,
    VERDICT_MARKS,
    column_text,
    host_tools,
    paths_of,
    provenance_lines,
    run_line,
    single_run_text,
    terminal_safe,
    when,
)
from wirespeed.store.records import RunStatus, RunSummary

STATUS_STYLES = {
    RunStatus.COMPLETE: "green",
    RunStatus.RUNNING: "yellow",
    RunStatus.INTERRUPTED: "yellow",
    RunStatus.FAILED: "red",
}

# A compared figure: a difference shown in green (better) or red (worse), none dimmed.
TONE_STYLES = {Tone.BETTER: "green", Tone.WORSE: "red", Tone.SAME: "dim"}

# Rich wraps a table's title and caption at the table's own width: under this many
# columns (a run of no trials, a search table of no rows) that is a word a line.
LEAST_CAPTION_WIDTH = 60


def print_table(table: Table, console: Console) -> None:
    """A table; one narrower than LEAST_CAPTION_WIDTH with its title above it and its
    caption below it, each at the console's width."""
    if console.measure(table).maximum >= min(console.width, LEAST_CAPTION_WIDTH):
        console.print(table)
        return
    title, caption = table.title, table.caption
    table.title = table.caption = None
    if title is not None:
        console.print(title)
    console.print(table)
    if caption is not None:
        console.print(caption)


def plain_text(text: str, style: str = "") -> Text:
    """Text from a plan, a device or the store, as rich prints it: a Text, never a markup
    string ("[1]" in a cell is a note mark, not a tag), its control characters escaped."""
    return Text(terminal_safe(text), style=style)


def _lines_text(lines: list[str]) -> Text:
    # Escaped line by line: the line breaks between them are ours, any inside one are not.
    return Text("\n".join(terminal_safe(line) for line in lines))


def render_terminal(report: Report, console: Console) -> None:
    console.print(plain_text(report.title, style="bold"))
    console.print(plain_text(run_line(report), style="dim"))
    for host in report.info.hosts:
        facts = [host.role, host.os, host.kernel, host_tools(host)]
        console.print(plain_text(f"  {host.name}: " + ", ".join(f for f in facts if f)))
    paths = paths_of(report)
    for column in report.columns:
        console.print(plain_text("  " + column_text(column, paths.get(column.path))))
    for line in provenance_lines(report):
        console.print(plain_text("  " + line, style="dim"))
    for section in SECTIONS:
        own = OWN_PRINTS.get(type(section))
        if own is not None:
            own(report, console)
            continue
        for table in section.tables(report):
            print_table(_table(table), console)


def render_document(document: Document, console: Console) -> None:
    """A document: its title and lines, then each part's heading, lines and tables."""
    console.print(plain_text(document.title, style="bold"))
    for line in document.lines:
        console.print(plain_text("  " + line, style="dim"))
    for part in document.shown_parts:
        console.print()
        console.print(plain_text(part.heading, style="bold"))
        for line in part.lines:
            console.print(plain_text("  " + line))
        for table in part.tables:
            _print_document_table(table, console)


def _print_document_table(table: SectionTable, console: Console) -> None:
    """A table whole where it fits the console, else one per group of its columns
    (SectionTable.groups), each under its title and the group's name, the legend under
    the last; a table of no groups whole all the same."""
    whole = _table(table)
    # Measured unbounded: console.measure caps a table's width at the console's own.
    unbounded = console.options.update(max_width=sys.maxsize)
    if not table.groups or Measurement.get(console, unbounded, whole).maximum <= console.width:
        print_table(whole, console)
        return
    for index, group in enumerate(table.groups):
        cells = [i - 1 for i in group.columns]  # a row's cells follow the label column
        rows = tuple(
            TableRow(
                row.label,
                tuple(row.cells[i] for i in cells),
                tuple(row.tone(i) for i in cells) if row.tones else (),
            )
            for row in table.rows
        )
        shown = dataclasses.replace(
            table,
            title=f"{table.title}, {group.name}" if table.title else group.name,
            headings=(table.headings[0], *(table.headings[i] for i in group.columns)),
            rows=rows,
            legend=table.legend if index == len(table.groups) - 1 else (),
            groups=(),
        )
        print_table(_table(shown), console)


def _table(table: SectionTable) -> Table:
    """A section's table: its cells right-aligned, a failed one in red, a cell's verdict
    on the plan's expectation in red or green."""
    shown = Table(
        title=plain_text(table.title, style="bold") if table.title else None,
        caption=Text("\n".join(table.legend)) if table.legend else None,
        caption_justify="left",
    )
    for index, heading in enumerate(table.headings):
        shown.add_column(plain_text(heading), justify="right" if index else "left")
    for row in table.rows:
        cells = [plain_text(row.label)]
        for index, lines in enumerate(row.cells):
            text = _lines_text(list(lines))
            if lines and lines[0].startswith(FAILED):
                text.stylize("red")
            tone = row.tone(index)
            if tone is not None:
                text.stylize(TONE_STYLES[tone])
            text.highlight_words([VERDICT_MARKS[Verdict.NOT_MET]], "red")
            text.highlight_words([VERDICT_MARKS[Verdict.MET]], "green")
            cells.append(text)
        shown.add_row(*cells)
    return shown


def render_notes(report: Report, console: Console) -> None:
    """Which figures rest on one repetition, then the numbered notes."""
    single_run = single_run_text(report)
    if single_run:
        console.print(Text(single_run, style="dim"))
    trials = trial_words(report)
    for note in report.notes:
        style = "red" if note.kind is NoteKind.FAILURE else "yellow"
        words = note_words(report, note, trials)
        mark = Text(f"[{note.number}] ", style=style)
        mark.append_text(plain_text(words.text))
        quoted = "; ".join(q for q in (*words.details, more_text(words.more)) if q)
        if words.details:
            mark.append_text(plain_text(f" ({quoted})", style="dim"))
        if words.where:
            mark.append_text(plain_text(": " + words.where, style="dim"))
        console.print(mark)


def _forwarding_part(
    heading: str,
    caption: str | None,
    header: list[str],
    rows: list[list[str]],
    shown_columns: list[int],
) -> Table:
    # Without vertical rules: six figures per direction, two directions in 160 columns.
    shown = Table(
        title=plain_text(heading, style="bold"),
        title_justify="left",
        caption=None if caption is None else Text(caption),
        caption_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    for i in shown_columns:
        shown.add_column(plain_text(header[i]), justify="left" if i == 0 else "right")
    for texts in rows:
        shown.add_row(*(plain_text(texts[i]) for i in shown_columns))
    return shown


def render_forwarding(table: ForwardingTable, console: Console) -> None:
    """The table, or one per direction where both do not fit the console's width."""
    caption = "\n".join(forwarding_text.legend_lines(table))
    title = forwarding_text.title(table)
    header, rows = forwarding_text.header(table), forwarding_text.row_texts(table)
    whole = _forwarding_part(title, caption, header, rows, list(range(len(header))))
    # Each figure on one line, two spaces beside it and a rule's share. A table without
    # rows (every search failed) and a header of one word are widths all the same.
    widths = [
        max(map(len, [*header[i].split(), *(texts[i] for texts in rows)]), default=0)
        for i in range(len(header))
    ]
    if sum(widths) + 3 * len(widths) <= console.width or len(table.directions) < 2:
        print_table(whole, console)
        return
    owner = ["", *(column.direction for column in forwarding_text.columns(table))]
    for index, direction in enumerate(table.directions):
        last = index == len(table.directions) - 1
        shown_columns = [0, *(i for i, d in enumerate(owner) if d == direction)]
        heading = f"{title}, {direction}"
        part = _forwarding_part(heading, caption if last else None, header, rows, shown_columns)
        print_table(part, console)


def _forwarding_tables(report: Report, console: Console) -> None:
    for table in report.forwarding:
        render_forwarding(table, console)


# The sections printed otherwise than as their tables: the forwarding tables split by
# direction on a narrow terminal, the notes as numbered lines.
OWN_PRINTS: dict[type[Section], Callable[[Report, Console], None]] = {
    ForwardingSection: _forwarding_tables,
    NotesSection: render_notes,
}


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
            plain_text(run.title or DASH),
            Text(run.status.value, style=STATUS_STYLES[run.status]),
            str(run.trials_ok),
            Text(str(run.trials_failed), style="red" if run.trials_failed else ""),
            plain_text(", ".join(run.paths) or DASH),
        )
    console.print(table)
