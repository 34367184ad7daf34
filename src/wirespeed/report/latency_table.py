"""Latency under load at a glance: one line per probed test and place, the five figures
people compare (idle p50, loaded p50 and p99, the increase, the grade), each the median
over the repetitions; and a trial's same five, for the per-trial exports (CSV, JSON).

Built from the measured table (report/measured.py), which holds every probe figure
already: a probed trial of any tool (iperf, rrul) gets its line with nothing added
elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.analysis.latency import GRADE_UNIT, grade
from wirespeed.model import Result
from wirespeed.report.measure_text import summary_text
from wirespeed.report.measured import MeasuredCell, MeasuredRow, Place

__all__ = [
    "FIGURES",
    "LEGEND",
    "LatencyFigure",
    "LatencyLine",
    "latency_lines",
    "line_texts",
    "trial_latency",
]


@dataclass(frozen=True)
class LatencyFigure:
    key: str  # the CSV column and JSON key
    title: str  # the table's column
    name: str  # the measurement's
    labels: tuple[tuple[str, str], ...]


FIGURES = (
    LatencyFigure("rtt_idle_p50_ms", "idle p50", "rtt", (("load", "idle"), ("statistic", "p50"))),
    LatencyFigure(
        "rtt_loaded_p50_ms", "loaded p50", "rtt", (("load", "loaded"), ("statistic", "p50"))
    ),
    LatencyFigure(
        "rtt_loaded_p99_ms", "loaded p99", "rtt", (("load", "loaded"), ("statistic", "p99"))
    ),
    LatencyFigure("latency_increase_ms", "increase", "latency increase", (("way", "round trip"),)),
    LatencyFigure("bufferbloat_grade", "grade", "bufferbloat grade", ()),
)
LEGEND = (
    "Latency under load: round trips in ms, the median of k repetitions; idle before "
    "the load, loaded during it; increase = loaded p50 - idle p50, graded A+ to F "
    "(docs/latency.md)."
)


@dataclass(frozen=True)
class LatencyLine:
    """A probed test at one place: its five figures' cells, None where not measured."""

    test_id: str
    test_name: str
    place: Place
    cells: tuple[MeasuredCell | None, ...]  # in the order of FIGURES


def latency_lines(places: Sequence[Place], rows: Sequence[MeasuredRow]) -> tuple[LatencyLine, ...]:
    """The report's measured table (its columns and rows) as latency lines: one per test
    and place that has any of the figures."""
    by_key = {(row.test_id, row.name, row.labels): row for row in rows}
    tests = dict.fromkeys((row.test_id, row.test_name) for row in rows)
    lines = []
    for test_id, test_name in tests:
        figure_rows = [by_key.get((test_id, f.name, f.labels)) for f in FIGURES]
        if not any(figure_rows):
            continue
        for index, place in enumerate(places):
            cells = tuple(None if row is None else row.cells[index] for row in figure_rows)
            if any(cell is not None and cell.summary is not None for cell in cells):
                lines.append(LatencyLine(test_id, test_name, place, cells))
    return tuple(lines)


def line_texts(line: LatencyLine) -> list[str]:
    """The five figures as text: "0.25 ms", "B (39.05 ms)"; "" where not measured."""
    texts = []
    for figure, cell in zip(FIGURES, line.cells, strict=True):
        summary = None if cell is None else cell.summary
        unit = GRADE_UNIT if figure.name == "bufferbloat grade" else "ms"
        texts.append("" if summary is None else summary_text(summary, unit))
    return texts


def trial_latency(result: Result | None) -> dict[str, float | str | None]:
    """A trial's five figures by key ({} without probes); the grade as its letter."""
    if result is None:
        return {}
    found = {(m.name, m.labels): m.value for m in result.measurements}
    if not any((f.name, f.labels) in found for f in FIGURES):
        return {}
    values: dict[str, float | str | None] = {}
    for figure in FIGURES:
        value = found.get((figure.name, figure.labels))
        if figure.name == "bufferbloat grade":
            values[figure.key] = None if value is None else grade(value)
        else:
            values[figure.key] = value
    return values
