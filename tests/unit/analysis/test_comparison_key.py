"""The comparison key: figures measured otherwise (another tool's major version, link,
topology, options) are never set side by side silently; how long a test ran is not part
of what it measured. Across stores and bundles, compare also says how the devices'
configurations differ and which columns are not valid."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

from support.cli import run_cli
from support.samples import GBE, START, dual_tcp, measured, run_record, store_runs, wan_path
from wirespeed.analysis.compare_many import compare_many
from wirespeed.model import (
    DirectionResult,
    Flow,
    LinkModel,
    Proto,
    Result,
    Tool,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.store.records import RunRecord

TWO_AND_A_HALF = LinkModel(name="2.5gbe", rate_bps=2_500_000_000)


def _outcome(
    *,
    tool: Tool = Tool.IPERF2,
    version: str = "2.1.8",
    link: LinkModel = GBE,
    parallel: int = 2,
    duration: int = 120,
    mbit: float = 940.0,
    repetition: int = 1,
) -> TrialOutcome:
    test = dual_tcp(duration=duration)
    test = dataclasses.replace(
        test, tool=tool, spec=dataclasses.replace(test.spec, parallel=parallel)
    )
    result = Result(
        tool=tool,
        protocol=Proto.TCP,
        directions=(DirectionResult(Flow.UP, received=measured(mbit, duration)),),
        tool_version=version,
    )
    trial = Trial(test, dataclasses.replace(wan_path(), link=link), repetition=repetition)
    return TrialOutcome(trial, TrialStatus.OK, START, START + duration, result=result)


def _goodput_cells(first: TrialOutcome, other: TrialOutcome, strict: bool = True) -> list[object]:
    records = [run_record(first, run_id=1), run_record(other, run_id=2)]
    table = compare_many(records, strict=strict)
    (row,) = [r for r in table.rows if r.name == "goodput"]
    return list(row.cells)


def test_the_same_test_the_same_way_is_compared() -> None:
    # A longer test and another minor version measure the same thing.
    _, cell = _goodput_cells(_outcome(), _outcome(duration=60, version="2.1.9", mbit=900))
    assert cell.not_comparable is None  # type: ignore[attr-defined]
    assert cell.ratio is not None  # type: ignore[attr-defined]


def test_another_tool_and_link_are_named_and_given_no_ratio() -> None:
    other = _outcome(tool=Tool.IPERF3, version="3.12", link=TWO_AND_A_HALF)
    first, cell = _goodput_cells(_outcome(), other)
    assert first.not_comparable is None  # type: ignore[attr-defined]
    said = cell.not_comparable  # type: ignore[attr-defined]
    assert said == "iperf2 2.1.8 vs iperf3 3.12; link gbe vs 2.5gbe"
    assert cell.ratio is None and cell.verdict is None  # type: ignore[attr-defined]
    # Runs of one store: compared as asked, the key said beside the ratio.
    _, cell = _goodput_cells(_outcome(), other, strict=False)
    assert cell.ratio == 1.0 and cell.not_comparable == said  # type: ignore[attr-defined]


def test_other_options_are_named() -> None:
    _, cell = _goodput_cells(_outcome(), _outcome(parallel=4))
    assert cell.not_comparable == "parallel 2 vs 4"  # type: ignore[attr-defined]
    _, cell = _goodput_cells(_outcome(), _outcome(version="3.0.0"))
    assert cell.not_comparable == "iperf2 2.1.8 vs iperf2 3.0.0"  # type: ignore[attr-defined]


def _record(*outcomes: TrialOutcome, kernel: str, labs: bool) -> RunRecord:
    provenance: dict[str, object] = {
        "hosts": {"r4s": {"role": "dut", "kernel": kernel, "machine": "FriendlyElec NanoPi R4S"}}
    }
    if labs:
        provenance["labs"] = {"router": {"link": "gbe"}}
    return run_record(*outcomes, provenance=provenance)


def test_compare_across_stores_and_bundles_says_keys_configuration_and_verdicts(
    tmp_path: Path,
) -> None:
    a, b = str(tmp_path / "a.db"), str(tmp_path / "b.db")
    store_runs(a, _record(_outcome(), kernel="Linux 5.10.12", labs=False))
    repeated = [_outcome(tool=Tool.IPERF3, version="3.12", repetition=k) for k in (1, 2, 3)]
    store_runs(b, _record(*repeated, kernel="Linux 6.1.0", labs=True))

    done = run_cli("compare", "--store", a, "--store", b, "--format", "markdown")
    assert done.status == 0, done.err
    out = done.out.replace("\\|", "|")  # as Markdown escapes it
    assert "| Measurement | a.db run 1 | b.db run 1 |" in out
    assert "not comparable: iperf2 2.1.8 vs iperf3 3.12" in out
    assert "- kernel: Linux 5.10.12 | Linux 6.1.0" in out
    assert "- bench: real | lab" in out
    assert "a.db run 1: not valid: no repetitions" in out
    assert "b.db run 1: valid" in out

    # The same through bundles, and one of them beside a run of --db.
    for db, name in ((a, "a.wsr"), (b, "b.wsr")):
        assert run_cli("export", "1", "-o", str(tmp_path / name), "--db", db).status == 0
    done = run_cli("compare", str(tmp_path / "a.wsr"), str(tmp_path / "b.wsr"), "--format", "json")
    assert done.status == 0, done.err
    document = json.loads(done.out)
    cells = next(r["cells"] for r in document["rows"] if r["name"] == "goodput")
    assert cells[1]["not_comparable"] == "iperf2 2.1.8 vs iperf3 3.12"
    assert cells[1]["ratio"] is None
    assert [c["label"].split(":")[0] for c in document["columns"]] == ["a.wsr", "b.wsr"]
    assert "b.wsr: valid" in document["notes"]
    done = run_cli("compare", "1", str(tmp_path / "b.wsr"), "--db", a)
    assert done.status == 0, done.err
    assert "not comparable: iperf2 2.1.8 vs" in done.out


def test_compare_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    done = run_cli("compare", str(tmp_path / "none.wsr"), str(tmp_path / "none.wsr"))
    assert done.status == 2 and "not a run id, and no bundle to read" in done.err
    broken = tmp_path / "broken.wsr"
    broken.write_bytes(gzip.compress(b"{}")[:10])
    done = run_cli("compare", str(broken), str(broken))
    assert done.status == 2 and "nothing was compared" in done.err
    done = run_cli("compare", "--store", str(tmp_path / "nowhere.db"), "--store", "x.db")
    assert done.status == 2 and "no store at" in done.err
    assert "Traceback" not in done.err
