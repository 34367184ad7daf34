"""The card's readings of a run's report that several of its parts share: a test's row,
the figures of it that can be true, and the ceiling of its line.
"""

from __future__ import annotations

from collections.abc import Iterable

from wirespeed.report.model import FlowFigure, Report, Row

__all__ = ["believable", "line_ceiling", "row_of"]


def row_of(report: Report, test_id: str) -> Row | None:
    return next((row for row in report.rows if row.test_id == test_id), None)


def believable(flows: Iterable[FlowFigure]) -> list[float]:
    """The flows' figures that can be true: none above its ceiling."""
    return [f.goodput_bps for f in flows if f.goodput_bps is not None and not f.above_ceiling]


def line_ceiling(row: Row | None) -> float | None:
    if row is None:
        return None
    for cell in row.cells:
        if cell is not None:
            for flow in cell.flows:
                if flow.ceiling is not None:
                    return flow.ceiling.bits_per_second
    return None
