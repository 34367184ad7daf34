"""`compare A B C ...`: runs as columns, measurements as rows, each figure's change
against the first column with its verdict, as seed 002 tabulates boards and kernels."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from support.bench_samples import (
    NEO2,
    R4S_419,
    R4S_510,
    bench_outcome,
    device_path,
    provenance,
    repeated,
)
from support.cli import run_cli
from support.samples import run_record, store_runs
from wirespeed.analysis.compare_many import Verdict, compare_many, verdict_of
from wirespeed.analysis.stats import ALPHA, ConfidenceInterval, PermutationTest
from wirespeed.store.records import RunRecord

R4S, NEO = device_path("R4S"), device_path("Neo2")
STEADY = (1.0, 1.001, 0.999, 1.0005, 0.9995)
# Armbian's repetitions spread over 0.8 %: its +0.22 % cannot be told from noise.
WIDE = (0.996, 1.004, 0.998, 1.003, 0.999)


def _runs(
    spread: tuple[float, ...] = STEADY, wide: tuple[float, ...] = WIDE
) -> tuple[RunRecord, RunRecord, RunRecord]:
    return (
        run_record(
            *repeated(R4S, R4S_419, spread),
            run_id=1,
            title="FriendlyCore",
            provenance=provenance("r4s", "Linux 4.19.111 aarch64"),
        ),
        run_record(
            *repeated(R4S, R4S_510, wide),
            run_id=2,
            title="Armbian",
            provenance=provenance("r4s", "Linux 5.10.12 aarch64"),
        ),
        run_record(
            *repeated(NEO, NEO2, spread),
            run_id=3,
            title="Neo2",
            provenance=provenance("neo2", "Linux 5.10.12 aarch64"),
        ),
    )


def test_each_figure_is_a_percent_of_the_first_column() -> None:
    table = compare_many(_runs())
    assert [c.label for c in table.columns] == [
        "run 1: R4S \N{MIDDLE DOT} Linux 4.19.111 aarch64",
        "run 2: R4S \N{MIDDLE DOT} Linux 5.10.12 aarch64",
        "run 3: Neo2 \N{MIDDLE DOT} Linux 5.10.12 aarch64",
    ]
    # Matched across devices although the paths (the boards) differ by name.
    assert [row.item for row in table.rows] == ["AES-128-CBC 1 KB, no EVP", "AES-128-CBC 1 KB, EVP"]
    no_evp = table.rows[0]
    first, armbian, neo2 = no_evp.cells
    assert first is not None and first.percent is None and first.verdict is None
    assert armbian is not None and neo2 is not None
    # Seed 002: Neo2 w/o EVP 25189.72 against 92054.87: -72.6 %.
    assert neo2.percent == pytest.approx((25_189_720 / 92_054_870 - 1) * 100, abs=0.01)
    assert neo2.verdict is Verdict.SIGNIFICANT
    # 92261.03 against 92054.87: +0.22 %, within Armbian's repetitions' spread of 0.8 %.
    assert armbian.percent == pytest.approx(0.124, abs=0.01)
    assert armbian.verdict is Verdict.NOT_SIGNIFICANT


def test_single_repetitions_give_a_percent_but_no_verdict() -> None:
    table = compare_many(_runs(spread=(1.0,), wide=(1.0,)))
    cell = table.rows[0].cells[2]
    assert cell is not None and cell.verdict is Verdict.SINGLE_RUN and cell.test is None
    assert cell.percent == pytest.approx(-72.64, abs=0.01)


def test_a_measurement_one_run_lacks_is_an_empty_cell() -> None:
    a, b, _ = _runs()
    only_a = run_record(*a.outcomes, bench_outcome(device_path("Pi4"), R4S_419), run_id=1)
    table = compare_many([only_a, b])
    # Pi4 is a second path of run 1 for the same measurement: the path joins the match.
    items = [row.item for row in table.rows]
    assert "AES-128-CBC 1 KB, EVP on Pi4" in items and "AES-128-CBC 1 KB, EVP on R4S" in items
    pi4 = next(row for row in table.rows if row.item == "AES-128-CBC 1 KB, EVP on Pi4")
    assert pi4.cells[1] is None


@pytest.fixture
def db(tmp_path: Path) -> Path:
    db = tmp_path / "runs.db"
    store_runs(db, *_runs())
    return db


def test_the_command_prints_the_table_of_three_runs(db: Path) -> None:
    done = run_cli("compare", "1", "2", "3", "--db", str(db))
    assert done.status == 0, done.err
    assert "3 runs compared" in done.out
    assert "AES-128-CBC 1 KB, EVP" in done.out
    assert "\N{MINUS SIGN}72.6 %*" in done.out  # the Neo2 against the R4S on 4.19
    assert "+0.1 %~" in done.out  # Armbian: not significant
    assert "\\x0a" not in done.out  # a cell's two lines are two lines
    assert any(line.startswith("│ aes AES-128-CBC 1 KB, no EVP") for line in done.out.splitlines())


def test_the_command_writes_every_format(db: Path, tmp_path: Path) -> None:
    outputs = {ext: tmp_path / f"compare.{ext}" for ext in ("md", "csv", "json", "html", "txt")}
    argv = [arg for path in outputs.values() for arg in ("-o", str(path))]
    done = run_cli("compare", "1", "2", "3", "--db", str(db), *argv)
    assert done.status == 0, done.err
    markdown = outputs["md"].read_text(encoding="utf-8")
    assert "| Measurement | run 1 | run 2 | run 3 |" in markdown
    assert "\N{MINUS SIGN}72.6 %*" in markdown
    rows = list(csv.DictReader(io.StringIO(outputs["csv"].read_text(encoding="utf-8"))))
    assert len(rows) == 6  # 2 measurements x 3 runs
    neo2 = next(r for r in rows if r["run_id"] == "3" and r["labels"] == "block=1 KB;api=EVP")
    assert float(neo2["percent"]) == pytest.approx((547_143_680 / 1_282_523_140 - 1) * 100, 0.01)
    assert neo2["verdict"] == "significant"
    document = json.loads(outputs["json"].read_text(encoding="utf-8"))
    assert document["format"] == "wirespeed-compare-runs"
    assert [c["run_id"] for c in document["columns"]] == [1, 2, 3]
    assert document["rows"][1]["cells"][2]["verdict"] == "significant"
    page = outputs["html"].read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "72.6 %*" in page
    assert "3 runs compared" in outputs["txt"].read_text(encoding="utf-8")


def test_two_runs_with_benchmarks_give_the_table_too(db: Path) -> None:
    done = run_cli("compare", "1", "3", "--db", str(db), "--format", "markdown")
    assert done.status == 0, done.err
    assert "| Measurement | run 1 | run 3 |" in done.out


def test_two_forwarding_runs_compare_cell_by_cell_in_frame_size_order(tmp_path: Path) -> None:
    from support.forwarding_samples import Device, bridge_outcomes

    db = tmp_path / "runs.db"
    before = run_record(*bridge_outcomes(3, frames=(64, 1518), iperf_outputs=False), run_id=1)
    # After a tweak the device forwards 20,000 pps; this run's plan listed 1518 B first.
    faster = Device(pps=20_000.0, policer_bps=None)
    after = run_record(
        *bridge_outcomes(3, frames=(1518, 64), device=faster, iperf_outputs=False), run_id=2
    )
    comparison = compare_many([before, after])
    ndr = [row.item for row in comparison.rows if row.name == "NDR"]
    assert ndr == ["NDR 64 B, up", "NDR 64 B, down", "NDR 1518 B, up", "NDR 1518 B, down"]
    # Within a cell, the measurements keep the order the search gave them.
    first_cell = [row.name for row in comparison.rows if row.labels == ndr_labels(64, "up")]
    assert first_cell[:3] == ["NDR", "NDR L2", "NDR L1"] and first_cell[-1] == "search time"
    up64 = next(row for row in comparison.rows if row.item == "NDR 64 B, up")
    cell = up64.cells[1]
    assert cell is not None and cell.percent is not None and 30 < cell.percent < 36
    # Three repetitions a side cannot make +33 % significant (the exact permutation
    # test's smallest p is 0.1): the table says so rather than claim it.
    assert cell.verdict is Verdict.NOT_SIGNIFICANT

    store_runs(db, before, after)
    done = run_cli("compare", "1", "2", "--db", str(db), "--format", "markdown")
    assert done.status == 0, done.err
    ndr_line = re.compile(r"\| fwd NDR \d+ B, ")  # NDR itself, not NDR L2 ...
    lines = [line for line in done.out.splitlines() if ndr_line.match(line)]
    assert [line.split(" \N{UPWARDS ARROW}")[0] for line in lines] == [
        "| fwd NDR 64 B, up",
        "| fwd NDR 64 B, down",
        "| fwd NDR 1518 B, up",
        "| fwd NDR 1518 B, down",
    ]


def ndr_labels(frame: int, direction: str) -> tuple[tuple[str, str], ...]:
    return (("frame", f"{frame} B"), ("direction", direction))


def _test(p_value: float) -> PermutationTest:
    return PermutationTest(p_value, 1.0, exact=True, permutations=252, smallest_p_value=0.008)


@pytest.mark.parametrize(
    ("p_value", "interval", "verdict"),
    [
        # The test says they differ, but the ratio's interval holds 1: not significant.
        (0.01, ConfidenceInterval(0.97, 1.08), Verdict.NOT_SIGNIFICANT),
        (0.01, ConfidenceInterval(1.0, 1.08), Verdict.NOT_SIGNIFICANT),  # 1 at its edge
        (0.01, ConfidenceInterval(0.9, 1.0), Verdict.NOT_SIGNIFICANT),
        (0.01, ConfidenceInterval(1.0001, 1.08), Verdict.SIGNIFICANT),
        (0.01, ConfidenceInterval(0.9, 0.9999), Verdict.SIGNIFICANT),
        # p exactly alpha is not below it.
        (0.05, ConfidenceInterval(1.1, 1.2), Verdict.NOT_SIGNIFICANT),
        (0.0499, ConfidenceInterval(1.1, 1.2), Verdict.SIGNIFICANT),
        (0.5, ConfidenceInterval(1.1, 1.2), Verdict.NOT_SIGNIFICANT),
        # A count without repetitions has no interval: the test alone decides.
        (0.0499, None, Verdict.SIGNIFICANT),
        (0.05, None, Verdict.NOT_SIGNIFICANT),
    ],
)
def test_the_significance_rule_needs_both_the_test_and_an_interval_clear_of_one(
    p_value: float, interval: ConfidenceInterval | None, verdict: Verdict
) -> None:
    assert ALPHA == 0.05
    assert verdict_of(_test(p_value), interval) is verdict
