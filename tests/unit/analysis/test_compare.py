"""`compare A B`: the table of runs with two columns (and two paths or variants of one run
as its columns). A link ten times faster is significant, the same link twice is not."""

from __future__ import annotations

import argparse
import csv
import io
import json
import random
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from support.comparison_text import compare_csv, compare_json, compare_markdown
from support.samples import GBE, START, measured, run_record, store_runs
from wirespeed.analysis.compare_many import ManyComparison, ManyRow, Verdict, compare_many
from wirespeed.analysis.compare_within import compare_paths, compare_variants
from wirespeed.cli.commands import compare as compare_command
from wirespeed.cli.env import Environment
from wirespeed.errors import UsageError
from wirespeed.model import (
    Direction,
    DirectionResult,
    Flow,
    LinkModel,
    PathSpec,
    Result,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.store import RunRecord, Store

FE = LinkModel("fe", 100_000_000)
TCP = TestCase(id="1", name="TCP", tool=Tool.IPERF2, spec=TestSpec(duration=10))
DUAL = TestCase(
    id="2", name="TCP dual", tool=Tool.IPERF2, spec=TestSpec(duration=10, direction=Direction.DUAL)
)


def path(name: str, link: LinkModel) -> PathSpec:
    return PathSpec(name=name, topology=Topology.BRIDGE, client="c", server="s", dut="d", link=link)


def direction(flow: Flow, mbit: float) -> DirectionResult:
    m = measured(mbit, seconds=10.0)
    return DirectionResult(flow=flow, sent=m, received=m)


def outcome(
    test: TestCase, where: PathSpec, mbits: Sequence[float], repetition: int, variant: str
) -> TrialOutcome:
    flows = test.spec.flows
    return TrialOutcome(
        trial=Trial(test=test, path=where, variant=variant, repetition=repetition),
        status=TrialStatus.OK,
        started_at=START + repetition * 20,
        finished_at=START + repetition * 20 + 10,
        result=Result(
            tool=test.tool,
            protocol=test.spec.protocol,
            directions=tuple(direction(f, v) for f, v in zip(flows, mbits, strict=True)),
        ),
    )


def noisy(center_mbit: float, n: int, seed: int) -> list[float]:
    """Repetitions as a real link gives them: within a few tenths of a percent."""
    generator = random.Random(seed)
    return [center_mbit * (1 + generator.gauss(0, 0.002)) for _ in range(n)]


def record(
    run_id: int,
    title: str,
    where: PathSpec,
    center_mbit: float,
    *,
    n: int = 5,
    seed: int = 1,
    variant: str = "default",
) -> RunRecord:
    tcp = noisy(center_mbit, n, seed)
    up, down = noisy(center_mbit * 0.98, n, seed + 1), noisy(center_mbit * 0.97, n, seed + 2)
    outcomes = []
    for k in range(n):  # interleaved, as the runner orders them
        outcomes.append(outcome(TCP, where, [tcp[k]], k + 1, variant))
        outcomes.append(outcome(DUAL, where, [up[k], down[k]], k + 1, variant))
    return run_record(
        *outcomes,
        run_id=run_id,
        title=title,
        started_at=START + run_id * 1000,
        finished_at=START + run_id * 1000 + 500,
    )


def stored(tmp_path: Path, *records: RunRecord) -> tuple[Path, list[int]]:
    db = tmp_path / "wirespeed.db"
    return db, store_runs(db, *records)


def compare_runs(a: RunRecord, b: RunRecord) -> ManyComparison:
    return compare_many([a, b])


def goodput(comparison: ManyComparison) -> list[ManyRow]:
    return [row for row in comparison.rows if row.name == "goodput"]


def test_gbe_against_fe_is_significant_and_about_ten_times(tmp_path: Path) -> None:
    db, (gbe_id, fe_id) = stored(
        tmp_path,
        record(1, "gbe", path("Br0", GBE), 941.0, seed=20),
        record(2, "fe", path("Br0", FE), 94.1, seed=30),
    )
    with Store.open(db) as store:
        comparison = compare_runs(store.load_run(fe_id), store.load_run(gbe_id))
    assert [(r.test_id, r.item) for r in goodput(comparison)] == [
        ("1", "goodput up"),
        ("2", "goodput up"),
        ("2", "goodput down"),
    ]
    for row in goodput(comparison):
        assert (row.path, row.variant, row.unit, row.better.value) == (
            None,
            "default",
            "bit/s",
            "higher",
        )
        cell = row.cells[1]
        assert cell is not None and cell.verdict is Verdict.SIGNIFICANT
        assert cell.ratio is not None and cell.ratio == pytest.approx(10.0, rel=0.02)
        assert cell.ratio_interval is not None and cell.ratio_interval.contains(cell.ratio)
        assert cell.test is not None and cell.test.exact and cell.test.p_value < 0.05


def test_two_runs_of_the_same_link_are_not_significant(tmp_path: Path) -> None:
    db, (first, second) = stored(
        tmp_path,
        record(1, "monday", path("Br0", GBE), 941.0, seed=1),
        record(2, "tuesday", path("Br0", GBE), 941.0, seed=50),
    )
    with Store.open(db) as store:
        comparison = compare_runs(store.load_run(first), store.load_run(second))
    assert {row.cells[1].verdict for row in goodput(comparison) if row.cells[1]} == {
        Verdict.NOT_SIGNIFICANT
    }
    text = compare_markdown(comparison)
    assert "| 1 goodput up \N{UPWARDS ARROW} |" in text
    assert " %~ |" in text and " %* |" not in text  # no invented speed-up anywhere


def test_single_runs_show_the_change_without_a_verdict() -> None:
    comparison = compare_runs(
        record(1, "gbe", path("Br0", GBE), 941.0, n=1),
        record(2, "fe", path("Br0", FE), 94.1, n=5),
    )
    cell = goodput(comparison)[0].cells[1]
    assert cell is not None and cell.verdict is Verdict.SINGLE_RUN
    assert cell.ratio == pytest.approx(0.1, rel=0.02)
    assert (cell.test, cell.ratio_interval) == (None, None)
    # A gigabit run against a Fast Ethernet one: compared as asked, the key said beside.
    assert "\N{MINUS SIGN}90.0 %<br>not comparable: link gbe vs fe |" in compare_markdown(
        comparison
    )


def test_three_against_three_cannot_reach_significance() -> None:
    comparison = compare_runs(
        record(1, "gbe", path("Br0", GBE), 941.0, n=3),
        record(2, "fe", path("Br0", FE), 94.1, n=3),
    )
    cell = goodput(comparison)[0].cells[1]
    assert cell is not None and cell.verdict is Verdict.NOT_SIGNIFICANT
    assert cell.test is not None and not cell.test.can_be_significant()


def test_a_test_on_one_side_only_is_an_empty_cell() -> None:
    a = record(1, "a", path("Br0", GBE), 941.0)
    b = record(2, "b", path("Br0", GBE), 941.0)
    b = RunRecord(b.id, b.info, b.status, b.finished_at, b.outcomes[::2])  # TCP only
    rows = goodput(compare_runs(a, b))
    assert [(r.test_id, r.item, r.cells[1] is None) for r in rows] == [
        ("1", "goodput up", False),
        ("2", "goodput up", True),
        ("2", "goodput down", True),
    ]


def test_two_paths_of_one_run_like_the_seeds_wan_against_br0() -> None:
    wan = record(1, "r4s", path("WAN", GBE), 941.0)
    br0 = record(1, "r4s", path("Br0", GBE), 680.0, seed=9)
    run = RunRecord(1, wan.info, wan.status, wan.finished_at, wan.outcomes + br0.outcomes)
    comparison = compare_paths(run, "WAN", "Br0")
    assert [(c.name, c.path, c.label) for c in comparison.columns] == [
        ("WAN", "WAN", "run 1: path WAN"),
        ("Br0", "Br0", "run 1: path Br0"),
    ]
    rows = goodput(comparison)
    assert all(r.path is None for r in rows)
    assert all(r.cells[1] and r.cells[1].verdict is Verdict.SIGNIFICANT for r in rows)
    assert rows[0].cells[1] and rows[0].cells[1].ratio == pytest.approx(680 / 941, rel=0.02)
    assert "| Measurement | WAN | Br0 |" in compare_markdown(comparison)


def test_two_variants_of_one_run() -> None:
    off = record(1, "r4s", path("Br0", GBE), 680.0, seed=3)
    on = record(1, "r4s", path("Br0", GBE), 758.0, seed=4, variant="irq-a72")
    run = RunRecord(1, off.info, off.status, off.finished_at, off.outcomes + on.outcomes)
    comparison = compare_variants(run, "default", "irq-a72")
    assert [c.variant for c in comparison.columns] == ["default", "irq-a72"]
    row = goodput(comparison)[0]
    assert row.cells[1] and row.cells[1].ratio == pytest.approx(758 / 680, rel=0.02)
    assert row.item == "goodput up"


def test_an_unknown_path_is_a_usage_error_with_a_guess() -> None:
    run = record(1, "r4s", path("WAN", GBE), 941.0)
    with pytest.raises(UsageError, match=r"no path 'wan' \(did you mean 'WAN'\?\)"):
        compare_paths(run, "wan", "WAN")


def test_json_is_the_table_of_runs_with_two_columns() -> None:
    comparison = compare_runs(
        record(1, "fe", path("Br0", FE), 94.1, seed=30),
        record(2, "gbe", path("Br0", GBE), 941.0, seed=20),
    )
    data = json.loads(compare_json(comparison))
    assert (data["format"], data["version"]) == ("wirespeed-compare-runs", 1)
    assert [c["run_id"] for c in data["columns"]] == [1, 2]
    row = data["rows"][0]
    assert (row["name"], row["labels"], row["unit"]) == ("goodput", {"flow": "up"}, "bit/s")
    first, second = row["cells"]
    assert first["summary"]["n"] == 5 and first["verdict"] is None
    assert first["summary"]["median"] == pytest.approx(94.1e6, rel=0.01)
    assert first["trials"][0] == "1/Br0/default/1"
    assert second["verdict"] == "significant"
    assert second["ratio_interval"]["statistic"] == "ratio of medians"


def test_csv_has_one_line_per_measurement_and_run() -> None:
    comparison = compare_runs(
        record(1, "fe", path("Br0", FE), 94.1, seed=30),
        record(2, "gbe", path("Br0", GBE), 941.0, seed=20),
    )
    rows = list(csv.DictReader(io.StringIO(compare_csv(comparison))))
    goodput_rows = [r for r in rows if r["measurement"] == "goodput"]
    assert len(goodput_rows) == 2 * 3
    assert [r["verdict"] for r in goodput_rows[:2]] == ["", "significant"]


def _args(db: Path, *runs: int, **options: object) -> argparse.Namespace:
    defaults: dict[str, object] = {
        "paths": None,
        "variants": None,
        "format": "terminal",
        "output": None,
    }
    return argparse.Namespace(db=str(db), runs=list(runs), **(defaults | options))


def _env() -> tuple[Environment, io.StringIO]:
    out = io.StringIO()
    return Environment(stdout=out, stderr=io.StringIO(), stdout_is_tty=False), out


def test_the_command_compares_the_latest_two_runs_by_default(tmp_path: Path) -> None:
    db, _ = stored(
        tmp_path,
        record(1, "old", path("Br0", GBE), 500.0),
        record(2, "fe", path("Br0", FE), 94.1, seed=30),
        record(3, "gbe", path("Br0", GBE), 941.0, seed=20),
    )
    env, out = _env()
    assert compare_command.execute(_args(db), env) == 0
    text = out.getvalue()
    assert "2 runs compared" in text and "run 2: Br0" in text and "run 3: Br0" in text
    assert re.search(r"\+(899|900)\.\d %\*", text)  # ten times: +900 %, significant


def test_the_command_compares_two_paths_of_one_run_as_json(tmp_path: Path) -> None:
    wan = record(1, "r4s", path("WAN", GBE), 941.0)
    br0 = record(1, "r4s", path("Br0", GBE), 680.0, seed=9)
    db, (run_id,) = stored(
        tmp_path, RunRecord(1, wan.info, wan.status, wan.finished_at, wan.outcomes + br0.outcomes)
    )
    env, out = _env()
    status = compare_command.execute(_args(db, run_id, paths=["WAN", "Br0"], format="json"), env)
    assert status == 0
    data = json.loads(out.getvalue())
    assert [(c["run_id"], c["path"]) for c in data["columns"]] == [(run_id, "WAN"), (run_id, "Br0")]


def test_the_command_writes_markdown_to_a_file(tmp_path: Path) -> None:
    db, ids = stored(
        tmp_path, record(1, "fe", path("Br0", FE), 94.1), record(2, "gbe", path("Br0", GBE), 941.0)
    )
    env, _ = _env()
    target = tmp_path / "compare.md"
    assert compare_command.execute(_args(db, *ids, format="markdown", output=str(target)), env) == 0
    assert target.read_text(encoding="utf-8").startswith("# 2 runs compared\n")


@pytest.mark.parametrize(
    ("runs", "options", "message"),
    [
        ((), {}, "compare needs two runs, the store has 1"),
        ((1,), {}, "compare needs two runs, or one run with --paths"),
        ((1, 1, 1), {}, "a run is given twice"),
        ((1, 1), {"paths": ["WAN", "Br0"]}, "--paths compares within one run, got 2"),
        ((), {"paths": ["a", "b"], "variants": ["c", "d"]}, "not both"),
    ],
)
def test_the_command_refuses_what_it_cannot_compare(
    tmp_path: Path, runs: tuple[int, ...], options: dict[str, object], message: str
) -> None:
    db, _ = stored(tmp_path, record(1, "only", path("Br0", GBE), 941.0, n=2))
    env, _ = _env()
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        compare_command.execute(_args(db, *runs, **options), env)


def test_large_groups_are_tested_with_welch() -> None:
    small = compare_runs(
        record(1, "fe", path("Br0", FE), 94.1, seed=30),
        record(2, "gbe", path("Br0", GBE), 941.0, seed=20),
    )
    large = compare_runs(
        record(1, "fe", path("Br0", FE), 94.1, n=25, seed=30),
        record(2, "gbe", path("Br0", GBE), 941.0, n=25, seed=20),
    )
    small_cell = goodput(small)[0].cells[1]
    assert small_cell is not None and small_cell.test is not None
    assert small_cell.test.method == "exact permutation"
    cell = goodput(large)[0].cells[1]
    assert cell is not None and cell.test is not None and cell.ratio_interval is not None
    assert cell.test.method == "welch t-test"
    assert cell.verdict is Verdict.SIGNIFICANT
    assert 9.9 < cell.ratio_interval.low <= 10.0 <= cell.ratio_interval.high < 10.1


def test_nothing_against_nothing_is_no_change_not_a_missing_ratio() -> None:
    from wirespeed.analysis.compare_many import RunColumn, compare_repetitions
    from wirespeed.model import Better, Measurement

    def column(n: int) -> RunColumn:
        return RunColumn(n, None, START, (), (), f"run {n}")

    def none_lost(prefix: str) -> list[tuple[str, list[Measurement]]]:
        lost = Measurement("retransmits", "count", Better.LOWER, 0.0, (("flow", "up"),))
        return [(f"{prefix}{k}", [lost]) for k in range(3)]

    found = compare_repetitions(
        [column(1), column(2)],
        [none_lost("a"), none_lost("b")],
        test_id="1",
        test_name="TCP",
        noun="run",
        legend="",
    )
    cell = found.rows[0].cells[1]
    assert cell is not None and (cell.ratio, cell.verdict) == (1.0, Verdict.NOT_SIGNIFICANT)
    assert "+0.0 %~" in compare_markdown(found)
