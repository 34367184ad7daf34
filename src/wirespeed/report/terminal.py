"""A result document (report/document.py: a run's report, a card, a soak, a comparison)
and the list of runs as rich tables, each of a document's tables drawn alike."""

from __future__ import annotations

import dataclasses
import sys

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from wirespeed.analysis.expectations import Verdict
from wirespeed.report.document import Document, TableRow, Tone
from wirespeed.report.sections import (
    SectionTable,
)
from wirespeed.report.text import (
    DASH,
    FAILED,
    VERDICT_MARKS,
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

# A compared figure: a difference shown in green (better) or red (worse), none dimmed;
# a line's mark (a note's "[3]"): a failure's red, any other note's yellow.
TONE_STYLES = {
    Tone.BETTER: "green",
    Tone.WORSE: "red",
    Tone.SAME: "dim",
    Tone.FAILED: "red",
    Tone.CAUTION: "yellow",
}

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


def render_document(document: Document, console: Console) -> None:
    """A document: its title and lines, then each part's heading, lines and tables."""
    console.print(plain_text(document.title, style="bold"))
    if document.summary:
        _print_line(plain_text(document.summary, style="bold"), console)
    for line in document.lines:
        _print_line(plain_text(line, style="dim"), console)
    for part in document.shown_parts:
        console.print()
        console.print(plain_text(part.heading, style="bold"))
        if part.summary:
            _print_line(plain_text(part.summary, style="bold"), console)
        for index, line in enumerate(part.lines):
            _print_line(_marked(line, part.tone(index)), console)
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


def _marked(line: str, tone: Tone | None) -> Text:
    """A part's line, its leading mark (a note's "[3]") in its tone's colour."""
    text = plain_text(line)
    if tone is not None:
        text.stylize(TONE_STYLES[tone], 0, len(line.split(" ", 1)[0]))
    return text


def _print_line(text: Text, console: Console) -> None:
    """A line of a document under its heading, two columns in; one longer than the
    console goes on two further in, so that where each line starts stays plain."""
    for number, wrapped in enumerate(text.wrap(console, max(console.width - 4, 16))):
        wrapped.rstrip()
        console.print(Text("    " if number else "  ") + wrapped, soft_wrap=True)


def _table(table: SectionTable) -> Table:
    """A section's table: its cells right-aligned, a failed one in red, a cell's verdict
    on the plan's expectation in red or green."""
    shown = Table(
        title=plain_text(table.title, style="bold") if table.title else None,
        caption=Text("\n".join(table.legend)) if table.legend else None,
        caption_justify="left",
    )
    for index, heading in enumerate(table.headings):
        # A word wider than its column is broken across lines, never cut with "…": on a
        # narrow terminal a label or a figure is still read whole.
        shown.add_column(plain_text(heading), justify="right" if index else "left", overflow="fold")
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
