"""A figure over repetitions (report/repetitions.py): a traffic cell's flow and a
benchmark's cell count, summarize and name their outliers alike."""

from __future__ import annotations

from wirespeed.model import Flow
from wirespeed.report.content import FlowFigure
from wirespeed.report.measured import MeasuredCell

VALUES = (100.0, 101.0, 99.0, 100.0, 102.0, 100.0, 500.0)
TRIALS = tuple(f"t{i}" for i in range(len(VALUES)))


def test_a_flow_and_a_benchmark_cell_say_their_repetitions_alike() -> None:
    flow = FlowFigure(Flow.UP, VALUES, None, trials=TRIALS)
    cell = MeasuredCell(VALUES, TRIALS, trials_failed=0, notes=())
    assert flow.n == cell.n == len(VALUES)
    assert flow.summary == cell.summary
    assert flow.outlier_trials == cell.outlier_trials == ("t6",)
    assert flow.summary is flow.summary  # computed once


def test_no_values_no_summary_and_no_outliers() -> None:
    flow = FlowFigure(Flow.UP, (), None)
    cell = MeasuredCell((), (), trials_failed=2, notes=())
    assert (flow.n, flow.summary, flow.outlier_trials) == (0, None, ())
    assert (cell.n, cell.summary, cell.outlier_trials) == (0, None, ())


def test_a_flow_without_trial_keys_names_no_outliers() -> None:
    assert FlowFigure(Flow.UP, VALUES, None).outlier_trials == ()
