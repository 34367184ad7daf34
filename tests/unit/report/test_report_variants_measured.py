"""A run whose variants ran searches or benchmarks compares them as it compares traffic:
each measurement's variants side by side, each against the first, in the terminal and
in Markdown, in the one A/B table; each variant's table at its own MTU; a benchmark's
columns told apart by their variant."""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

from rich.console import Console

from support.bench_samples import R4S_419, R4S_510, bench_outcome, device_path
from support.forwarding_samples import Device, bridge_outcomes
from support.run_report import render_markdown, render_terminal
from support.samples import run_record, store_runs
from wirespeed.analysis.compare_many import Verdict
from wirespeed.analysis.compare_within import compare_run_variants
from wirespeed.model import TrialOutcome
from wirespeed.report import build_report
from wirespeed.report.ab import record_of
from wirespeed.report.model import Report
from wirespeed.store import Store

FASTER = Device(pps=20_000.0, policer_bps=None)  # after a tweak: 20,000 against 15,000


def _stored(tmp_path: Path, *outcomes: TrialOutcome) -> Report:
    db = tmp_path / "runs.db"
    store_runs(db, run_record(*outcomes))
    with Store.open(db, read_only=True) as store:
        return build_report(store.load_run(1, intervals="packed"))


def _terminal(report: Report) -> str:
    buffer = io.StringIO()
    render_terminal(report, Console(file=buffer, width=200, color_system=None))
    return buffer.getvalue()


def _with_mtu(outcome: TrialOutcome, mtu: int) -> TrialOutcome:
    """The trial as a variant with `mtu:` expands it: the MTU in its test's spec."""
    test = outcome.trial.test
    spec = dataclasses.replace(test.spec, mtu=mtu)
    trial = dataclasses.replace(outcome.trial, test=dataclasses.replace(test, spec=spec))
    return dataclasses.replace(outcome, trial=trial)


def test_searches_in_two_variants_are_compared_cell_by_cell(tmp_path: Path) -> None:
    frames = (64, 1518)
    report = _stored(
        tmp_path,
        *bridge_outcomes(3, frames=frames, iperf_outputs=False),
        *bridge_outcomes(3, frames=frames, variant="tuned", device=FASTER, iperf_outputs=False),
    )
    comparison = compare_run_variants(record_of(report))
    assert comparison is not None and comparison.variants == ("default", "tuned")
    # Only the figures in packets/s: the same loads in bit/s or % would repeat each row.
    assert {row.unit for row in comparison.rows} == {"pps"}
    items = [row.item for row in comparison.rows if row.name == "NDR"]
    assert items == ["NDR 64 B, up", "NDR 64 B, down", "NDR 1518 B, up", "NDR 1518 B, down"]
    up64 = next(row for row in comparison.rows if row.item == "NDR 64 B, up")
    cell = up64.cells[1]
    assert cell is not None and cell.percent is not None and 30 < cell.percent < 36
    # Three repetitions a side: the exact permutation test cannot reach p < 0.05.
    assert cell.verdict is Verdict.NOT_SIGNIFICANT

    text = _terminal(report)
    assert text.count("Variants against default") == 1
    assert "fwd NDR 64 B, up" in text and "fwd NDR L2" not in text
    markdown = render_markdown(report)
    assert "## Variants against default\n" in markdown
    line = next(row for row in markdown.splitlines() if row.startswith("| fwd NDR 64 B, up"))
    assert "+3" in line and "%~" in line, line
    # Packet rates whole and grouped, as people write them: "14,940 ±12 pps".
    assert re.search(r"\| 1\d,\d{3} ±[\d,]+ pps \| 19,\d{3} ±[\d,]+ pps<br>", line), line


def test_each_variants_forwarding_table_is_at_its_own_mtu(tmp_path: Path) -> None:
    report = _stored(
        tmp_path,
        *bridge_outcomes(1, frames=(64,), iperf_outputs=False),
        *[
            _with_mtu(o, 1000)
            for o in bridge_outcomes(1, frames=(64,), variant="mtu1000", iperf_outputs=False)
        ],
    )
    titles = [line for line in render_markdown(report).splitlines() if line.startswith("### fwd")]
    assert len(titles) == 2
    assert titles[0].endswith("(default): gbe (1 Gbit/s), MTU 1500"), titles
    assert titles[1].endswith("(mtu1000): gbe (1 Gbit/s), MTU 1000"), titles


def test_benchmarks_in_two_variants_have_a_column_each_and_a_comparison(tmp_path: Path) -> None:
    path = device_path("R4S")
    default = [bench_outcome(path, R4S_419, repetition=k) for k in (1, 2)]
    tuned = [
        _in_variant(bench_outcome(path, [v * 1.1 for v in R4S_510], repetition=k), "performance")
        for k in (1, 2)
    ]
    report = _stored(tmp_path, *default, *tuned)
    assert [p.label for p in report.measured_columns] == ["R4S (default)", "R4S (performance)"]
    comparison = compare_run_variants(record_of(report))
    assert comparison is not None
    assert [row.item for row in comparison.rows] == [
        "AES-128-CBC 1 KB, no EVP",
        "AES-128-CBC 1 KB, EVP",
    ]
    assert "## Variants against default\n" in render_markdown(report)


def test_one_variant_has_no_comparison(tmp_path: Path) -> None:
    report = _stored(tmp_path, *bridge_outcomes(1, frames=(64,), iperf_outputs=False))
    assert compare_run_variants(record_of(report)) is None
    assert "Variants against" not in render_markdown(report)


def _in_variant(outcome: TrialOutcome, variant: str) -> TrialOutcome:
    return dataclasses.replace(outcome, trial=dataclasses.replace(outcome.trial, variant=variant))
