"""`compare A B C ...`: runs as columns, measurements as rows, each figure's change
against the first column with its verdict, as seed 002 tabulates boards and kernels."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from support.bench_samples import (
    AES,
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
from wirespeed.analysis.compare_many import (
    ManyCell,
    RunColumn,
    Verdict,
    compare_many,
    compare_repetitions,
    verdict_of,
)
from wirespeed.analysis.group_tests import PermutationTest
from wirespeed.analysis.stats import ALPHA, ConfidenceInterval
from wirespeed.model import Better, Measurement, TrialOutcome, TrialStatus
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


def _in_variant(outcome: TrialOutcome, variant: str) -> TrialOutcome:
    return dataclasses.replace(outcome, trial=dataclasses.replace(outcome.trial, variant=variant))


def _versioned(outcome: TrialOutcome, version: str) -> TrialOutcome:
    assert outcome.result is not None
    result = dataclasses.replace(outcome.result, tool_version=version)
    return dataclasses.replace(outcome, result=result)


def _figure(row_cells: Sequence[ManyCell | None], column: int) -> ManyCell:
    cell = row_cells[column]
    assert cell is not None
    return cell


def test_a_failed_trial_is_left_out_and_the_repetitions_after_it_still_count() -> None:
    # A trial that failed part way may still carry figures: they are not the device's.
    passed = repeated(R4S, R4S_419, STEADY)
    failed = dataclasses.replace(
        bench_outcome(R4S, [v * 0.5 for v in R4S_419], repetition=1),
        status=TrialStatus.FAILED,
        reason="openssl was killed part way",
    )
    first = run_record(failed, *passed[1:], run_id=1)
    table = compare_many([first, _runs()[1]])
    cell = _figure(table.rows[0].cells, 0)
    assert cell.summary.n == len(STEADY) - 1
    assert cell.summary.median == pytest.approx(R4S_419[0])
    assert cell.trials == tuple(o.trial.key for o in passed[1:])


def test_a_variant_named_otherwise_in_the_other_run_is_matched_by_same_as() -> None:
    # A tuned card's `stock` is a plain card's `default`: one row, both columns.
    stock = run_record(*(_in_variant(o, "stock") for o in repeated(R4S, R4S_419, STEADY)))
    plain = run_record(*repeated(R4S, R4S_510, WIDE), run_id=2)
    table = compare_many([stock, plain], same_as={"stock": "default"})
    assert [row.item for row in table.rows] == [
        "AES-128-CBC 1 KB, no EVP",
        "AES-128-CBC 1 KB, EVP",
    ]
    assert all(None not in row.cells for row in table.rows)
    assert _figure(table.rows[0].cells, 1).verdict is Verdict.NOT_SIGNIFICANT
    apart = compare_many([stock, plain])
    assert len(apart.rows) == 4 and "AES-128-CBC 1 KB, EVP (stock)" in [r.item for r in apart.rows]


def test_a_column_is_named_by_its_devices_and_their_kernels_only() -> None:
    hosts = {
        "r4s": {"kernel": "Linux 5.10.12 aarch64", "role": "dut"},
        "pi4": {"kernel": "Linux 6.1.21 aarch64", "role": "client,dut"},
        "laptop": {"kernel": "Linux 6.8.0 x86_64", "role": "client"},
    }
    two = run_record(
        *repeated(R4S, R4S_419, STEADY),
        bench_outcome(device_path("Pi4"), R4S_419),
        run_id=4,
        title="two boards",
        started_at=1_700_000_000.0,
        provenance={"hosts": hosts},
    )
    # No host says it is the DUT: every host's kernel is the run's.
    unsaid = {"pc": {"kernel": "Linux 6.8.0 x86_64", "role": "client"}}
    bare = run_record(run_id=5, provenance={"hosts": unsaid})
    column, empty = compare_many([two, bare]).columns
    assert column.label == (
        "run 4: R4S, Pi4 \N{MIDDLE DOT} Linux 5.10.12 aarch64, Linux 6.1.21 aarch64"
    )
    assert (column.title, column.started_at) == ("two boards", 1_700_000_000.0)
    assert column.devices == ("R4S", "Pi4")
    assert empty.label == "run 5: no trials \N{MIDDLE DOT} Linux 6.8.0 x86_64"


def test_two_repetitions_a_side_are_enough_for_a_verdict_one_is_not() -> None:
    two = compare_many(_runs(spread=(1.0, 1.001), wide=(0.996, 1.004)))
    neo2 = _figure(two.rows[0].cells, 2)
    assert neo2.verdict is not Verdict.SINGLE_RUN and neo2.test is not None
    for spread, wide in (((1.0,), (1.0, 1.001)), ((1.0, 1.001), (1.0,))):
        one = compare_many(_runs(spread=spread, wide=wide))
        assert _figure(one.rows[0].cells, 1).verdict is Verdict.SINGLE_RUN


def _counts(*values: float, run_id: int) -> RunRecord:
    """A run whose first figure took `values` over its repetitions (a count of
    retransmits, say), its second a steady one."""
    return run_record(
        *(bench_outcome(R4S, [v, R4S_419[1]], repetition=k) for k, v in enumerate(values, 1)),
        run_id=run_id,
    )


def test_a_figure_of_nothing_against_nothing_is_the_same_and_one_from_nothing_has_no_ratio() -> (
    None
):
    zero, zeros = _counts(0.0, run_id=1), _counts(0.0, 0.0, 0.0, run_id=2)
    same = _figure(compare_many([zero, _counts(0.0, run_id=3)]).rows[0].cells, 1)
    assert (same.ratio, same.verdict) == (1.0, Verdict.SINGLE_RUN)
    repeated_same = _figure(
        compare_many([zeros, _counts(0.0, 0.0, 0.0, run_id=3)]).rows[0].cells, 1
    )
    assert (repeated_same.ratio, repeated_same.verdict) == (1.0, Verdict.NOT_SIGNIFICANT)
    # From nothing to 5: no ratio to give, but the figure itself is shown.
    grown = _figure(compare_many([zeros, _counts(5.0, 6.0, 5.0, run_id=3)]).rows[0].cells, 1)
    assert (grown.ratio, grown.percent, grown.verdict) == (None, None, Verdict.NO_RATIO)
    assert grown.summary.median == 5.0 and len(grown.trials) == 3
    # From 5 to nothing: -100 %, a ratio like any other.
    gone = _figure(compare_many([_counts(5.0, 6.0, 5.0, run_id=1), zeros]).rows[0].cells, 1)
    assert gone.ratio == 0.0 and gone.percent == -100.0
    assert gone.test is not None and gone.verdict is Verdict.NOT_SIGNIFICANT  # 3 a side


def test_no_interval_of_the_ratio_means_no_significant_verdict() -> None:
    # The first column's figure is 0 in two of its five repetitions: its median is 5,
    # but resampled it is often 0, so its ratio has no interval; the permutation test
    # alone (p = 0.008) would call the change significant.
    first = _counts(0.0, 0.0, 5.0, 5.0, 5.0, run_id=1)
    other = _counts(50.0, 50.0, 50.0, 50.0, 50.0, run_id=2)
    cell = _figure(compare_many([first, other]).rows[0].cells, 1)
    assert cell.ratio == 10.0 and cell.ratio_interval is None
    assert cell.test is not None and cell.test.significant(ALPHA)
    assert cell.verdict is Verdict.NOT_SIGNIFICANT


def test_a_ratio_whose_interval_holds_one_is_not_significant_whatever_the_test_says() -> None:
    # Medians 1 and 2, means 1.45 and 2: the test tells them apart, but a resample of the
    # first has a median of 2 often enough that the ratio's interval reaches 1.
    first = _counts(*(1.0,) * 6, *(2.0,) * 5, run_id=1)
    other = _counts(*(2.0,) * 11, run_id=2)
    cell = _figure(compare_many([first, other]).rows[0].cells, 1)
    assert cell.ratio == 2.0
    assert cell.ratio_interval is not None and cell.ratio_interval.contains(1.0)
    assert cell.test is not None and cell.test.significant(ALPHA)
    assert cell.verdict is Verdict.NOT_SIGNIFICANT


def test_a_figure_measured_otherwise_says_which_key_differs_and_strictly_has_no_ratio() -> None:
    # openssl 3 against 1.1.1: a major version apart, its figures are another thing.
    first = run_record(*repeated(R4S, R4S_419, STEADY), run_id=1)
    newer = run_record(*(_versioned(o, "3.0.2") for o in repeated(R4S, R4S_510, WIDE)), run_id=2)
    said = "openssl 1.1.1 vs openssl 3.0.2"
    marked = compare_many([first, newer])
    for row in marked.rows:
        cell = _figure(row.cells, 1)
        assert cell.not_comparable == said and cell.ratio is not None
        assert cell.verdict is Verdict.NOT_SIGNIFICANT and len(cell.trials) == len(WIDE)
        assert row.test_name == "openssl speed" and row.path is None
    for row in compare_many([first, newer], strict=True).rows:
        cell = _figure(row.cells, 1)
        assert cell.not_comparable == said and cell.ratio is None and cell.verdict is None
        assert cell.summary.median == pytest.approx(_figure(row.cells, 1).summary.median)
        assert cell.summary.n == len(WIDE) and len(cell.trials) == len(WIDE)
        assert row.test_name == "openssl speed"
    # The same version, the same key: nothing to say.
    same = compare_many([first, run_record(*repeated(R4S, R4S_510, WIDE), run_id=2)])
    assert all(_figure(row.cells, 1).not_comparable is None for row in same.rows)


def test_repetitions_that_are_not_a_runs_compare_as_columns() -> None:
    columns = tuple(RunColumn(run_id, None, 0.0, (), (), f"soak {run_id}") for run_id in (1, 2))
    measured = [
        [(f"soak {n}/{k}", (Measurement("outages", "count", Better.LOWER, float(v)),))
         for k, v in enumerate(values, 1)]
        for n, values in ((1, (3, 4, 3)), (2, (9, 8, 9)))
    ]  # fmt: skip
    table = compare_repetitions(
        columns, measured, test_id="soak", test_name="soak", noun="soak", legend="how to read"
    )
    assert (table.noun, table.legend, table.title_text()) == (
        "soak",
        "how to read",
        "2 soaks compared",
    )
    (row,) = table.rows
    assert (row.test_id, row.test_name, row.path, row.variant) == ("soak", "soak", None, "default")
    first, second = _figure(row.cells, 0), _figure(row.cells, 1)
    assert first.trials == ("soak 1/1", "soak 1/2", "soak 1/3")
    assert second.ratio == 3.0 and second.verdict is not None


def test_rows_of_a_frame_size_and_direction_are_read_in_order_and_the_rest_keep_their_place() -> (
    None
):
    # As a search's cells ran (a plan may list 1518 B first, or a direction of its own),
    # each labelled row moves to the place people read it in: frame size, then up,
    # down, both, in, out, then any other direction; a row without both labels, or
    # with a frame that is not a size, stays where it was.
    def ndr(frame: str, direction: str | None) -> Measurement:
        labels = (("frame", frame),) + ((("direction", direction),) if direction else ())
        return Measurement("NDR", "pps", Better.HIGHER, 1000.0, labels)

    measured = (
        Measurement("search time", "s", Better.LOWER, 60.0),
        ndr("1518 B", "out"),
        ndr("64 B", "sideways"),
        ndr("64 B", "in"),
        ndr("jumbo B", "up"),
        ndr("64 B", "up"),
        ndr("64 B", None),
        ndr("1518 B", "both"),
        ndr("64 B", "down"),
    )
    columns = (RunColumn(1, None, 0.0, (), (), "run 1"),)
    table = compare_repetitions(
        columns, [[("1/1", measured)]], test_id="f", test_name="f", noun="run", legend=""
    )
    assert [row.item for row in table.rows] == [
        "search time",
        "NDR 64 B, up",
        "NDR 64 B, down",
        "NDR 64 B, in",
        "NDR jumbo B, up",
        "NDR 64 B, sideways",
        "NDR 64 B",
        "NDR 1518 B, both",
        "NDR 1518 B, out",
    ]


def test_a_path_joins_the_match_only_where_one_run_measured_the_same_on_two() -> None:
    other_test = dataclasses.replace(AES, id="aes-again")
    # Two tests on two boards: each measured once a run, no path needed in the match.
    apart = run_record(
        bench_outcome(R4S, R4S_419), bench_outcome(device_path("Pi4"), NEO2, test=other_test)
    )
    assert not [row.item for row in compare_many([apart]).rows if " on " in row.item]
    # One test on two boards in the first run: its rows keep their path, marked too
    # when the second run measured it otherwise.
    both = run_record(*repeated(R4S, R4S_419, STEADY), bench_outcome(device_path("Pi4"), NEO2))
    newer = run_record(*(_versioned(o, "3.0.2") for o in repeated(R4S, R4S_510, WIDE)), run_id=2)
    on_r4s = [row for row in compare_many([both, newer]).rows if row.path == "R4S"]
    assert len(on_r4s) == 2
    assert all(_figure(row.cells, 1).not_comparable for row in on_r4s)


def test_a_row_the_first_run_lacks_has_figures_but_no_ratio_in_the_others() -> None:
    a, b, _ = _runs()
    with_pi4 = run_record(*b.outcomes, bench_outcome(device_path("Pi4"), NEO2), run_id=2)
    table = compare_many([a, with_pi4, with_pi4])
    pi4 = next(row for row in table.rows if row.item == "AES-128-CBC 1 KB, EVP on Pi4")
    assert pi4.cells[0] is None and len(pi4.cells) == 3
    for cell in pi4.cells[1:]:
        assert cell is not None and cell.ratio is None and cell.verdict is None
        assert cell.summary.median == NEO2[1]


def test_a_run_without_the_figure_between_does_not_stop_the_ones_after_being_marked() -> None:
    first = run_record(*repeated(R4S, R4S_419, STEADY), run_id=1)
    elsewhere = run_record(bench_outcome(R4S, R4S_419, test=dataclasses.replace(AES, id="x")))
    newer = run_record(*(_versioned(o, "3.0.2") for o in repeated(R4S, R4S_510, WIDE)), run_id=3)
    for row in compare_many([first, elsewhere, newer]).rows:
        if row.test_id == "aes":
            assert row.cells[1] is None
            assert _figure(row.cells, 2).not_comparable == "openssl 1.1.1 vs openssl 3.0.2"
