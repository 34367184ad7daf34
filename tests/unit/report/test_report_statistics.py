"""Repetitions in the report: the spread beside the median, and notes when it is wide."""

from __future__ import annotations

import csv
import io
import json

from report_samples import BR0, TCP, WAN, ok, sample_record, tcp_direction

from support.run_report import render_markdown
from support.samples import START, run_record
from wirespeed.model import Flow
from wirespeed.report import build_report, render_csv, render_json
from wirespeed.report.text import SINGLE_RUN_ALL, SINGLE_RUN_SOME, cell_lines
from wirespeed.store.records import RunRecord


def _record(*values: tuple[str, list[float]]) -> RunRecord:
    paths = {"WAN": WAN, "Br0": BR0}
    outcomes = tuple(
        ok(TCP, paths[name], tcp_direction(Flow.UP, mbit), repetition=k)
        for name, mbits in values
        for k, mbit in enumerate(mbits, start=1)
    )
    return run_record(*outcomes, title="r2s", finished_at=START + 100)


def test_five_steady_repetitions_show_median_interval_and_cv() -> None:
    report = build_report(_record(("WAN", [941.2, 941.6, 941.0, 941.3, 940.9])))
    cell = report.rows[0].cells[0]
    assert cell_lines(cell) == ["941.2 \N{PLUS-MINUS SIGN}0.4 / 941.5 (n=5, CV 0.03 %)"]
    assert report.notes == ()


def test_the_seeds_r2s_bridge_is_noted_as_unstable() -> None:
    report = build_report(_record(("Br0", [681, 360, 360, 647, 460, 64])))
    [note] = report.notes
    assert note.code == "unstable"
    assert "the standard deviation is more than 5 % of the mean" in note.text
    assert note.details == ("#1 Br0: CV 52.7 % over 6 repetitions",)
    assert len(note.trials) == 6
    cell = report.rows[0].cells[0]
    assert cell is not None and cell.notes == (1,)
    assert cell_lines(cell)[0].endswith("(n=6, CV 52.7 %) [1]")


def test_an_outlying_repetition_is_noted_on_its_trial() -> None:
    report = build_report(_record(("WAN", [941, 941, 940, 942, 680])))
    codes = [n.code for n in report.notes]
    assert codes == ["unstable", "outlier"]
    outlier = report.notes[1]
    assert outlier.trials == ("#1/WAN/default/5",)
    assert outlier.details == ("#1/WAN/default/5: 680.0 Mbit/s, median 941.0",)
    fifth = next(d for d in report.trials if d.outcome.trial.repetition == 5)
    assert fifth.notes == (1, 2)
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    assert [r["outlier"] for r in rows] == ["no", "no", "no", "no", "yes"]
    assert {r["group_n"] for r in rows} == {"5"}
    assert {r["group_stability"] for r in rows} == {"unstable"}


def test_a_report_of_single_runs_says_so_once() -> None:
    markdown = render_markdown(build_report(_record(("WAN", [941]), ("Br0", [940]))))
    assert markdown.count("Single run") == 1
    assert SINGLE_RUN_ALL in markdown
    assert "(n=" not in markdown.split("Mbit/s:")[0]


def test_a_report_of_some_single_runs_says_which() -> None:
    markdown = render_markdown(build_report(sample_record()))
    assert SINGLE_RUN_SOME in markdown


def test_a_report_of_repeated_runs_does_not_mention_single_runs() -> None:
    markdown = render_markdown(build_report(_record(("WAN", [941, 940, 941]))))
    assert "ingle run" not in markdown


def test_json_cells_carry_the_statistics() -> None:
    data = json.loads(render_json(build_report(sample_record())))
    assert data["version"] == 2
    flow = data["table"][0]["cells"][0]["flows"][0]
    stats = flow["statistics"]
    assert stats["n"] == 3 and stats["median_bps"] == 941.2e6
    assert stats["interval"]["statistic"] == "median"
    assert stats["interval"]["low"] <= stats["median_bps"] <= stats["interval"]["high"]
    assert stats["stability"] == "stable" and stats["outliers"] == []
    assert flow["trials"] == ["#1/WAN/default/1", "#1/WAN/default/2", "#1/WAN/default/3"]
    single = data["table"][0]["cells"][1]["flows"][0]["statistics"]
    assert (single["stability"], single["interval"], single["cv"]) == ("single run", None, None)
