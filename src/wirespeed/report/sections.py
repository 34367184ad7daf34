"""The report's sections, in the one order every format shows them.

A section is built from the report model (report/content.py) alone. It gives its tables of
measured cells (a title, column headings, rows of a label and cells of lines, a legend),
which the terminal, Markdown and HTML renderers draw the same way. A new section is one
class and one entry in SECTIONS: every format loops over the list.

A section knows no format: the formats know the sections. Where a table is not enough, a
format draws a section its own way, keyed by the section's class in that format's module
(the HTML page's charts, the forwarding table split by direction on a narrow terminal,
the notes), and the JSON report writes each section's part (run_json.SECTION_PARTS).

The JSON report keeps the key order of its format (docs/json-format.md): each section
names the top-level keys it writes (`json_keys`), and the figures it shows per trial are
in each trial's record (`trial_keys`: the latency, the power), where format 2 put them.

CSV is not a renderer of sections: it is a flat export of every trial's flows and
measurements (report/run_csv.py), one row each, which holds every section's figures
by design.
"""

from __future__ import annotations

from wirespeed.report import forwarding_text
from wirespeed.report.ab import ab_legend, ab_title, build_ab
from wirespeed.report.content import Report
from wirespeed.report.document import ColumnGroup, SectionTable, TableRow
from wirespeed.report.forwarding import ForwardingTable
from wirespeed.report.latency_table import FIGURES as LATENCY_FIGURES
from wirespeed.report.latency_table import LEGEND as LATENCY_LEGEND
from wirespeed.report.latency_table import latency_lines, line_texts
from wirespeed.report.many_text import cell_lines as many_cell_lines
from wirespeed.report.many_text import row_label
from wirespeed.report.measure_text import LEGEND as MEASURED_LEGEND
from wirespeed.report.measure_text import item_text, measured_cell_lines
from wirespeed.report.power_summary import power_summary_rows
from wirespeed.report.text import LEGEND, cell_lines

__all__ = [
    "SECTIONS",
    "DeviceSection",
    "ForwardingSection",
    "LatencySection",
    "MeasurementsSection",
    "NotesSection",
    "Section",
    "SectionTable",
    "TableRow",
    "TrafficSection",
]


class Section:
    """One part of the report: its tables, none by default (a section only a format of
    its own shows, as the page's charts of the device)."""

    key: str = ""  # its name, and its element's id in the HTML page
    heading: str = ""  # its heading in the HTML page
    json_keys: tuple[str, ...] = ()  # the report's top-level JSON keys it writes
    trial_keys: tuple[str, ...] = ()  # the keys it writes in a trial's JSON record

    def tables(self, report: Report) -> tuple[SectionTable, ...]:
        return ()


class TrafficSection(Section):
    """The traffic tests' table: tests down, paths (x variants) across."""

    key = "results"
    heading = "Results"
    json_keys = ("columns", "table")

    def tables(self, report: Report) -> tuple[SectionTable, ...]:
        if not report.has_traffic_table:
            return ()
        rows = tuple(
            TableRow(
                f"{row.test_id} {row.test_name}",
                tuple(tuple(cell_lines(cell, budgets=report.budgets)) for cell in row.cells),
            )
            for row in report.rows
        )
        headings = ("Test", *(column.label for column in report.columns))
        return (SectionTable("", headings, rows, (LEGEND,)),)


class MeasurementsSection(Section):
    """Every measurement that is not a flow's goodput or a search's (openssl, 7-zip, a
    probe's round trip, a board's power beside a flow, a kind's own figures), one row per
    test and measurement, shown by its name, labels and unit alone: a new kind's
    measurements appear here in every format with nothing added."""

    key = "benchmarks"
    heading = "Benchmarks"
    json_keys = ("measured_columns", "measured")
    trial_keys = ("measurements",)

    def tables(self, report: Report) -> tuple[SectionTable, ...]:
        if not report.measured:
            return ()
        rows = tuple(
            TableRow(
                item_text(row),
                tuple(tuple(measured_cell_lines(cell, row.unit)) for cell in row.cells),
            )
            for row in report.measured
        )
        headings = ("Benchmark", *(place.label for place in report.measured_columns))
        return (SectionTable("", headings, rows, (MEASURED_LEGEND,)),)


