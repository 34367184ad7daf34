"""A result document: a title, lines under it, and parts of tables and lines, which every
format renders alike (terminal, Markdown, HTML, JSON, CSV: each format module's
render_document). A run's report (report/run_document.py), a card (card/render.py,
card_result), a soak (soak/render.py, soak_result) and a comparison
(report/many_document.py) are each built as one: a new document is a builder, not a
renderer per format.

Text in a document is plain: each format escapes it as it writes it.

A document may carry its figures in full as data (`DocumentData`): the JSON and CSV a
reader's script parses (a card's `wirespeed-card`, a comparison's
`wirespeed-compare-runs` ...), each versioned in docs/json-format.md. The JSON and CSV
exporters write a document's data when it has it, else its words; the terminal,
Markdown and HTML say its words. Its data is made by the document's builder, with the
words, from the same analysis: no format computes a figure.

A document may also draw figures over time (`Timeline`: a soak's loss and round trips,
its outages and kernel events): the HTML draws each as a zoomable chart
(report/timeline.py); the other formats have its figures in the parts' words and the
data.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from wirespeed.report.timeline import Lane, Mark, Span


class Tone(enum.Enum):
    """How a cell's figure reads against the figure it is compared with: the terminal
    colours it, the HTML gives its cell the class; its words say it all the same."""

    BETTER = "better"  # a difference shown, the better way
    WORSE = "worse"  # a difference shown, the worse way
    SAME = "same"  # tested, and no difference shown
    # A line's: what its leading mark says (a note's "[3]"), the terminal's red or yellow.
    FAILED = "failed"  # something did not work: a trial failed
    CAUTION = "caution"  # worth a look: a warning, a finding, an expectation


@dataclass(frozen=True)
class TableRow:
    """A row: what it measures (words from a plan or a device: each format escapes
    them), then one cell per figure column, each as its lines (our own words)."""

    label: str
    cells: tuple[tuple[str, ...], ...]
    tones: tuple[Tone | None, ...] = ()  # a tone per cell; (): no cell has one

    def tone(self, index: int) -> Tone | None:
        return self.tones[index] if index < len(self.tones) else None


@dataclass(frozen=True)
class SectionTable:
    title: str  # "": the table needs none (the traffic table under the run's header)
    headings: tuple[str, ...]  # the label column's, then one per figure column
    rows: tuple[TableRow, ...]
    legend: tuple[str, ...] = ()  # what its figures mean, a line each
    level: int = 3  # the Markdown heading's level of its title
    # Where it is too wide for a terminal, the terminal prints it as one table per group
    # (its title and the group's name, the label column, the group's figure columns, by
    # their index in `headings`), the legend after the last: a forwarding table's
    # directions. The other formats, and the terminal where it fits, show it whole.
    groups: tuple[ColumnGroup, ...] = ()


@dataclass(frozen=True)
class ColumnGroup:
    name: str  # said after the table's title: "in", "out"
    columns: tuple[int, ...]  # its figure columns' indexes in the table's headings


@dataclass(frozen=True)
class Part:
    """A part of a document: its heading, its lines (sentences, a list), its tables."""

    key: str  # its name: the JSON's and the HTML element's id
    heading: str
    lines: tuple[str, ...] = ()
    tables: tuple[SectionTable, ...] = ()
    summary: str = ""  # what the part found, in short: said first, emphasized
    # Per line, the words in it quoted as a tool or device wrote them, in their order: the
    # Markdown shows each as code, exactly as written. (): no line quotes any.
    quotes: tuple[tuple[str, ...], ...] = ()

    # Per line, the tone of its leading mark (a note's "[3]"); (): no line has one.
    tones: tuple[Tone | None, ...] = ()

    def quoted(self, index: int) -> tuple[str, ...]:
        return self.quotes[index] if index < len(self.quotes) else ()

    def tone(self, index: int) -> Tone | None:
        return self.tones[index] if index < len(self.tones) else None

    @property
    def shown(self) -> bool:
        """Whether it has anything to show; a format leaves out a part without."""
        return bool(self.summary or self.lines or self.tables)


@dataclass(frozen=True)
class DocumentData:
    """A document's figures in full, for a script: its JSON text and its CSV text, each
    made only when asked (a comparison's CSV is not made to print its table)."""

    json: Callable[[], str]
    csv: Callable[[], str] | None = None  # None: its CSV is its words'
    # The HTML page carries its JSON too, in <script type="application/json"
    # id="KIND-data">, for a script that reads the page.
    in_page: bool = False


@dataclass(frozen=True)
class Timeline:
    """Figures over time on one axis: lanes of series, intervals shaded across them,
    instants ticked beneath (report/timeline.py says how each is given)."""

    key: str  # the HTML element's id
    heading: str
    lanes: tuple[Lane, ...]
    intervals: tuple[Span, ...] = ()
    instants: tuple[Mark, ...] = ()
    lead: str = ""  # what it shows, a sentence under its heading


@dataclass(frozen=True)
class Document:
    kind: str  # what it is: "run", "card", "soak", "comparison"
    title: str
    lines: tuple[str, ...]  # under the title: what, when, where
    parts: tuple[Part, ...]
    data: DocumentData | None = None  # its figures in full; None: its words are all
    timelines: tuple[Timeline, ...] = ()  # drawn after its parts, by the HTML alone
    summary: str = ""  # the whole in a sentence: said under the title, emphasized

    @property
    def shown_parts(self) -> tuple[Part, ...]:
        return tuple(part for part in self.parts if part.shown)
