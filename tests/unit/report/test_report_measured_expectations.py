"""Expectations of a search's and a benchmark's measurements: judged on the median over
repetitions, a cell nothing measured is "not measured", and a run judges with what was
stored with it, not with its plan text read again."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

from rich.console import Console

from support.run_report import render_markdown, render_terminal
from support.samples import run_record, store_runs
from wirespeed.analysis.expectations import Verdict
from wirespeed.expectations import encode
from wirespeed.model import Better, Measurement, Result, Tool, Trial, TrialOutcome, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.report import build_report, render_json
from wirespeed.report.html import render_html
from wirespeed.report.model import Report
from wirespeed.store import Store
from wirespeed.store.records import RunInfo

PLAN = """
lab: {link: gbe, dut: {forward_pps: 15000}}
paths:
  - {name: R, topology: router}
  - {name: DUT, topology: device}
repetitions: 3
tests:
  - id: fwd
    tool: forwarding
    options: {frame_sizes: [64, 1518], goals: [{name: NDR, loss: 0}]}
    expect: {NDR: ">= 14k"}
  - id: aes
    tool: openssl
    options: {ciphers: [aes-256-gcm], blocks: [8K], evp: with}
    expect: {AES-256-GCM: {block: 8K, value: ">= 500 MB/s"}}
