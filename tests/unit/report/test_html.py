"""The HTML report: one self-contained page whose labels can never become markup."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
from report_samples import sample_record

from support.cli import run_cli
from wirespeed.model import Flow, Interval, ModelError
from wirespeed.report import build_report
from wirespeed.report.html import NO_SAMPLES, render_html
from wirespeed.report.html_data import report_data
from wirespeed.report.html_json import script_json
from wirespeed.report.html_monitor import CoreLoadSeries, DeviceSamples, IrqDistribution

HOSTILE = "<script>alert(1)</script>"
SEEDS = Path(__file__).parents[2] / "fixtures" / "seeds"


def _data_block(page: str) -> str:
    match = re.search(r'<script type="application/json" id="ws-data">(.*?)</script>', page, re.S)
    assert match is not None
    return match.group(1)


def _samples(trial: str) -> DeviceSamples:
    return DeviceSamples(
        trial=trial,
        host="r4s",
        role="dut",
        cpus=(0, 1),
        t=(1.0, 2.0),
        cores=(
            CoreLoadSeries(0, user=(1.0, 2.0), system=(5.0, 6.0), softirq=(80.0, 85.0)),
            CoreLoadSeries(1, user=(1.0, 1.0), system=(2.0, 2.0), softirq=(3.0, 3.0)),
        ),
        interrupts=(IrqDistribution("27", "eth0", (41_000.0, 0.0)),),
    )


def test_a_hostile_title_is_text_in_the_markup_and_in_the_data() -> None:
    record = sample_record()
    record = dataclasses.replace(record, info=dataclasses.replace(record.info, title=HOSTILE))
    page = render_html(build_report(record))
    assert HOSTILE not in page
    assert "<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>" in page
    assert page.count("<script") == 2  # the data block and the plotting script


def test_labels_cannot_close_the_data_block() -> None:
    text = script_json({"label": "</script><img src=x onerror=alert(1)> & more"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"label": "</script><img src=x onerror=alert(1)> & more"}


def test_the_data_block_carries_the_report_data_unchanged() -> None:
    report = build_report(sample_record())
    samples = (_samples("#1/WAN/default/1"),)
    page = render_html(report, samples)
    assert json.loads(_data_block(page)) == report_data(report, samples)


def test_the_page_asks_for_nothing_from_the_network() -> None:
    page = render_html(build_report(sample_record()))
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "default-src 'none'" in page  # and the browser is told to refuse any request


def test_bars_carry_the_median_its_interval_and_the_ceiling() -> None:
    data = report_data(build_report(sample_record()))
    tcp = data["bars"][0]
    assert tcp["test"] == "#1 TCP"
    wan = tcp["bars"][0]
    # The ceiling as the table shows it (LIMITS.md's 941.5), rounded once.
    assert (wan["median"], wan["n"], wan["ceiling"]) == (941.2, 3, 941.5)
    assert wan["low"] <= wan["median"] <= wan["high"]
    single = tcp["bars"][1]  # Br0: one repetition, no interval
    assert (single["n"], single["low"], single["high"]) == (1, None, None)


def test_trials_carry_their_interval_series_and_ceiling() -> None:
    data = report_data(build_report(sample_record()))
    first = data["trials"][0]
    assert first["key"] == "#1/WAN/default/1"
    assert first["ceiling"] == 941.5
    (flow,) = first["flows"]
    # One stream: its series is the direction's, drawn once; ms and 10 kbit/s.
    assert flow["sum"] == {"t": [500], "v": [94120]} and flow["streams"] == []
    failed = data["trials"][5]
    assert failed["status"] == "failed" and failed["reason"].startswith("the reverse")


def test_evenly_spaced_times_travel_as_the_first_and_the_step() -> None:
    record = sample_record()
    first = record.outcomes[0]
    assert first.result is not None
    even = tuple(
        Interval(start=s, end=s + 1.0, bytes=117_000_000, bits_per_second=936.123456e6)
        for s in (0.0, 1.0, 2.0)
    )
    uneven = (*even[:2], Interval(start=2.0, end=2.5, bytes=1, bits_per_second=8.0))
    directions = (
        dataclasses.replace(first.result.directions[0], intervals=even),
        dataclasses.replace(first.result.directions[0], flow=Flow.DOWN, intervals=uneven),
    )
    outcome = dataclasses.replace(
        first, result=dataclasses.replace(first.result, directions=directions)
    )
    data = report_data(build_report(dataclasses.replace(record, outcomes=(outcome,))))
    up, down = data["trials"][0]["flows"]
    assert up["sum"] == {"t0": 500, "dt": 1000, "v": [93612, 93612, 93612]}
    assert down["sum"] == {"t": [500, 1500, 2250], "v": [93612, 93612, 0]}


def test_without_samples_the_device_section_says_so() -> None:
    report = build_report(sample_record())
    assert NO_SAMPLES in render_html(report)
    with_samples = render_html(report, (_samples("#1/WAN/default/1"),))
    assert NO_SAMPLES not in with_samples
    monitor = json.loads(_data_block(with_samples))["monitor"]
    assert monitor[0]["trial"] == 0 and monitor[0]["cores"][0]["softirq"] == [80.0, 85.0]


def test_samples_that_do_not_line_up_fail_at_the_door() -> None:
    with pytest.raises(ModelError, match="differ in length"):
        CoreLoadSeries(0, user=(1.0,), system=(1.0, 2.0), softirq=(1.0,))
    with pytest.raises(ModelError, match="1 shares for 2 times"):
        DeviceSamples(
            trial="t",
            host="r4s",
            cpus=(0,),
            t=(1.0, 2.0),
            cores=(CoreLoadSeries(0, (1.0,), (1.0,), (1.0,)),),
        )
    with pytest.raises(ModelError, match="2 rates for 1 cpus"):
        DeviceSamples(
            trial="t",
            host="r4s",
            cpus=(0,),
            t=(),
            cores=(),
            interrupts=(IrqDistribution("27", "eth0", (1.0, 2.0)),),
        )


def test_report_format_html_writes_one_file(tmp_path: Path) -> None:
    db, out = str(tmp_path / "runs.db"), tmp_path / "report.html"
    assert run_cli("import", "--db", db, str(SEEDS / "r4s-wan-test4.txt")).status == 0
    assert run_cli("report", "--db", db, "--format", "html", "-o", str(out)).status == 0
    page = out.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.rstrip().endswith("</html>")
    assert "r4s-wan-test4.txt" in page