class LatencySection(Section):
    """Latency under load at a glance (and, on the page, each probed trial's round trips
    over time and their distribution)."""

    key = "latency"
    heading = "Latency under load"
    trial_keys = ("latency",)

    def tables(self, report: Report) -> tuple[SectionTable, ...]:
        lines = latency_lines(report.measured_columns, report.measured)
        if not lines:
            return ()
        rows = tuple(
            TableRow(
                f"{line.test_id} {line.test_name}, {line.place.label}",
                tuple((text,) for text in line_texts(line)),
            )
            for line in lines
        )
        headings = ("Latency", *(figure.title for figure in LATENCY_FIGURES))
        return (SectionTable("", headings, rows, (LATENCY_LEGEND,)),)


class ForwardingSection(Section):
    """The forwarding-rate searches: a table per test, path and variant."""

    key = "forwarding"
    heading = "Forwarding rate"
    json_keys = ("forwarding",)

    def tables(self, report: Report) -> tuple[SectionTable, ...]:
        return tuple(
            SectionTable(
                forwarding_text.title(table),
                tuple(forwarding_text.header(table)),
                tuple(
                    TableRow(texts[0], tuple((text,) for text in texts[1:]))
                    for texts in forwarding_text.row_texts(table)
                ),
                tuple(forwarding_text.legend_lines(table)),
                groups=_direction_groups(table),
            )
            for table in report.forwarding
        )


def _direction_groups(table: ForwardingTable) -> tuple[ColumnGroup, ...]:
    """A group per direction, where there are two: six figures each do not fit beside
    the other six on a narrow terminal."""
    if len(table.directions) < 2:
        return ()
    owner = ["", *(column.direction for column in forwarding_text.columns(table))]
    return tuple(
        ColumnGroup(direction, tuple(i for i, d in enumerate(owner) if d == direction))
        for direction in table.directions
    )


POWER_HEADINGS = ("Trial", "Idle W", "Load W", "mJ/Mbit", "Max °C", "Throttled")


class PowerSection(Section):
    """Per trial its power, energy per Mbit, hottest temperature and throttling, where it
    has any (report/power_summary.py)."""

    key = "power"
    heading = "Power and temperature"
    trial_keys = ("power", "power_summary")

    def tables(self, report: Report) -> tuple[SectionTable, ...]:
        found = power_summary_rows([detail.outcome for detail in report.trials])
        if not found:
            return ()
        rows = tuple(TableRow(key, tuple((text,) for text in cells)) for key, cells in found)
        return (SectionTable(self.heading, POWER_HEADINGS, rows),)


class DeviceSection(Section):
    """The page's charts of each trial: its throughput and the device's CPU over time,
    and the board's power, heat and clocks. The other formats say the same in figures:
    the DUT's busiest core in each traffic cell, the power section's table."""

    key = "device"
    heading = "Device during the trial"


class NotesSection(Section):
    """The numbered notes every cell refers to, and what the plan's `expect:` came to."""

    key = "notes"
    heading = "Findings and notes"
    json_keys = ("notes", "expectations", "measured_expectations")


class VariantsSection(Section):
    """A run of several variants: each measurement's median per variant and its change
    against the first variant's. Not in the run's JSON: `wirespeed compare N --variants
    ... --format json` writes it (the format of docs/json-format.md stays as it is)."""

    key = "variants"
    heading = "Variants"

    def tables(self, report: Report) -> tuple[SectionTable, ...]:
        comparison = build_ab(report)
        if comparison is None:
            return ()
        rows = tuple(
            TableRow(
                row_label(row),
                tuple(tuple(many_cell_lines(row, cell)) for cell in row.cells),
            )
            for row in comparison.rows
        )
        headings = ("Measurement", *comparison.variants)
        return (
            SectionTable(ab_title(comparison), headings, rows, (ab_legend(comparison),), level=2),
        )


# The order every format shows them in.
SECTIONS: tuple[Section, ...] = (
    TrafficSection(),
    MeasurementsSection(),
    LatencySection(),
    ForwardingSection(),
    PowerSection(),
    DeviceSection(),
    NotesSection(),
    VariantsSection(),
)
