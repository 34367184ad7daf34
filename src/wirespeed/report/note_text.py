"""A note as people read it: said once for every cell it holds for, with how many and
the range of its figures ('line rate reached in 8 of 12 cells (98.9-100.1 % of the
ceiling): the link is the limit ...'), instead of one message per cell.

The terminal, Markdown and HTML reports say notes this way; the cells' marks still point
at them. The JSON export keeps every trial's own message (Note.details, Note.trials).
"""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed.report.content import Measure, Note, Report

DASH = "\N{EN DASH}"
# Trials named one by one up to this many; beyond, the count and the cells' marks say where.
NAMED_TRIALS = 3
# Distinct details shown of a note without a range; the rest are counted (JSON has all).
SHOWN_DETAILS = 3


@dataclass(frozen=True)
class NoteWords:
    text: str  # 'line rate reached in 8 of 12 cells (98.9-100.1 % of the ceiling): ...'
    details: tuple[str, ...]  # the tool's or the analysis's own words, to show as quoted
    more: int  # details left out
    where: str  # the trials it concerns, in words, when there are few; else ""


def range_text(measure: Measure, values: tuple[float, ...]) -> str:
    """'98.9-100.1 % of the ceiling', or '99.2 % of the ceiling' when they round alike."""
    low, high = (f"{v:.{measure.digits}f}" for v in (min(values), max(values)))
    figures = low if low == high else f"{low}{DASH}{high}"
    return f"{measure.before}{figures} {measure.unit}"


def _cell_counts(report: Report, number: int) -> tuple[int, int, int]:
    """(cells the note holds for, cells in the table, trials of those cells)."""
    cells = [cell for row in report.rows for cell in row.cells if cell is not None]
    marked = [cell for cell in cells if number in cell.notes]
    trials = sum(cell.trials_ok + cell.trials_failed for cell in marked)
    return len(marked), len(cells), trials


def _extent(report: Report, note: Note) -> str:
    """'8 of 12 cells', 'all 12 cells', '2 of 12 cells (3 of their 10 trials)'; nothing
    for a table of one cell."""
    marked, cells, trials = _cell_counts(report, note.number)
    if cells <= 1 or marked == 0:
        return ""
    text = f"all {cells} cells" if marked == cells else f"{marked} of {cells} cells"
    if len(note.trials) < trials:
        text += f" ({len(note.trials)} of their {trials} trials)"
    return text


def trial_words(report: Report) -> dict[str, str]:
    """Each trial's key in words: 'test 5 on WAN', with the variant when the run has
    several ('WAN (mtu9000)', the column's label) and the repetition when there are."""
    labels = {(c.path, c.variant): c.label for c in report.columns}
    labels |= {(p.path, p.variant): p.label for p in report.measured_columns}
    labels |= {(t.place.path, t.place.variant): t.place.label for t in report.forwarding}
    several = max((d.outcome.trial.repetition for d in report.trials), default=1) > 1
    words = {}
    for detail in report.trials:
        trial = detail.outcome.trial
        text = f"test {trial.test.id} on {labels.get((trial.path.name, trial.variant), '?')}"
        words[trial.key] = text + (f", repetition {trial.repetition}" if several else "")
    return words


def note_words(report: Report, note: Note, trials: dict[str, str] | None = None) -> NoteWords:
    """How a report says `note`; `trials` from trial_words, made once per report."""
    # Where: the trials by name when they are few, else how many cells.
    where = ""
    if len(note.trials) <= NAMED_TRIALS:
        names = trials if trials is not None else trial_words(report)
        where = ", ".join(dict.fromkeys(names.get(key, key) for key in note.trials))
    extent = "" if where else _extent(report, note)
    figures = ""
    if note.measure is not None and note.values:
        figures = f" ({range_text(note.measure, note.values)})"
    if note.label:  # a finding: 'line rate reached in 8 of 12 cells (98.9-100.1 %...): ...'
        text = f"{note.label}{f' in {extent}' if extent else ''}{figures}: {note.advice}"
    else:  # a warning or failure in the tool's terms: where it held comes last
        text, where = f"{note.text}{figures}", where or extent
    # A range says what the messages said one cell at a time; one message alone is kept
    # when it says more than its figure.
    details = note.details
    if figures and (len(details) > 1 or (note.measure and note.measure.says_all)):
        details = ()
    shown = details[:SHOWN_DETAILS]
    return NoteWords(text, shown, len(details) - len(shown), where)


def more_text(more: int) -> str:
    return f"and {more} more in the JSON report" if more else ""
