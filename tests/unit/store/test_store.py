"""The store keeps every trial exactly, and survives a run that dies half-way."""

from __future__ import annotations

import dataclasses
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import inspect, update
from store_backends import BACKENDS, engine_for, fresh_store
from store_samples import (
    BR0,
    DUAL_TCP,
    INFO,
    WAN,
    dual_outcome,
    failed_outcome,
    udp_outcome_with_loss,
)

from support.cli import run_cli
from wirespeed.errors import UsageError
from wirespeed.model import RawOutput, Side, Tool, Trial, TrialOutcome, TrialStatus
from wirespeed.store import HostInfo, RunInfo, RunStatus, Store, schema
from wirespeed.store.schema import SCHEMA_VERSION, meta
from wirespeed.trial_kind import kind_of


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty store on each backend: a SQLite file, or a fresh PostgreSQL database."""
    with fresh_store(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def sqlite_db(tmp_path: Path) -> Path:
    return tmp_path / "runs.db"


def test_an_outcome_comes_back_equal(db: str) -> None:
    outcomes = (dual_outcome(), udp_outcome_with_loss(), failed_outcome())
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


def test_a_stored_tool_comes_back_as_the_tool_its_kind_serves(db: str) -> None:
    # A run keeps its tool as text; read back, it is the very tool the kind's module made,
    # as an enum's member was, so `tool is Tool.IPERF2` holds for a stored trial.
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, dual_outcome())
    with Store.open(db) as store:
        (outcome,) = store.load_run(run_id).outcomes
    assert outcome.result is not None
    assert outcome.trial.test.tool is Tool.IPERF2 and outcome.result.tool is Tool.IPERF2
    assert outcome.trial.test.tool is kind_of(Tool("iperf2")).tools[0]


def test_a_stored_tool_this_version_has_no_kind_for_is_said_not_a_traceback(db: str) -> None:
    # A newer wirespeed's kind: the run loads, its report says what it cannot read.
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, dual_outcome())
        with store.connect() as conn:
            conn.execute(update(schema.trials).values(tool="tea-kettle"))
            conn.commit()
    status, _, err = run_cli("report", str(run_id), "--db", db)
    assert status == 1
    assert "no kind of this wirespeed serves tool 'tea-kettle' (it has 7zip," in err
    assert "a newer wirespeed wrote it" in err and "Traceback" not in err


def _without_intervals(outcome: TrialOutcome) -> TrialOutcome:
    if outcome.result is None:
        return outcome
    directions = tuple(
        dataclasses.replace(
            d,
            intervals=(),
            streams=tuple(dataclasses.replace(s, intervals=()) for s in d.streams),
        )
        for d in outcome.result.directions
    )
    return dataclasses.replace(
        outcome, result=dataclasses.replace(outcome.result, directions=directions)
    )


def test_a_run_loaded_without_intervals_lacks_only_them(db: str) -> None:
    outcomes = (dual_outcome(), udp_outcome_with_loss(), failed_outcome())
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        for outcome in outcomes:
            store.add_outcome(run_id, outcome)
        store.finish_run(run_id, RunStatus.COMPLETE, finished_at=1607546010.0)

    with Store.open(db) as store:
        full = store.load_run(run_id)
        bare = store.load_run(run_id, intervals=False)
    # The samples have intervals in sums and streams, or the comparison would prove little.
    assert any(d.intervals for o in outcomes if o.result for d in o.result.directions)
    assert any(
        s.intervals for o in outcomes if o.result for d in o.result.directions for s in d.streams
    )
    assert bare.outcomes == tuple(_without_intervals(o) for o in full.outcomes)
    assert bare.outcomes != full.outcomes
    assert dataclasses.replace(bare, outcomes=full.outcomes) == full


def test_device_samples_and_findings_come_back_with_their_trial(db: str) -> None:
    import dataclasses

    from wirespeed.model import Finding, FindingKind, Flow, MonitorRecord

    fixtures = Path(__file__).parents[2] / "fixtures"
    raw = (fixtures / "proc" / "r4s-interrupts-before.txt").read_text()
    monitored = dataclasses.replace(
        dual_outcome(),
        monitors=(
            MonitorRecord(
                host="wirespeed-bridge-dut",
                role="dut",
                interval=0.1,
                raw=raw,
                summary='{"version": 1}',
                partial=True,
                reason="the host went away",
            ),
        ),
        findings=(
            Finding(FindingKind.LINE_RATE, "941.2 Mbit/s is 100.0% of the ceiling", Flow.UP),
            Finding(FindingKind.CPU_BOUND, "cpu0 99 % busy, 93 % softirq"),
        ),
    )
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, monitored)
    with Store.open(db) as store:
        assert store.load_run(run_id).outcomes == (monitored,)


def test_a_run_loaded_without_outputs_lacks_only_them(db: str) -> None:
    from wirespeed.model import MonitorRecord

    stream = (Path(__file__).parents[1] / "sampling" / "stream-v1-x86-vm-2cpu.txt").read_text()
    monitor = MonitorRecord("r4s", "dut", 0.5, stream, '{"version": 1}')
    watched = dataclasses.replace(
        dual_outcome(),
        raw=tuple(dataclasses.replace(r, stderr="(stderr)") for r in dual_outcome().raw),
        monitors=(monitor,),
    )
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, watched)
        store.add_outcome(run_id, failed_outcome())
    with Store.open(db) as store:
        full = store.load_run(run_id)
        bare = store.load_run(run_id, outputs=False)
    assert full.outcomes[0] == watched
    expected = dataclasses.replace(
        watched,
        raw=tuple(dataclasses.replace(r, text="", stderr="") for r in watched.raw),
        monitors=(dataclasses.replace(monitor, raw=""),),
    )
    assert bare.outcomes[0] == expected
    assert bare.outcomes[1].raw == tuple(
        dataclasses.replace(r, text="", stderr="") for r in full.outcomes[1].raw
    )
    assert dataclasses.replace(bare, outcomes=full.outcomes) == full


def test_counters_beyond_32_bits_are_kept(db: str) -> None:
    big = udp_outcome_with_loss()
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


def test_runs_are_listed_with_their_trials_and_paths(db: str) -> None:
    with Store.open(db) as store:
        first = store.begin_run(INFO)
        store.add_outcome(first, dual_outcome(WAN))
        store.add_outcome(first, failed_outcome())
        store.finish_run(first, "complete")
        second = store.begin_run(RunInfo(title="R2S", started_at=1607600000.0))
        runs = store.list_runs()
    assert [r.id for r in runs] == [first, second]
    assert (runs[0].trials_ok, runs[0].trials_failed) == (1, 1)
    assert runs[0].paths == ("WAN", "Br0")
    assert runs[0].status is RunStatus.COMPLETE
    assert runs[1].status is RunStatus.RUNNING
    assert (runs[1].trials_ok, runs[1].paths) == (0, ())


def test_load_run_without_an_id_loads_the_latest(db: str) -> None:
    with Store.open(db) as store:
        store.begin_run(INFO)
        latest = store.begin_run(RunInfo(title="R2S", started_at=1607600000.0))
        assert store.load_run().id == latest
        assert store.load_run().info.title == "R2S"


def test_an_unknown_run_is_a_usage_error_with_a_hint(db: str) -> None:
    with Store.open(db) as store:
        store.begin_run(INFO)
        with pytest.raises(UsageError, match=r"no run 42; `wirespeed runs` lists them"):
            store.load_run(42)
        with pytest.raises(UsageError, match="no run 42"):
            store.add_outcome(42, failed_outcome())


def test_an_empty_store_has_no_latest_run(db: str) -> None:
    with Store.open(db) as store, pytest.raises(UsageError, match="no runs"):
        store.load_run()


def test_a_run_killed_half_way_keeps_every_committed_trial(db: str) -> None:
    # The runner commits each trial and then dies without finish_run or close.
    writer = Store.open(db)
    run_id = writer.begin_run(INFO)
    writer.add_outcome(run_id, dual_outcome(WAN, repetition=1))
    writer.add_outcome(run_id, dual_outcome(WAN, repetition=2))

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


@pytest.mark.process
def test_a_writer_killed_with_sigkill_loses_nothing_it_committed(db: str) -> None:
    process = subprocess.run([sys.executable, "-c", KILLED_WRITER, str(db)], check=False)
    assert process.returncode == -signal.SIGKILL
    with Store.open(db) as store:
        (run,) = store.list_runs()
        assert (run.title, run.status, run.trials_failed) == ("killed", RunStatus.RUNNING, 2)


def test_sqlite_runs_in_wal_mode_with_foreign_keys(sqlite_db: Path) -> None:
    with Store.open(sqlite_db) as store:
        store.begin_run(INFO)
    connection = sqlite3.connect(sqlite_db)
    try:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        version = connection.execute("SELECT value FROM meta WHERE key = 'schema_version'")
        assert version.fetchone()[0] == str(SCHEMA_VERSION)
    finally:
        connection.close()


def test_a_database_from_another_schema_version_is_refused(db: str) -> None:
    Store.open(db).close()
    engine = engine_for(db)
    with engine.begin() as conn:
        conn.execute(update(meta).where(meta.c.key == "schema_version").values(value="99"))
    engine.dispose()
    with pytest.raises(UsageError, match="schema version 99"):
        Store.open(db)


def test_a_run_without_a_title_is_stored(db: str) -> None:
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


def test_finish_run_refuses_an_unknown_status(db: str) -> None:
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        with pytest.raises(ValueError, match="done"):
            store.finish_run(run_id, "done")


# Texts, names and times that one backend keeps and another might not.

ODD_TEXTS = (
    "\x00",  # PostgreSQL refuses NUL in text
    "before\x00after",
    "\ufdd0marker-looking start",
    "\ufdd0\x00",
    "",
    "tab\tnewline\nquote' double\" backslash\\ percent% ü 漢 🚀",
    "x" * 100_000,
)


def test_texts_names_and_times_come_back_exactly(db: str) -> None:
    long_name = "n" * 300  # longer than any VARCHAR the schema might have had
    odd = TrialOutcome(
        trial=Trial(
            test=DUAL_TCP.__class__(
                id=long_name, name="\x00" + long_name, tool=DUAL_TCP.tool, spec=DUAL_TCP.spec
            ),
            path=WAN.__class__(
                name=long_name, topology=WAN.topology, client="a\x00", server="b" * 300
            ),
            variant="v" * 300,
            repetition=2**31 - 1,
        ),
        status=TrialStatus.FAILED,
        started_at=1700000000.1234567,  # every bit of a double, not microseconds
        finished_at=1700000000.1234569,
        reason="\x00".join(ODD_TEXTS[:4]),
        raw=tuple(
            RawOutput(
                host=text or "h",
                side=Side.SERVER,
                argv=("iperf", text),
                format="text",
                text=text,
                stderr=text[::-1],
                exit_status=-9,
            )
            for text in ODD_TEXTS
        ),
    )
    info = RunInfo(
        title="\x00title",
        started_at=0.1 + 0.2,
        plan_text="\ufdd0",
        wirespeed_version="0.1.0.dev123+g0123456789abcdef.d20250101-with-a-long-local-part",
        provenance={"hosts": {"\x00": {"kernel": "\x00", "n": 2**63 - 1, "f": 1e-300}}},
    )
    with Store.open(db) as store:
        run_id = store.begin_run(info)
        store.add_outcome(run_id, odd)
        store.add_outcome(run_id, udp_outcome_with_loss())
    with Store.open(db) as store:
        record = store.load_run(run_id)
    assert record.info == info
    assert record.outcomes == (odd, udp_outcome_with_loss())


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=st.text(), number=st.floats(allow_nan=False, allow_infinity=False))
def test_any_text_and_time_round_trips(db: str, text: str, number: float) -> None:
    outcome = TrialOutcome(
        trial=Trial(test=DUAL_TCP, path=BR0, variant=text or "v"),
        status=TrialStatus.FAILED,
        started_at=number,
        finished_at=number,
        reason="why: " + text,
    )
    with Store.open(db) as store:
        run_id = store.begin_run(RunInfo(title=text, started_at=number))
        store.add_outcome(run_id, outcome)
        record = store.load_run(run_id)
    assert record.info.title == text
    assert record.outcomes == (outcome,)


def test_a_postgresql_store_uses_bigint_ids_and_keeps_the_url(db: str) -> None:
    if "://" not in db:
        pytest.skip("PostgreSQL only: SQLite's auto-incrementing ids are INTEGER PRIMARY KEY")
    with Store.open(db) as store:
        assert store.url == db  # no password in the test URL: shown as given
    engine = engine_for(db)
    try:
        columns = {c["name"]: c for c in inspect(engine).get_columns("results")}
    finally:
        engine.dispose()
    assert "BIGINT" in str(columns["id"]["type"])
    assert "BIGINT" in str(columns["trial_id"]["type"])
    assert "DOUBLE" in str(columns["sent_bps"]["type"])
    assert "BYTEA" in str(columns["intervals"]["type"])


def test_index_and_table_names_fit_postgresql() -> None:
    from wirespeed.store.columns import metadata

    names = [t.name for t in metadata.tables.values()]
    names += [i.name for t in metadata.tables.values() for i in t.indexes if i.name]
    assert names
    assert all(len(name) <= 63 for name in names)  # NAMEDATALEN - 1


# Passwords and drivers.


def test_a_password_is_masked_in_the_error_for_a_server_that_is_down() -> None:
    # Port 1 on loopback: nothing listens there, the connection is refused at once.
    url = "postgresql://lab:s3cret-pw@127.0.0.1:1/wirespeed"
    with pytest.raises(UsageError) as caught:
        Store.open(url)
    error = caught.value
    assert error.message == (
        "cannot open the store postgresql://lab:***@127.0.0.1:1/wirespeed: "
        "connection refused; is the server running?"
    )
    assert "s3cret" not in f"{error} {error.hint}"
    assert caught.value.__cause__ is None  # no driver traceback chained on


def test_a_password_in_argv_is_stored_masked(db: str) -> None:
    argv = (
        "wirespeed",
        "run",
        "--db",
        "postgresql://lab:s3cret@db.example:5432/w",
        "--db=postgresql+psycopg://x:y%40z@h/w",
        "plan.yaml",
    )
    with Store.open(db) as store:
        run_id = store.begin_run(RunInfo(title=None, started_at=1.0, argv=argv))
        stored = store.load_run(run_id).info.argv
    assert stored == (
        "wirespeed",
        "run",
        "--db",
        "postgresql://lab:***@db.example:5432/w",
        "--db=postgresql+psycopg://x:***@h/w",
        "plan.yaml",
    )


def test_no_postgresql_driver_is_a_usage_error_not_a_traceback(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wirespeed.store import backends

    monkeypatch.setattr(backends, "POSTGRES_DRIVERS", ("no_such_driver_module",))
    with pytest.raises(UsageError, match=r"no PostgreSQL driver is installed") as caught:
        Store.open("postgresql://lab:s3cret@127.0.0.1/w")
    assert "s3cret" not in caught.value.message
    assert caught.value.hint is not None
    assert "'wirespeed[postgres]'" in caught.value.hint  # the extra that brings psycopg


def test_a_url_that_is_not_one_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="not a database URL"):
        Store.open("postgresql://lab:s3cret@host:port/w")
