"""Comparisons: a link ten times faster is significant, the same link twice is not."""

from __future__ import annotations

import argparse
import io
import json
import random
from collections.abc import Sequence
from pathlib import Path

import pytest

from support.samples import GBE, START, measured, run_record, store_runs
from wirespeed.analysis.compare import (
    CompareBy,
    Verdict,
    compare_paths,
    compare_runs,
    compare_variants,
)
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
from wirespeed.report.compare_export import render_compare_csv, render_compare_json
from wirespeed.report.compare_render import render_compare_markdown
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


def test_gbe_against_fe_is_significant_and_about_ten_times(tmp_path: Path) -> None:
    db, (gbe_id, fe_id) = stored(
        tmp_path,
        record(1, "gbe", path("Br0", GBE), 941.0, seed=20),
        record(2, "fe", path("Br0", FE), 94.1, seed=30),
    )
    with Store.open(db) as store:
        comparison = compare_runs(store.load_run(fe_id), store.load_run(gbe_id))
    assert comparison.by is CompareBy.RUN
    assert [(c.test_id, c.flow) for c in comparison.cells] == [
        ("1", Flow.UP),
        ("2", Flow.UP),
        ("2", Flow.DOWN),
    ]
    for cell in comparison.cells:
        assert cell.verdict is Verdict.SIGNIFICANT
        assert cell.ratio is not None and cell.ratio == pytest.approx(10.0, rel=0.02)
        assert cell.ratio_interval is not None and cell.ratio_interval.contains(cell.ratio)
        assert cell.test is not None and cell.test.exact and cell.test.p_value < 0.05
        assert (cell.path, cell.variant) == ("Br0", "default")


def test_two_runs_of_the_same_link_are_not_significant(tmp_path: Path) -> None:
    db, (first, second) = stored(
        tmp_path,
        record(1, "monday", path("Br0", GBE), 941.0, seed=1),
        record(2, "tuesday", path("Br0", GBE), 941.0, seed=50),
    )
    with Store.open(db) as store:
        comparison = compare_runs(store.load_run(first), store.load_run(second))
    assert {c.verdict for c in comparison.cells} == {Verdict.NOT_SIGNIFICANT}
    text = render_compare_markdown(comparison)
    assert "not significant (p = " in text
    assert "\N{MULTIPLICATION SIGN}" not in text  # no invented speed-up anywhere


def test_single_runs_show_the_ratio_marked_without_a_verdict() -> None:
    comparison = compare_runs(
        record(1, "gbe", path("Br0", GBE), 941.0, n=1),
        record(2, "fe", path("Br0", FE), 94.1, n=5),
    )
    cell = comparison.cells[0]
    assert cell.verdict is Verdict.SINGLE_RUN
    assert cell.ratio == pytest.approx(0.1, rel=0.02)
    assert (cell.test, cell.ratio_interval) == (None, None)
    assert "single run: no significance (0.100\N{MULTIPLICATION SIGN})" in (
        render_compare_markdown(comparison)
    )


def test_three_against_three_says_it_cannot_reach_significance() -> None:
    comparison = compare_runs(
        record(1, "gbe", path("Br0", GBE), 941.0, n=3),
        record(2, "fe", path("Br0", FE), 94.1, n=3),
    )
    assert comparison.cells[0].verdict is Verdict.NOT_SIGNIFICANT
    assert comparison.cells[0].too_few_repetitions
    assert "3 and 3 repetitions cannot reach p < 0.05" in render_compare_markdown(comparison)


def test_a_test_on_one_side_only_is_listed_as_such() -> None:
    a = record(1, "a", path("Br0", GBE), 941.0)
    b = record(2, "b", path("Br0", GBE), 941.0)
    b = RunRecord(b.id, b.info, b.status, b.finished_at, b.outcomes[::2])  # TCP only
    verdicts = [(c.test_id, c.flow.value, c.verdict) for c in compare_runs(a, b).cells]
    assert verdicts[1:] == [("2", "up", Verdict.ONLY_A), ("2", "down", Verdict.ONLY_A)]


def test_two_paths_of_one_run_like_the_seeds_wan_against_br0() -> None:
    wan = record(1, "r4s", path("WAN", GBE), 941.0)
    br0 = record(1, "r4s", path("Br0", GBE), 680.0, seed=9)
    run = RunRecord(1, wan.info, wan.status, wan.finished_at, wan.outcomes + br0.outcomes)
    comparison = compare_paths(run, "WAN", "Br0")
    assert (comparison.a.label, comparison.b.label) == ("WAN", "Br0")
    assert all(c.path is None for c in comparison.cells)
    assert all(c.verdict is Verdict.SIGNIFICANT for c in comparison.cells)
    assert comparison.cells[0].ratio == pytest.approx(680 / 941, rel=0.02)
    markdown = render_compare_markdown(comparison)
    assert markdown.startswith("# Br0 against WAN, paths of run 1 (r4s)\n")
    assert "| Test | A: WAN | B: Br0 | B/A |" in markdown


