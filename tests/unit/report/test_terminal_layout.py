"""The terminal report of runs with little in them: a forwarding test whose every search
failed, a run of no trials. Each is printed whole, its failure said, and its legend read
across the console, not a word a line at the width of an empty table."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from support.forwarding_samples import failed_forwarding
from support.run_report import render_terminal
from support.samples import run_record
from wirespeed.model import TrialOutcome
from wirespeed.report import build_report
from wirespeed.report.text import LEGEND


def _terminal(*outcomes: TrialOutcome, width: int) -> str:
    report = build_report(run_record(*outcomes))
    buffer = io.StringIO()
    render_terminal(report, Console(file=buffer, width=width, color_system=None))
    return buffer.getvalue()


@pytest.mark.parametrize("width", [160, 60])
def test_a_forwarding_test_whose_every_search_failed_is_printed_with_its_reason(
    width: int,
) -> None:
    # No row: the table is its header, "Frame", a column of one word.
    text = _terminal(failed_forwarding(1), width=width)
    assert "Frame" in text
    assert "[1] failed: the iperf server on server did not start" in text
    # The title on one line, not wrapped at the width of "Frame".
    assert "fwd forwarding rate on Br0: gbe (1 Gbit/s)" in text


def test_a_run_of_no_trials_has_its_legend_across_the_console() -> None:
    text = _terminal(width=120)
    lines = text.splitlines()
    [first] = [i for i, line in enumerate(lines) if line.startswith("Mbit/s")]
    assert LEGEND[: LEGEND.index(";")] in lines[first]
    # Three lines at 120 columns, not one per word.
    assert len(lines) - first == 3
