"""A run whose plan expects figures: judged on the median, shown in every format."""

from __future__ import annotations

import dataclasses
import json

from support.run_report import render_markdown
from support.samples import measured, run_record
from wirespeed.analysis.expectations import Verdict
from wirespeed.model import (
    DirectionResult,
    Flow,
    Result,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.plan import expand, parse_plan
from wirespeed.report import build_report, render_json
from wirespeed.report.model import Report
from wirespeed.store.records import RunInfo

PLAN = """
title: regression gate
lab: {link: fe}
paths:
  - {name: WAN, topology: endpoint}
repetitions: 3
defaults: {tool: iperf3, duration: 1}
tests:
  - {id: 1, name: reaches 50M, expect: {goodput: ">= 50M"}}
  - {id: 2, name: cannot reach 200M, expect: {goodput: ">= 200M"}}
  - {id: 3, name: nothing asked}
"""
# Test 1's second repetition was disturbed: the median (93) still meets 50M.
MBIT = {"1": [93.0, 20.0, 94.0], "2": [93.0, 92.0, 94.0], "3": [90.0, 91.0, 92.0]}


def _outcome(trial: Trial, mbit: float | None) -> TrialOutcome:
    if mbit is None:
        return TrialOutcome(trial, TrialStatus.FAILED, 0.0, 1.0, reason="connection refused")
    direction = DirectionResult(flow=Flow.UP, sent=measured(mbit, 1), received=measured(mbit, 1))
    spec = trial.test.spec
    result = Result(tool=trial.test.tool, protocol=spec.protocol, directions=(direction,))
    return TrialOutcome(trial, TrialStatus.OK, 0.0, 1.0, result=result)


def _report(plan_text: str = PLAN, fail: str | None = None) -> Report:
    plan = parse_plan(plan_text)
    outcomes = [
        _outcome(t, None if t.test.id == fail else MBIT[t.test.id][t.repetition - 1])
        for t in expand(plan)
    ]
    record = run_record(*outcomes)
    info = RunInfo(title=record.info.title, started_at=record.info.started_at, plan_text=plan_text)
    return build_report(dataclasses.replace(record, info=info))


def test_expectations_are_judged_on_the_median_over_repetitions() -> None:
    report = _report()
    reaches, cannot, plain = (row.cells[0] for row in report.rows)
    assert reaches is not None and cannot is not None and plain is not None
    (judged,) = reaches.judgements
    assert judged.measured == 93e6  # not the disturbed 20 Mbit/s repetition
    assert (judged.n, judged.verdict) == (3, Verdict.MET)
    assert cannot.verdict is Verdict.NOT_MET
    assert plain.verdict is None and plain.judgements == ()
    assert report.verdict is Verdict.NOT_MET


def test_a_cell_nothing_measured_is_not_measured_and_fails_the_gate() -> None:
    report = _report(fail="1")
    cell = report.rows[0].cells[0]
    assert cell is not None and cell.verdict is Verdict.NOT_MEASURED
    note = next(n for n in report.notes if n.code == "expectation-not-measured")
    assert note.details == ("1 WAN: nothing measured",)
    assert len(note.trials) == 3


def test_markdown_marks_each_cell_and_says_expected_against_measured_in_a_note() -> None:
    text = render_markdown(_report())
    row_1 = next(line for line in text.splitlines() if line.startswith("| 1 reaches 50M"))
    row_2 = next(line for line in text.splitlines() if line.startswith("| 2 cannot"))
    row_3 = next(line for line in text.splitlines() if line.startswith("| 3 nothing"))
    assert "\N{CHECK MARK} expectation met" in row_1
    assert "\N{BALLOT X} expectation not met" in row_2
    assert "expectation" not in row_3
    assert (
        "goodput &gt;= 200.0 Mbit/s expected: not met (`2 WAN: 93.0 Mbit/s, median of 3`)" in text
    )


def test_json_gives_each_judgement_and_the_runs_verdict() -> None:
    document = json.loads(render_json(_report()))
    assert document["version"] == 2  # keys added, nothing renamed
    assert document["expectations"] == {
        "verdict": "not met",
        "met": 1,
        "not_met": 1,
        "not_measured": 0,
    }
    cells = [row["cells"][0] for row in document["table"]]
    assert cells[1]["expectations"] == [
        {
            "measurement": "goodput",
            "flow": "up",
            "labels": {"flow": "up"},
            "unit": "bit/s",
            "comparison": ">=",
            "expected": 200e6,
            "written": ">= 200M",
            "measured": 93e6,
            "n": 3,
            "verdict": "not met",
        }
    ]
    assert cells[2]["expectations"] == []
    kinds = {n["code"] for n in document["notes"] if n["kind"] == "expectation"}
    assert kinds == {"expectation-met", "expectation-not-met"}


def test_a_run_whose_plan_expects_nothing_or_that_has_no_plan_has_no_verdict() -> None:
    plain = "\n".join(line for line in PLAN.splitlines() if "expect" not in line)
    plain += "\n  - {id: 1}\n  - {id: 2}\n"
    document = json.loads(render_json(_report(plain)))
    assert document["expectations"] == {
        "verdict": None,
        "met": 0,
        "not_met": 0,
        "not_measured": 0,
    }
    imported = build_report(run_record(*(d.outcome for d in _report().trials)))
    assert imported.verdict is None