def test_two_variants_of_one_run() -> None:
    off = record(1, "r4s", path("Br0", GBE), 680.0, seed=3)
    on = record(1, "r4s", path("Br0", GBE), 758.0, seed=4, variant="irq-a72")
    run = RunRecord(1, off.info, off.status, off.finished_at, off.outcomes + on.outcomes)
    comparison = compare_variants(run, "default", "irq-a72")
    assert comparison.cells[0].ratio == pytest.approx(758 / 680, rel=0.02)
    assert all(c.variant is None and c.path == "Br0" for c in comparison.cells)


def test_an_unknown_path_is_a_usage_error_with_a_guess() -> None:
    run = record(1, "r4s", path("WAN", GBE), 941.0)
    with pytest.raises(UsageError, match=r"no path 'wan' \(did you mean 'WAN'\?\)"):
        compare_paths(run, "wan", "WAN")


def test_json_is_versioned_and_carries_both_sides() -> None:
    comparison = compare_runs(
        record(1, "fe", path("Br0", FE), 94.1, seed=30),
        record(2, "gbe", path("Br0", GBE), 941.0, seed=20),
    )
    data = json.loads(render_compare_json(comparison))
    assert (data["format"], data["version"], data["by"]) == ("wirespeed-compare", 1, "run")
    cell = data["cells"][0]
    assert cell["verdict"] == "significant"
    assert cell["a"]["n"] == 5 and cell["b"]["stability"] == "stable"
    assert cell["ratio_interval"]["statistic"] == "ratio of medians"
    assert cell["test"]["exact"] is True and cell["test"]["permutations"] == 252
    assert cell["a_trials"][0] == "1/Br0/default/1"


def test_csv_has_one_row_per_compared_cell() -> None:
    comparison = compare_runs(
        record(1, "fe", path("Br0", FE), 94.1, seed=30),
        record(2, "gbe", path("Br0", GBE), 941.0, seed=20),
    )
    lines = render_compare_csv(comparison).splitlines()
    assert len(lines) == 1 + 3
    assert lines[0].startswith("by,a,b,a_run_id,b_run_id,test_id")
    assert lines[1].endswith(",yes,significant")


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
    assert "Run 3 against run 2" in text
    assert "significant: 10.0\N{MULTIPLICATION SIGN} (" in text


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
    assert (data["by"], data["a"]["path"], data["b"]["path"]) == ("path", "WAN", "Br0")


def test_the_command_writes_markdown_to_a_file(tmp_path: Path) -> None:
    db, ids = stored(
        tmp_path, record(1, "fe", path("Br0", FE), 94.1), record(2, "gbe", path("Br0", GBE), 941.0)
    )
    env, _ = _env()
    target = tmp_path / "compare.md"
    assert compare_command.execute(_args(db, *ids, format="markdown", output=str(target)), env) == 0
    assert target.read_text(encoding="utf-8").startswith(f"# Run {ids[1]} against run {ids[0]}")


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


def test_the_json_and_csv_name_the_test_used() -> None:
    small = compare_runs(
        record(1, "fe", path("Br0", FE), 94.1, seed=30),
        record(2, "gbe", path("Br0", GBE), 941.0, seed=20),
    )
    large = compare_runs(
        record(1, "fe", path("Br0", FE), 94.1, n=25, seed=30),
        record(2, "gbe", path("Br0", GBE), 941.0, n=25, seed=20),
    )
    assert json.loads(render_compare_json(small))["cells"][0]["test"]["method"] == (
        "exact permutation"
    )
    data = json.loads(render_compare_json(large))
    assert data["method"]["welch_from_repetitions"] == 20
    cell = data["cells"][0]
    assert cell["test"]["method"] == "welch t-test"
    assert cell["verdict"] == "significant"
    assert cell["ratio_interval"]["resamples"] == 2000
    assert 9.9 < cell["ratio_interval"]["low"] <= 10.0 <= cell["ratio_interval"]["high"] < 10.1
    header, row = render_compare_csv(large).splitlines()[:2]
    assert header.split(",").index("test_method") == row.split(",").index("welch t-test")
