"""The store keeps every trial exactly, and survives a run that dies half-way."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.model import (
    Direction,
    DirectionResult,
    Flow,
    Interval,
    LinkModel,
    Measurement,
    PathSpec,
    Proto,
    RawOutput,
    Result,
    Side,
    StreamResult,
    TestCase,
    TestSpec,
    Tool,
    ToolWarning,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
    UdpStats,
    WarningKind,
)
from wirespeed.store import HostInfo, RunInfo, RunStatus, Store
from wirespeed.store.schema import SCHEMA_VERSION

GBE = LinkModel(name="gbe", rate_bps=1_000_000_000)
WAN = PathSpec(name="WAN", topology=Topology.ENDPOINT, client="ws", server="r4s", link=GBE)
BR0 = PathSpec(
    name="Br0", topology=Topology.BRIDGE, client="laptop", server="ws", dut="r4s", link=GBE
)
DUAL_TCP = TestCase(
    id="#4",
    name="TCP dual, 2 streams",
    tool=Tool.IPERF2,
    spec=TestSpec(duration=120, direction=Direction.DUAL, parallel=2),
)
UDP = TestCase(
    id="#5",
    name="UDP 1000M",
    tool=Tool.IPERF2,
    spec=TestSpec(protocol=Proto.UDP, duration=120, rate=1_048_576_000, length=1470),
)


def _stream(stream_id: int, flow: Flow, mbit: float) -> StreamResult:
    return StreamResult(
        id=stream_id,
        flow=flow,
        sent=Measurement(bytes=int(mbit * 15e6), seconds=120.0, bits_per_second=mbit * 1e6),
        received=Measurement(bytes=int(mbit * 15e6), seconds=120.2, bits_per_second=mbit * 1e6),
        intervals=(
            Interval(start=0.0, end=1.0, bytes=int(mbit * 125e3), bits_per_second=mbit * 1e6),
            Interval(start=1.0, end=2.0, bytes=int(mbit * 125e3), bits_per_second=mbit * 1e6),
        ),
    )


def _dual_outcome(path: PathSpec = WAN, repetition: int = 1) -> TrialOutcome:
    directions = tuple(
        DirectionResult(
            flow=flow,
            sent=Measurement(bytes=13_800_000_000, seconds=120.0, bits_per_second=920.4e6),
            received=Measurement(bytes=13_790_000_000, seconds=120.01, bits_per_second=919.3e6),
            retransmits=None,
            streams=(_stream(3 + i, flow, 460.1), _stream(5 + i, flow, 459.2)),
            intervals=(
                Interval(start=0.0, end=1.0, bytes=115_000_000, bits_per_second=920e6),
                Interval(start=1.0, end=2.0, bytes=114_900_000, bits_per_second=919.2e6),
            ),
        )
        for i, flow in enumerate((Flow.UP, Flow.DOWN))
    )
    return TrialOutcome(
        trial=Trial(test=DUAL_TCP, path=path, repetition=repetition),
        status=TrialStatus.OK,
        started_at=1607544000.25,
        finished_at=1607544121.5,
        result=Result(
            tool=Tool.IPERF2,
            protocol=Proto.TCP,
            directions=directions,
            tool_version="2.0.13",
        ),
        raw=(
            RawOutput(
                host="ws",
                side=Side.CLIENT,
                argv=("iperf", "-c", "192.168.0.62", "-t", "120", "-d", "-P", "2"),
                format="text",
                text="(client output)",
                exit_status=0,
            ),
            RawOutput(
                host="r4s", side=Side.SERVER, argv=("iperf", "-s"), format="text", text="(server)"
            ),
        ),
    )


def _udp_outcome_with_loss() -> TrialOutcome:
    udp = UdpStats(jitter_ms=0.0, lost=2_137_748_578, packets=2_138_402_602, out_of_order=1)
    up = DirectionResult(
        flow=Flow.UP,
        sent=Measurement(bytes=13_314_398_208, seconds=120.0, bits_per_second=890e6),
        received=Measurement(bytes=961_544_192, seconds=120.2, bits_per_second=64.0e6),
        udp=udp,
        streams=(StreamResult(id=3, flow=Flow.UP, udp=udp),),
        intervals=(
            Interval(
                start=0.0,
                end=1.0,
                bytes=8_000_000,
                bits_per_second=64e6,
                jitter_ms=0.01,
                lost=17_000_000,
                packets=17_800_000,
            ),
        ),
    )
    return TrialOutcome(
        trial=Trial(test=UDP, path=BR0),
        status=TrialStatus.OK,
        started_at=1607545000.0,
        finished_at=1607545121.0,
        result=Result(
            tool=Tool.IPERF2,
            protocol=Proto.UDP,
            directions=(up,),
            warnings=(ToolWarning(kind=WarningKind.LOSS_SATURATED, message="(1e+02%)"),),
        ),
        raw=(RawOutput(host="laptop", side=Side.CLIENT, argv=("iperf",), format="csv", text="x"),),
    )


def _failed_outcome() -> TrialOutcome:
    return TrialOutcome(
        trial=Trial(test=DUAL_TCP, path=BR0),
        status=TrialStatus.FAILED,
        started_at=1607546000.0,
        finished_at=1607546003.0,
        reason="the server did not listen within 5 s",
    )


INFO = RunInfo(
    title="Nanopi-R4S",
    started_at=1607543999.5,
    argv=("wirespeed", "run", "r4s.yaml"),
    plan_path="r4s.yaml",
    plan_text="tests: []\n",
    provenance={
        "hosts": {
            "r4s": {
                "kernel": "Linux 5.4.75 aarch64",
                "os": "OpenWrt 19.07.4",
                "iperf2": "2.0.13",
                "iperf3": None,
            }
        },
        "labs": {},
    },
)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "runs.db"


def test_an_outcome_comes_back_equal(db: Path) -> None:
    outcomes = (_dual_outcome(), _udp_outcome_with_loss(), _failed_outcome())
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        for outcome in outcomes:
            store.add_outcome(run_id, outcome)
        store.finish_run(run_id, RunStatus.COMPLETE, finished_at=1607546010.0)

    with Store.open(db) as store:
        record = store.load_run(run_id)
    assert record.outcomes == outcomes
    assert record.info == INFO
    assert record.info.hosts == (
        HostInfo(
            name="r4s",
            os="OpenWrt 19.07.4",
            kernel="Linux 5.4.75 aarch64",
            tools={"iperf2": "2.0.13"},
        ),
    )
    assert record.status is RunStatus.COMPLETE
    assert record.finished_at == 1607546010.0
    assert (record.trials_ok, record.trials_failed) == (2, 1)


def test_counters_beyond_32_bits_are_kept(db: Path) -> None:
    big = _udp_outcome_with_loss()
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, big)
        result = store.load_run(run_id).outcomes[0].result
    assert result is not None
    direction = result.directions[0]
    assert direction.udp is not None
    assert direction.udp.packets == 2_138_402_602
    assert direction.sent is not None
    assert direction.sent.bytes == 13_314_398_208


def test_runs_are_listed_with_their_trials_and_paths(db: Path) -> None:
    with Store.open(db) as store:
        first = store.begin_run(INFO)
        store.add_outcome(first, _dual_outcome(WAN))
        store.add_outcome(first, _failed_outcome())
        store.finish_run(first, "complete")
        second = store.begin_run(RunInfo(title="R2S", started_at=1607600000.0))
        runs = store.list_runs()
    assert [r.id for r in runs] == [first, second]
    assert (runs[0].trials_ok, runs[0].trials_failed) == (1, 1)
    assert runs[0].paths == ("WAN", "Br0")
    assert runs[0].status is RunStatus.COMPLETE
    assert runs[1].status is RunStatus.RUNNING
    assert (runs[1].trials_ok, runs[1].paths) == (0, ())


def test_load_run_without_an_id_loads_the_latest(db: Path) -> None:
    with Store.open(db) as store:
        store.begin_run(INFO)
        latest = store.begin_run(RunInfo(title="R2S", started_at=1607600000.0))
        assert store.load_run().id == latest
        assert store.load_run().info.title == "R2S"


def test_an_unknown_run_is_a_usage_error_with_a_hint(db: Path) -> None:
    with Store.open(db) as store:
        store.begin_run(INFO)
        with pytest.raises(UsageError, match=r"no run 42; `wirespeed runs` lists them"):
            store.load_run(42)
        with pytest.raises(UsageError, match="no run 42"):
            store.add_outcome(42, _failed_outcome())


def test_an_empty_store_has_no_latest_run(db: Path) -> None:
    with Store.open(db) as store, pytest.raises(UsageError, match="no runs"):
        store.load_run()


def test_a_run_killed_half_way_keeps_every_committed_trial(db: Path) -> None:
    # The runner commits each trial and then dies without finish_run or close.
    writer = Store.open(db)
    run_id = writer.begin_run(INFO)
    writer.add_outcome(run_id, _dual_outcome(WAN, repetition=1))
    writer.add_outcome(run_id, _dual_outcome(WAN, repetition=2))

    reader = Store.open(db)
    record = reader.load_run(run_id)
    assert [o.trial.repetition for o in record.outcomes] == [1, 2]
    assert record.status is RunStatus.RUNNING
    reader.close()
    writer.close()


KILLED_WRITER = """
import os, signal, sys
from wirespeed.model import *
from wirespeed.store import RunInfo, Store

