"""Terminal, Markdown, CSV and JSON all render the same report model."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from pathlib import Path

from report_samples import sample_record
from rich.console import Console

from support.run_report import render_markdown, render_terminal
from support.samples import store_runs
from wirespeed.report import build_report, render_csv, render_json, render_runs
from wirespeed.report.run_json import FORMAT, VERSION
from wirespeed.store import RunStatus, RunSummary, Store


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=140, color_system=None, legacy_windows=False), out


def test_markdown_is_shaped_like_the_seeds_table() -> None:
    text = render_markdown(build_report(sample_record()))
    assert text.startswith("# Nanopi-R4S\n\n- run 7, 2020-12-09 20:00 UTC, 33 min 20 s, complete")
    assert "- r4s: dut, OpenWrt 19.07.4, 5.4.75, iperf2 2.0.13\n" in text
    assert "- WAN: workstation \N{RIGHTWARDS ARROW} r4s, endpoint; gbe (1 Gbit/s), MTU 1500" in text
    assert "- lab bridge: bridge topology, link gbe: MTU 1500" in text
    assert "| Test | WAN | Br0 |" in text
    assert "| #1 TCP | 941 ±2 / 941.5 (n=3, CV 0.1 %) | 940 / 941.5 |" in text
    assert "| #4 TCP dual -P 2 | \N{UPWARDS ARROW} 922 / 941.5<br>\N{DOWNWARDS ARROW} 915" in text
    assert (
        "- \\[1\\] failed: the reverse connection never arrived (iperf2 -d): test #4 on Br0, "
        "repetition 1\n"
    ) in text


def test_markdown_escapes_pipes_in_names() -> None:
    record = sample_record()
    record = dataclasses.replace(record, info=dataclasses.replace(record.info, title="a | b"))
    assert render_markdown(build_report(record)).startswith("# a \\| b\n")


def test_a_run_without_a_title_is_named_by_its_id() -> None:
    record = sample_record()
    record = dataclasses.replace(record, info=dataclasses.replace(record.info, title=None))
    report = build_report(record)
    assert render_markdown(report).startswith("# wirespeed run 7\n")
    assert json.loads(render_json(report))["run"]["title"] == "wirespeed run 7"


def test_terminal_prints_the_table_and_the_notes() -> None:
    console, out = _console()
    render_terminal(build_report(sample_record()), console)
    text = out.getvalue()
    assert "941 ±2 / 941.5 (n=3, CV 0.1 %)" in text
    assert "64.0 / 957.0, loss 99.97 % [2]" in text  # "[2]" survives: no markup parsing
    assert "[3] no server report" in text
    assert "r4s: dut, OpenWrt 19.07.4, 5.4.75, iperf2 2.0.13" in text


def test_csv_has_one_row_per_trial_and_flow() -> None:
    rows = list(csv.DictReader(io.StringIO(render_csv(build_report(sample_record())))))
    # 4 x #1, dual #4 on WAN (2 flows) and on Br0 (failed: still 2 rows), 2 x #5, #7.
    assert len(rows) == 4 + 2 + 2 + 2 + 1
    dual = [r for r in rows if r["trial"] == "#4/WAN/default/1"]
    assert [r["flow"] for r in dual] == ["up", "down"]
    assert float(dual[1]["goodput_bps"]) == 915.3e6
    failed = [r for r in rows if r["status"] == "failed"]
    assert {r["goodput_bps"] for r in failed} == {""}  # unknown, not zero
    lossy = next(r for r in rows if r["trial"] == "#5/Br0/default/1")
    assert (lossy["lost"], lossy["packets"]) == ("2137748578", "2138402602")
    assert round(float(lossy["ceiling_bps"]) / 1e6, 1) == 957.0
    no_report = next(r for r in rows if r["test_id"] == "#7")
    assert (no_report["goodput_source"], no_report["warnings"]) == ("client", "no-server-report")


def test_json_is_versioned_and_carries_the_interval_series() -> None:
    data = json.loads(render_json(build_report(sample_record())))
    assert (data["format"], data["version"]) == (FORMAT, VERSION) == ("wirespeed-report", 2)
    assert [c["label"] for c in data["columns"]] == ["WAN", "Br0"]
    first = data["table"][0]["cells"][0]
    assert first["flows"][0]["n"] == 3
    trial = data["trials"][0]
    assert (
        trial["ceiling"]["formula"]
        == "1 Gbit/s \N{MULTIPLICATION SIGN} (1500\N{MINUS SIGN}52)/(1500+38)"
    )
    assert trial["flows"][0]["intervals"][0]["bits_per_second"] == 941.2e6
    assert trial["flows"][0]["streams"][0]["id"] == 3
    failed = next(t for t in data["trials"] if t["status"] == "failed")
    assert [f["measured"] for f in failed["flows"]] == [False, False]
    assert data["notes"][0]["kind"] == "failure"


def test_runs_list_shows_status_and_counts() -> None:
    console, out = _console()
    render_runs(
        [
            RunSummary(1, 1607544000.0, 1607546000.0, "R4S", RunStatus.COMPLETE, 8, 1, ("WAN",)),
            RunSummary(2, 1607600000.0, None, "R2S", RunStatus.RUNNING, 0, 0, ()),
        ],
        console,
    )
    text = out.getvalue()
    assert "2020-12-09 20:00 UTC" in text
    assert "complete" in text and "running" in text
    assert "R4S" in text and "WAN" in text


def test_an_empty_list_of_runs_says_so() -> None:
    console, out = _console()
    render_runs([], console)
    assert "no runs stored yet" in out.getvalue()


def test_a_report_from_the_store_alone_equals_one_from_memory(tmp_path: Path) -> None:
    record = sample_record()
    (run_id,) = store_runs(tmp_path / "w.db", record)
    with Store.open(tmp_path / "w.db") as store:
        stored = store.load_run(run_id)
    assert stored.outcomes == record.outcomes
    # Same report but for the run id the database gave.
    expected = render_json(build_report(record)).replace('"id": 7', f'"id": {run_id}', 1)
    assert render_json(build_report(stored)) == expected