"""
# The second repetition's search was disturbed: the median (14,900) still meets 14k.
NDR_64 = [15_000.0, 9_000.0, 14_900.0]
# Per CPU cluster (a big.LITTLE board): the plan cannot know them, each is judged.
AES = {"big": 1.2e9, "little": 0.3e9}


def _labels(frame: int) -> tuple[tuple[str, str], ...]:
    return (("frame", f"{frame} B"), ("direction", "up"))


def _outcome(trial: Trial, *, failed: bool = False) -> TrialOutcome:
    if failed:
        return TrialOutcome(trial, TrialStatus.FAILED, 0.0, 1.0, reason="no route to host")
    found: tuple[Measurement, ...]
    if trial.test.tool is Tool.FORWARDING:
        ndr = NDR_64[trial.repetition - 1]
        found = (
            Measurement("NDR", "pps", Better.HIGHER, ndr, _labels(64)),
            Measurement("search trials", "count", Better.LOWER, 9.0, _labels(64)),
            # At 1518 B even the lowest load lost: no NDR, only the search's own figures.
            Measurement("search trials", "count", Better.LOWER, 7.0, _labels(1518)),
        )
    else:
        found = tuple(
            Measurement(
                "AES-256-GCM",
                "B/s",
                Better.HIGHER,
                value,
                (("block", "8 KB"), ("api", "EVP"), ("cluster", cluster)),
            )
            for cluster, value in AES.items()
        )
    result = Result(tool=trial.test.tool, protocol=None, directions=(), measurements=found)
    return TrialOutcome(trial, TrialStatus.OK, 0.0, 1.0, result=result)


def _report(info_of: dict[str, object] | None = None, *, fail: str | None = None) -> Report:
    plan = parse_plan(PLAN)
    outcomes = [_outcome(t, failed=t.test.id == fail) for t in expand(plan)]
    record = run_record(*outcomes)
    info = RunInfo(
        title="t",
        started_at=record.info.started_at,
        plan_text=PLAN,
        expectations=encode(plan.expectations),
    )
    if info_of:
        info = dataclasses.replace(info, **info_of)  # type: ignore[arg-type]
    return build_report(dataclasses.replace(record, info=info))


def test_each_cell_is_judged_on_its_median_and_a_cell_never_measured_is_not_measured() -> None:
    report = _report()
    by_cell = {(j.place, j.labels): j for j in report.measured_judgements}
    ndr_64 = by_cell[("fwd/R/default", _labels(64))]
    assert (ndr_64.measured, ndr_64.n, ndr_64.verdict) == (14_900.0, 3, Verdict.MET)
    ndr_1518 = by_cell[("fwd/R/default", _labels(1518))]
    assert (ndr_1518.measured, ndr_1518.verdict) == (None, Verdict.NOT_MEASURED)
    big = by_cell[("aes/DUT/default", (("block", "8 KB"), ("api", "EVP"), ("cluster", "big")))]
    little = by_cell[
        ("aes/DUT/default", (("block", "8 KB"), ("api", "EVP"), ("cluster", "little")))
    ]
    assert (big.verdict, little.verdict) == (Verdict.MET, Verdict.NOT_MET)
    assert report.verdict is Verdict.NOT_MET
    texts = {n.text: n.details for n in report.notes}
    assert texts["NDR >= 14,000 pps expected: not measured"] == (
        "fwd R: NDR 1518 B, up: nothing measured",
    )
    assert texts["AES-256-GCM 8 KB >= 500.0 MB/s expected: not met"] == (
        "aes DUT: AES-256-GCM 8 KB, EVP, little: 300.0 MB/s, median of 3",
    )


def test_a_search_that_failed_is_a_missed_expectation_saying_so() -> None:
    report = _report(fail="fwd")
    judged = [j for j in report.measured_judgements if j.place == "fwd/R/default"]
    assert [(j.labels, j.verdict) for j in judged] == [
        (_labels(64), Verdict.NOT_MEASURED),
        (_labels(1518), Verdict.NOT_MEASURED),
    ]
    note = next(n for n in report.notes if n.code == "expectation-not-measured")
    assert len(note.trials) == 3  # the failed repetitions it concerns


def test_the_json_report_has_the_measured_judgements_and_counts_them() -> None:
    document = json.loads(render_json(_report()))
    assert document["expectations"] == {
        "verdict": "not met",
        "met": 2,
        "not_met": 1,
        "not_measured": 1,
    }
    first = document["measured_expectations"][0]
    assert first == {
        "place": "fwd/R/default",
        "measurement": "NDR",
        "flow": None,
        "labels": {"frame": "64 B", "direction": "up"},
        "unit": "pps",
        "comparison": ">=",
        "expected": 14000.0,
        "written": ">= 14k",
        "measured": 14900.0,
        "n": 3,
        "verdict": "met",
    }


def test_a_report_judges_with_the_stored_expectations_not_the_plan_text() -> None:
    # A later version that refuses the stored plan (here: text that is no plan at all)
    # still judges the run as it was judged when it ran.
    report = _report({"plan_text": "tests: ["})
    assert report.verdict is Verdict.NOT_MET
    # And a plan text that says something else does not change the verdict either.
    lenient = PLAN.replace('">= 500 MB/s"', '">= 1 MB/s"')
    assert _report({"plan_text": lenient}).verdict is Verdict.NOT_MET


def test_a_run_stored_before_expectations_were_reads_them_from_its_plan_as_before() -> None:
    report = _report({"expectations": None})
    assert report.verdict is Verdict.NOT_MET
    assert len(report.measured_judgements) == 4
    assert _report({"expectations": None, "plan_text": None}).verdict is None


def test_the_store_keeps_the_expectations_with_the_run(tmp_path: Path) -> None:
    plan = parse_plan(PLAN)
    outcomes = [_outcome(t) for t in expand(plan)]
    stored = encode(plan.expectations)
    record = run_record(*outcomes)
    record = dataclasses.replace(record, info=dataclasses.replace(record.info, expectations=stored))
    (run_id,) = store_runs(tmp_path / "runs.db", record)
    with Store.open(str(tmp_path / "runs.db"), read_only=True) as store:
        loaded = store.load_run(run_id)
    assert loaded.info.expectations == stored
    assert build_report(loaded).verdict is Verdict.NOT_MET


def test_every_format_says_what_was_expected_of_a_benchmark_and_what_it_measured() -> None:
    report = _report()
    expected = "AES-256-GCM 8 KB >= 500.0 MB/s expected: not met"
    detail = "aes DUT: AES-256-GCM 8 KB, EVP, little: 300.0 MB/s, median of 3"
    buffer = io.StringIO()
    render_terminal(report, Console(file=buffer, width=200, color_system=None))
    assert expected in buffer.getvalue() and detail in buffer.getvalue()
    markdown = render_markdown(report)
    assert expected.replace(">", "&gt;") in markdown and detail in markdown
    page = render_html(report)
    assert expected.replace(">", "&gt;") in page and detail in page