test = TestCase(id="#1", name="TCP", tool=Tool.IPERF2, spec=TestSpec())
path = PathSpec(name="WAN", topology=Topology.ENDPOINT, client="a", server="b")
store = Store.open(sys.argv[1])
run_id = store.begin_run(RunInfo(title="killed", started_at=1.0))
for repetition in (1, 2):
    store.add_outcome(run_id, TrialOutcome(
        trial=Trial(test=test, path=path, repetition=repetition),
        status=TrialStatus.FAILED, started_at=2.0, finished_at=3.0, reason="no server",
    ))
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_writer_killed_with_sigkill_loses_nothing_it_committed(db: Path) -> None:
    process = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(db)], check=False)
    assert process.returncode == -signal.SIGKILL
    with Store.open(db) as store:
        (run,) = store.list_runs()
        assert (run.title, run.status, run.trials_failed) == ("killed", RunStatus.RUNNING, 2)


def test_sqlite_runs_in_wal_mode_with_foreign_keys(db: Path) -> None:
    with Store.open(db) as store:
        store.begin_run(INFO)
    connection = sqlite3.connect(db)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        version = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'")
        assert version.fetchone()[0] == str(SCHEMA_VERSION)
    finally:
        connection.close()


def test_a_database_from_another_schema_version_is_refused(db: Path) -> None:
    Store.open(db).close()
    connection = sqlite3.connect(db)
    connection.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    connection.commit()
    connection.close()
    with pytest.raises(UsageError, match="schema version 99"):
        Store.open(db)


def test_a_run_without_a_title_is_stored(db: Path) -> None:
    with Store.open(db) as store:
        run_id = store.begin_run(RunInfo(title=None, started_at=1.0))
        assert store.load_run(run_id).info.title is None
        assert store.list_runs()[0].title is None


def test_open_takes_a_url_as_it_is(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'by-url.db'}"
    with Store.open(url) as store:
        assert store.url == url
    assert (tmp_path / "by-url.db").exists()


def test_open_creates_the_directory_of_a_new_file(tmp_path: Path) -> None:
    with Store.open(tmp_path / "deep" / "er" / "w.db") as store:
        store.begin_run(INFO)
    assert (tmp_path / "deep" / "er" / "w.db").exists()


def test_finish_run_refuses_an_unknown_status(db: Path) -> None:
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        with pytest.raises(ValueError, match="done"):
            store.finish_run(run_id, "done")
