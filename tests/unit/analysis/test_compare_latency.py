"""Comparing probed tests: the latency figures are measurements beside the flows', each
with its own better way (the round trip's: lower).

The figures come from real probes (tests/fixtures/latency: irtt through the lab's
router, idle and under a load that filled its 40 ms queue): variant `bloated` measured
the queue under load, variant `fixed` measured the path as idle as it was before the
load (a router whose queue stays empty). Five repetitions each, through a real store.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from pathlib import Path

from support.comparison_text import compare_csv, compare_json, compare_markdown
from support.samples import START, run_record, store_runs
from wirespeed.analysis.compare_many import Verdict, compare_many
from wirespeed.analysis.compare_within import compare_variants
from wirespeed.analysis.latency import latency_measurements
from wirespeed.model import (
    Better,
    Direction,
    DirectionResult,
    Flow,
    LinkModel,
    PathSpec,
    Probes,
    Proto,
    Result,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.store import Store
from wirespeed.tools import irtt

FIXTURES = Path(__file__).parents[2] / "fixtures" / "latency"
IDLE = irtt.parse((FIXTURES / "irtt-idle-router-100mbit.json").read_text())
LOADED = irtt.parse((FIXTURES / "irtt-loaded-router-100mbit-queue-40ms.json").read_text())
RRUL = TestCase(
    id="rrul",
    name="RRUL",
    tool=Tool.RRUL,
    spec=TestSpec(duration=10, parallel=4, direction=Direction.BIDIR, probes=Probes.IRTT),
)
ROUTER = PathSpec("router", Topology.ROUTER, "client", "server", "dut", LinkModel("fe", 10**8))


def outcome(variant: str, repetition: int) -> TrialOutcome:
    """A probed RRUL trial: both ways near 94 Mbit/s, latency as the variant has it."""
    loaded = LOADED if variant == "bloated" else IDLE
    # Repetitions differ a little, as real ones do: a probe less each time.
    trimmed = dataclasses.replace(
        loaded,
        sent=loaded.sent - repetition,
        rtt_ms=loaded.rtt_ms[repetition:],
        up_ms=loaded.up_ms[repetition:],
        down_ms=loaded.down_ms[repetition:],
        seq=loaded.seq[repetition:],
    )
    moved = Transfer(bytes=117_000_000, seconds=10.0, bits_per_second=93.6e6 + repetition * 1e4)
    return TrialOutcome(
        trial=Trial(RRUL, ROUTER, variant, repetition),
        status=TrialStatus.OK,
        started_at=START + repetition * 20,
        finished_at=START + repetition * 20 + 10,
        result=Result(
            tool=Tool.RRUL,
            protocol=Proto.TCP,
            directions=tuple(DirectionResult(f, moved, moved) for f in Flow),
            measurements=latency_measurements(IDLE, trimmed),
        ),
    )


def test_a_queue_that_stays_empty_is_significantly_lower_and_said_to_be_better(
    tmp_path: Path,
) -> None:
    outcomes = [outcome(v, k) for k in range(1, 6) for v in ("bloated", "fixed")]
    (run_id,) = store_runs(tmp_path / "w.db", run_record(*outcomes))
    with Store.open(tmp_path / "w.db") as store:
        comparison = compare_variants(store.load_run(run_id), "bloated", "fixed")
    rows = {row.item: row for row in comparison.rows}
    for item in (
        "rtt idle, p50",
        "rtt loaded, p50",
        "rtt loaded, p99",
        "latency increase round trip",
    ):
        assert rows[item].better is Better.LOWER and rows[item].unit == "ms"
    loaded = rows["rtt loaded, p50"].cells[1]
    assert loaded is not None and loaded.verdict is Verdict.SIGNIFICANT
    assert loaded.ratio is not None and loaded.ratio < 0.1  # 40 ms of queue gone
    # The idle baseline is the same probes on both sides: nothing to tell apart.
    idle = rows["rtt idle, p50"].cells[1]
    assert idle is not None and idle.verdict is Verdict.NOT_SIGNIFICANT
    # An increase of about 0 ms on the fixed side (noise may put it below 0): no ratio,
    # or a significant drop.
    increase = rows["latency increase round trip"].cells[1]
    assert increase is not None and increase.verdict in (Verdict.NO_RATIO, Verdict.SIGNIFICANT)
    goodput = [row.item for row in comparison.rows if row.name == "goodput"]
    assert goodput == ["goodput up", "goodput down"]
    assert rows["goodput up"].better is Better.HIGHER

    table = compare_markdown(comparison)
    line = next(line for line in table.splitlines() if "rtt loaded, p50" in line)
    assert "\N{DOWNWARDS ARROW}" in line and " ms" in line and " %*" in line

    (row,) = [
        r
        for r in json.loads(compare_json(comparison))["rows"]
        if r["name"] == "rtt" and r["labels"] == {"load": "loaded", "statistic": "p50"}
    ]
    assert row["better"] == "lower" and row["unit"] == "ms"
    bloated, fixed = row["cells"]
    assert 30 < bloated["summary"]["median"] < 45 and fixed["summary"]["median"] < 1
    lines = list(csv.DictReader(io.StringIO(compare_csv(comparison))))
    p50 = [
        r for r in lines if r["measurement"] == "rtt" and r["labels"] == "load=loaded;statistic=p50"
    ]
    assert [r["better"] for r in p50] == ["lower", "lower"] and float(p50[0]["median"]) > 30


def test_two_runs_of_one_probed_test_compare_its_latency_too(tmp_path: Path) -> None:
    bloated = run_record(*(outcome("bloated", k) for k in range(1, 6)), run_id=1)
    again = run_record(*(outcome("bloated", k) for k in range(1, 6)), run_id=2)
    ids = store_runs(tmp_path / "w.db", bloated, again)
    with Store.open(tmp_path / "w.db") as store:
        comparison = compare_many([store.load_run(ids[0]), store.load_run(ids[1])])
    latency = [row.cells[1] for row in comparison.rows if row.name == "rtt"]
    assert len(latency) >= 3
    # The same probes twice: the same figures, nothing significant.
    assert all(c is not None and c.verdict is Verdict.NOT_SIGNIFICANT for c in latency)
