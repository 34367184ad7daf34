"""Builders of sample runs that the store, report, compare and browser tests share: the
seeds' NanoPi R4S on a gigabit link (a WAN path with the R4S as iperf endpoint, a Br0 path
through it as a bridge), its iperf2 tests, and runs written to a store.

Each suite keeps its own figures (tests/unit/report/report_samples.py,
tests/unit/store/store_samples.py, tests/browser/html_samples.py) built from these.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wirespeed.model import (
    Direction,
    LinkModel,
    PathSpec,
    Proto,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Transfer,
    TrialOutcome,
)
from wirespeed.store.records import RunInfo, RunRecord, RunStatus

GBE = LinkModel(name="gbe", rate_bps=1_000_000_000)
START = 1_607_544_000.0  # 2020-12-09, when the seeds were measured
UDP_1000M = 1_048_576_000  # iperf2's -b 1000M: binary megabits


def wan_path(client: str = "workstation") -> PathSpec:
    """The seeds' WAN test: the R4S is the iperf server."""
    return PathSpec(name="WAN", topology=Topology.ENDPOINT, client=client, server="r4s", link=GBE)


def bridge_path(name: str = "Br0", server: str = "workstation") -> PathSpec:
    """The seeds' Br0 test: laptop to a server through the R4S as a bridge."""
    return PathSpec(
        name=name, topology=Topology.BRIDGE, client="laptop", server=server, dut="r4s", link=GBE
    )


def dual_tcp(name: str = "TCP dual -P 2", duration: int = 120) -> TestCase:
    """The seeds' test #4: iperf2 -d -P 2, both ways at once, two streams each."""
    spec = TestSpec(duration=duration, direction=Direction.DUAL, parallel=2)
    return TestCase(id="#4", name=name, tool=Tool.IPERF2, spec=spec)


def udp_1000m(duration: int = 120, length: int | None = None) -> TestCase:
    """The seeds' test #5: iperf2 -u -b 1000M."""
    spec = TestSpec(protocol=Proto.UDP, duration=duration, rate=UDP_1000M, length=length)
    return TestCase(id="#5", name="UDP 1000M", tool=Tool.IPERF2, spec=spec)


def measured(mbit: float, seconds: float = 120.0) -> Transfer:
    """mbit Mbit/s over `seconds`, its bytes to match."""
    return Transfer(
        bytes=int(mbit * 1e6 / 8 * seconds), seconds=seconds, bits_per_second=mbit * 1e6
    )


def run_record(
    *outcomes: TrialOutcome,
    run_id: int = 1,
    title: str | None = "t",
    started_at: float = START,
    finished_at: float | None = None,
    provenance: Mapping[str, Any] | None = None,
) -> RunRecord:
    """A complete run of these outcomes, as the store gives it back."""
    info = RunInfo(title=title, started_at=started_at, provenance=provenance or {})
    return RunRecord(
        id=run_id,
        info=info,
        status=RunStatus.COMPLETE,
        finished_at=finished_at,
        outcomes=outcomes,
    )


def store_runs(db: Path | str, *records: RunRecord) -> list[int]:
    """The runs written to the store at db, as a run writes them; their ids there."""
    from wirespeed.store import Store

    ids = []
    with Store.open(db) as store:
        for record in records:
            run_id = store.begin_run(record.info)
            for outcome in record.outcomes:
                store.add_outcome(run_id, outcome)
            store.finish_run(run_id, RunStatus.COMPLETE, finished_at=record.finished_at)
            ids.append(run_id)
    return ids
