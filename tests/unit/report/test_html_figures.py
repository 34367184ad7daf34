"""The HTML page says what the tables say: a ceiling rounded once (94.1 on a 100 Mbit/s
link, not 94.15 shown as 94.2), and a run that moved no traffic has no throughput chart."""

from __future__ import annotations

import lzma
from pathlib import Path

from support.bench_samples import R4S_419, bench_outcome, device_path, failed_bench
from support.samples import run_record
from wirespeed.report import build_report
from wirespeed.report.html import render_html
from wirespeed.report.html_data import report_data
from wirespeed.report.html_monitor import CoreLoadSeries, DeviceSamples
from wirespeed.report.text import ceiling_text
from wirespeed.store import Store

REPORTS = Path(__file__).parents[2] / "fixtures" / "reports"


def test_the_pages_ceilings_are_the_tables_figures(tmp_path: Path) -> None:
    # Two real runs on a shaped 100 Mbit/s link: TCP's ceiling there is 94.148 Mbit/s.
    db = tmp_path / "runs.db"
    db.write_bytes(lzma.decompress((REPORTS / "runs.db.xz").read_bytes()))
    with Store.open(str(db), read_only=True) as store:
        report = build_report(store.load_run(1, intervals=False, outputs=False, commands=False))
    data = report_data(report)
    table = {
        ceiling_text(figure)
        for row in report.rows
        for cell in row.cells
        if cell is not None
        for figure in cell.flows
    }
    bars = {bar["ceiling"] for group in data["bars"] for bar in group["bars"]}
    trials = {trial["ceiling"] for trial in data["trials"]}
    # The page's script shows them with one decimal (toFixed(1)): what the table shows.
    assert {f"{ceiling:.1f}" for ceiling in bars} == table
    assert {f"{ceiling:.1f}" for ceiling in trials} == table
    assert "94.1" in table and 94.1 in bars and 94.15 not in bars | trials


def test_a_run_of_benchmarks_only_has_no_throughput_over_time() -> None:
    path = device_path("R4S")
    page = render_html(build_report(run_record(bench_outcome(path, R4S_419), failed_bench(path))))
    assert 'id="benchmarks"' in page
    assert 'id="trials"' not in page and "Throughput over time" not in page
    assert 'id="device"' not in page  # nothing sampled: no device section either


def test_a_benchmarks_device_samples_keep_their_trial_picker() -> None:
    path = device_path("R4S")
    outcome = bench_outcome(path, R4S_419)
    samples = DeviceSamples(
        trial=outcome.trial.key,
        host="r4s",
        role="dut",
        cpus=(0,),
        t=(1.0, 2.0),
        cores=(CoreLoadSeries(cpu=0, user=(90.0, 95.0), system=(2.0, 1.0), softirq=(0, 0)),),
        interrupts=(),
    )
    page = render_html(build_report(run_record(outcome)), [samples])
    assert 'id="trials"' not in page and 'id="trial-plot"' not in page
    device = page[page.index('id="device"') :]
    assert 'id="trial-select"' in device[: device.index("</section>")]
    # A benchmark moves no traffic: no flow, no goodput of one, on its trial's line.
    (trial,) = report_data(build_report(run_record(outcome)))["trials"]
    assert trial["flows"] == []
