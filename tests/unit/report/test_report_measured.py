"""A run's benchmarks are reported as measurements: one row per measurement, one column
per place, each a median with its spread, in every format; nothing of a traffic run's
table changes."""

from __future__ import annotations

import csv
import io
import json

from rich.console import Console

from support.bench_samples import NEO2, R4S_419, device_path, failed_bench, repeated
from support.run_report import render_markdown, render_terminal
from support.samples import run_record
from wirespeed.report import build_report, render_csv, render_json
from wirespeed.report.html import render_html
from wirespeed.report.model import Report

R4S, NEO = device_path("R4S"), device_path("Neo2")
SPREAD = (1.0, 1.002, 0.998)


def _report() -> Report:
    outcomes = [*repeated(R4S, R4S_419, SPREAD), *repeated(NEO, NEO2, (1.0,)), failed_bench(NEO, 2)]
    return build_report(run_record(*outcomes))


def test_the_table_has_a_row_per_measurement_and_a_column_per_place() -> None:
    report = _report()
    assert report.rows == ()  # no traffic test
    assert [p.label for p in report.measured_columns] == ["R4S", "Neo2"]
    assert [r.item for r in report.measured] == [
        "AES-128-CBC 1 KB, no EVP",
        "AES-128-CBC 1 KB, EVP",
    ]
    r4s, neo2 = report.measured[0].cells
    assert r4s is not None and r4s.n == 3 and r4s.summary is not None
    assert r4s.summary.median == R4S_419[0]
    assert neo2 is not None and neo2.n == 1 and neo2.trials_failed == 1
    assert neo2.notes  # the failure's note


def test_every_format_says_the_figures() -> None:
    report = _report()
    buffer = io.StringIO()
    render_terminal(report, Console(file=buffer, width=160, color_system=None))
    terminal = buffer.getvalue()
    assert "Benchmark" in terminal and "92.1 \N{PLUS-MINUS SIGN}0.2 MB/s" in terminal
    assert "(n=3, CV 0.2 %)" in terminal and "25.19 MB/s" in terminal
    markdown = render_markdown(report)
    assert "| Benchmark | R4S | Neo2 |" in markdown
    assert "aes AES-128-CBC 1 KB, EVP \N{UPWARDS ARROW}" in markdown
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    assert len(rows) == 3 * 2 + 2 + 1  # R4S 3 x 2, Neo2 1 x 2, one failed trial
    evp = [r for r in rows if r["path"] == "R4S" and r["labels"] == "block=1 KB;api=EVP"]
    assert {r["group_n"] for r in evp} == {"3"}
    assert float(evp[0]["group_median"]) == R4S_419[1]
    document = json.loads(render_json(report))
    assert document["measured"][1]["cells"][0]["summary"]["median"] == R4S_419[1]
    assert document["trials"][0]["measurements"][0]["unit"] == "B/s"
    page = render_html(report)
    assert 'id="benchmarks"' in page and "1283 \N{PLUS-MINUS SIGN}3 MB/s" in page
