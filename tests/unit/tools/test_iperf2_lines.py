"""A report line's figures become an interval's, each in its place."""

from __future__ import annotations

import dataclasses

from wirespeed.model import Interval
from wirespeed.tools.iperf2_lines import ReportLine


def test_a_report_lines_figures_are_an_intervals_in_its_order() -> None:
    # interval() hands them over by position: iperf2's total is the interval's packets.
    line = [f.name for f in dataclasses.fields(ReportLine)][:8]
    interval = [f.name for f in dataclasses.fields(Interval)]
    assert [name.replace("total", "packets") for name in line] == interval


def test_every_figure_of_a_line_reaches_its_interval() -> None:
    line = ReportLine(1.0, 2.0, 125_000, 1e6, 3, 0.25, 2, 90, "2.2%")
    assert line.interval() == Interval(
        start=1.0,
        end=2.0,
        bytes=125_000,
        bits_per_second=1e6,
        retransmits=3,
        jitter_ms=0.25,
        lost=2,
        packets=90,
    )
