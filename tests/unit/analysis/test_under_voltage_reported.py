"""Under-voltage makes every number of a trial suspect: it is reported even when every
flow reached line rate (where a busy core is moot, the link being the limit), in the
trial's findings and in the report's notes, from what the real sampler read of a board
whose firmware said 0x50005 (tests/support/board_samples.py)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from support.board_samples import line_rate_trial, sampled_board
from support.run_report import render_markdown
from support.samples import run_record
from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.analysis.findings import LIMITS, judge_monitor, judge_result
from wirespeed.model import FindingKind
from wirespeed.report import build_report
from wirespeed.run.traffic_outcome import without_moot
from wirespeed.sampling.summary import MonitorSummary


@pytest.mark.process
def test_under_voltage_at_line_rate_is_still_a_finding_and_a_note(tmp_path: Path) -> None:
    board = sampled_board(tmp_path)
    outcome = line_rate_trial(board)
    findings = judge_result(outcome, ceiling_for(outcome.trial))
    assert FindingKind.LINE_RATE in {f.kind for f in findings}
    findings += judge_monitor(MonitorSummary.from_json(board.summary))
    kept = without_moot(findings, outcome.trial.test.spec)
    kinds = {f.kind for f in kept}
    assert FindingKind.UNDER_VOLTAGE in kinds and FindingKind.LINE_RATE in kinds
    assert FindingKind.UNDER_VOLTAGE not in LIMITS
    report = build_report(run_record(dataclasses.replace(outcome, findings=tuple(kept))))
    assert any(note.code == "under-voltage" for note in report.notes)
    assert "under-voltage" in render_markdown(report)
