"""A run of forwarding-rate searches, read back from a store, is reported as a table per
test and path: frame sizes down, each direction's NDR, L2/L1, % of the ceiling, the
forwarding rate, PDR and what the search took, in every format; a bound the generator
set and a search that stopped early are said so; no figure is listed twice."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from rich.console import Console

from support.cli import run_cli
from support.forwarding_samples import (
    START,
    bridge_outcomes,
    failed_forwarding,
    nat_outcomes,
)
from support.run_report import render_markdown, render_terminal
from support.samples import run_record, store_runs
from wirespeed.report import build_report, render_csv, render_json
from wirespeed.report.forwarding_text import FRAME_CONVENTION
from wirespeed.report.html import render_html
from wirespeed.report.model import Report
from wirespeed.store import Store

GENERATOR_LIMITED = (
    "64 B up: generator-limited: the generator offered at most 180,000 pps; "
    "the device forwards at least 180,000 pps"
)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("forwarding") / "runs.db"
    outcomes = [*bridge_outcomes(3), *nat_outcomes(2), failed_forwarding()]
    store_runs(db, run_record(*outcomes, title="R4S forwarding", started_at=START))
    return db


def _report(db: Path, outputs: bool = True) -> Report:
    with Store.open(db, read_only=True) as store:
        record = store.load_run(1, intervals="packed", outputs=outputs, commands=outputs)
    return build_report(record)


def _terminal(report: Report, width: int = 200) -> str:
    buffer = io.StringIO()
    render_terminal(report, Console(file=buffer, width=width, color_system=None))
    return buffer.getvalue()


def test_a_table_per_test_and_path_frame_sizes_ascending(db: Path) -> None:
    report = _report(db)
    assert report.rows == () and report.measured == ()  # the figures are listed once
    bridge, nat = report.forwarding
    assert (bridge.test_id, bridge.place.label, nat.place.label) == ("fwd", "Br0", "NAT")
    assert [row.frame for row in bridge.rows] == [64, 128, 256, 512, 1024, 1280, 1518]
    assert bridge.directions == ("up", "down") and bridge.goals == ("NDR", "PDR")
    assert (bridge.trials_ok, bridge.trials_failed) == (3, 1)
    cell = bridge.rows[0].cells[0]
    assert cell is not None and len(cell.searches) == 3
    ndr = cell.figure("NDR")
    assert ndr is not None and ndr.n == 3 and ndr.summary is not None
    # The device's 15,000 pps limit, within a search's 1 %.
    assert 14_850 <= ndr.summary.median <= 15_000
    # 1518 B: the 170 Mbit/s (wire) policer binds first, ~13,800 pps.
    big = bridge.rows[-1].cells[0]
    assert big is not None and (wire := big.figure("NDR L1")) is not None
    assert wire.summary is not None and 165e6 < wire.summary.median <= 170e6
    assert bridge.has_ceiling and not nat.has_ceiling  # the NAT path is unshaped


def test_the_notes_say_what_the_searches_logs_say(db: Path) -> None:
    report = _report(db)
    texts = {note.code: note.text for note in report.notes}
    assert texts["generator-limited"].startswith(GENERATOR_LIMITED)
    assert "not the device's" in texts["generator-limited"]
    assert texts["not-converged"].startswith("1280 B down: the search stopped before converging")
    stopped = next(n for n in report.notes if n.code == "not-converged")
    assert stopped.trials == ("fwd/Br0/default/2",)
    assert "reached its limit of 8 trials" in stopped.details[0]
    assert "failed" in texts  # the failed repetition's own note, on the table's title
    nat_cell = report.forwarding[1].rows[0].cells[0]
    assert nat_cell is not None and nat_cell.notes and nat_cell.generator_limited("NDR")


def test_the_terminal_and_markdown_show_the_table_its_convention_and_notes(db: Path) -> None:
    report = _report(db)
    for text in (_terminal(report), render_markdown(report)):
        assert "fwd forwarding rate on Br0: gbe (1 Gbit/s), MTU 1500" in text
        assert "\N{UPWARDS ARROW} NDR pps" in text and "\N{DOWNWARDS ARROW} PDR pps" in text
        assert "% of ceiling" in text and "1518 B" in text
        assert "\N{GREATER-THAN OR EQUAL TO} 180,000" in text
        assert GENERATOR_LIMITED in " ".join(text.split())
        assert "stopped before converging" in text
        assert " ".join(FRAME_CONVENTION.split()) in " ".join(text.split())
        assert "Benchmark" not in text  # no second listing of the same figures
    markdown = render_markdown(report)
    assert "| Frame | \N{UPWARDS ARROW} NDR pps | \N{UPWARDS ARROW} L2/L1 Mbit/s |" in markdown
    rows = [line for line in markdown.splitlines() if line.startswith("| 64 B |")]
    assert len(rows) == 2  # Br0's and NAT's
    # The unshaped NAT path has no ceiling column.
    nat_header = next(
        line for line in markdown.splitlines() if "| Frame |" in line and "%" not in line
    )
    assert "fwd. pps" in nat_header


def test_a_narrow_terminal_gets_a_table_per_direction(db: Path) -> None:
    text = _terminal(_report(db), width=100)
    assert "MTU 1500; 1 of 4 trials failed [1], up" in text
    assert "MTU 1500; 1 of 4 trials failed [1], down" in text


def test_csv_and_json_carry_the_figures_and_the_searches(db: Path) -> None:
    report = _report(db)
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    ndr = [r for r in rows if r["measurement"] == "NDR" and r["path"] == "Br0"]
    assert len(ndr) == 3 * 7 * 2
    first = next(r for r in ndr if r["labels"] == "frame=64 B;direction=up")
    assert first["unit"] == "pps" and first["group_n"] == "3" and first["group_median"]
    assert {r["status"] for r in rows if r["repetition"] == "4"} == {"failed"}

    document = json.loads(render_json(report))
    bridge, nat = document["forwarding"]
    assert bridge["frame_convention"] == FRAME_CONVENTION
    assert [row["frame"] for row in bridge["rows"]][:2] == [64, 128]
    cell = bridge["rows"][0]["cells"][0]
    assert cell["measurements"]["NDR"]["summary"]["n"] == 3
    search = cell["searches"][0]
    assert search["ceiling_pps"] == pytest.approx(1_488_095.2, abs=0.1)
    trial = search["trials"][0]
    assert set(trial) >= {"intended_pps", "offered_pps", "received", "loss_ratio"}
    assert trial["loss_ratio"] > 0.9  # the first trial, at line rate, lost nearly all
    assert {g["name"] for g in search["goals"]} == {"NDR", "PDR"}
    limited = nat["rows"][0]["cells"][0]["searches"][0]
    assert limited["generator_ceiling_pps"] == 180_000.0
    assert limited["goals"][0]["generator_limited"] is True
    codes = {note["code"] for note in document["notes"]}
    assert {"generator-limited", "not-converged", "failed"} <= codes
    # The trial's own measurements are there too, as every benchmark's.
    assert document["trials"][0]["measurements"][0]["labels"] == {
        "frame": "64 B",
        "direction": "up",
    }


def test_html_has_the_tables_and_the_charts_data(db: Path) -> None:
    page = render_html(_report(db))
    assert 'id="forwarding"' in page and 'id="ws-forwarding"' in page
    assert "generator-limited" in page and "with their FCS" in page
    assert 'id="trials"' not in page  # searches only: no throughput over time


def test_a_run_loaded_without_raw_outputs_keeps_its_figures(db: Path) -> None:
    report = _report(db, outputs=False)
    cell = report.forwarding[0].rows[0].cells[0]
    assert cell is not None and cell.searches == () and cell.figure("NDR") is not None
    assert not any(note.code == "generator-limited" for note in report.notes)


def test_the_report_command_reads_the_searches_logs(db: Path) -> None:
    done = run_cli("report", "--db", str(db), "--format", "markdown")
    assert done.status == 0, done.err
    assert GENERATOR_LIMITED in done.out


def test_a_legend_with_no_goals_to_name_says_no_empty_brackets() -> None:
    # Every search of the table failed: no log defined a goal.
    from wirespeed.report.forwarding import ForwardingTable
    from wirespeed.report.forwarding_text import legend

    table = ForwardingTable("1", "rate", None, None, (), (), ("in",), (), 0, 2, ())  # type: ignore[arg-type]
    said = legend(table)
    assert "()" not in said
    assert said.startswith("Frames/s per direction offered by the generator, one repetition each: ")
