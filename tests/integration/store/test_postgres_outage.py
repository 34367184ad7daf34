"""A PostgreSQL store that stops answering: every call ends within its bound, a commit
outlives a short outage, and a trial the store could not take is kept in the spool and
committed by the next `run --resume`. On a server of the test's own (own_postgres.py):
stopped, frozen with SIGSTOP and started again."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from own_postgres import OwnPostgres, own_postgres
from sqlalchemy import create_engine, make_url, text

from wirespeed.model import TrialOutcome, TrialStatus
from wirespeed.store import RunInfo, Store, StoreUnavailableError
from wirespeed.store.postgres import Timeouts

pytestmark = [pytest.mark.root, pytest.mark.slow]

WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]

PLAN = """
title: outage
hosts:
  me: {address: 127.0.0.1}
paths:
  - {name: lo, topology: endpoint, client: me, server: me, dut: me}
defaults: {duration: 2}
tests:
  - {id: "1", name: first, tool: iperf3}
  - {id: "2", name: second, tool: iperf3, duration: 5}
  - {id: "3", name: third, tool: iperf3, duration: 5}
"""


@pytest.fixture(scope="module")
def server() -> Iterator[OwnPostgres]:
    with own_postgres() as started:
        yield started


def _outcome(key_id: str, at: float) -> TrialOutcome:
    from wirespeed.model import PathSpec, TestCase, TestSpec, Tool, Topology, Trial

    test = TestCase(id=key_id, name=f"test {key_id}", tool=Tool.IPERF3, spec=TestSpec())
    path = PathSpec(name="lo", topology=Topology.ENDPOINT, client="me", server="me")
    return TrialOutcome(
        trial=Trial(test=test, path=path),
        status=TrialStatus.FAILED,
        started_at=at,
        finished_at=at + 1,
        reason="a stand-in outcome: what is measured does not matter here",
    )


def _info() -> RunInfo:
    return RunInfo(title="outage", started_at=time.time())


def test_a_frozen_server_fails_a_commit_within_its_bound(server: OwnPostgres) -> None:
    timeouts = Timeouts(call_s=2, retry_s=3)
    with Store(server.url, timeouts) as store:
        run_id = store.begin_run(_info())
        with server.frozen():
            started = time.monotonic()
            with pytest.raises(StoreUnavailableError, match="still failing after 3 s"):
                store.add_outcome(run_id, _outcome("1", time.time()))
            took = time.monotonic() - started
        # The call, the retries, and a last connection attempt (connect_timeout 2 s).
        assert took < 2 + 3 + 2 + 4, f"a frozen server held a commit {took:.1f} s"
        # Thawed: the store answers again, and the commit that was cut is not there.
        assert store.load_run(run_id).outcomes == ()


def test_a_commit_outlives_a_server_frozen_for_a_few_seconds(server: OwnPostgres) -> None:
    with Store(server.url, Timeouts(call_s=2, retry_s=30)) as store:
        run_id = store.begin_run(_info())
        outcome = _outcome("1", time.time())
        with server.frozen():
            thaw = threading.Timer(4, lambda: None)
            thaw.start()
            committing = threading.Thread(target=store.add_outcome, args=(run_id, outcome))
            committing.start()
            thaw.join()
        committing.join(timeout=60)
        assert not committing.is_alive()
        assert store.load_run(run_id).outcomes == (outcome,)


def test_a_commit_outlives_a_server_restarted(server: OwnPostgres) -> None:
    with Store(server.url, Timeouts(call_s=5, retry_s=60)) as store:
        run_id = store.begin_run(_info())
        server.stop()
        restart = threading.Timer(3, server.start)
        restart.start()
        try:
            outcome = _outcome("2", time.time())
            store.add_outcome(run_id, outcome)  # refused, refused, ... then taken
        finally:
            restart.join()
        assert store.load_run(run_id).outcomes == (outcome,)


def test_a_trial_the_store_could_not_take_is_committed_by_the_next_resume(
    server: OwnPostgres, tmp_path: Path
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN)
    env = {
        **os.environ,
        "XDG_DATA_HOME": str(tmp_path / "data"),  # the spool's directory
        "WIRESPEED_STORE_TIMEOUT": "2",
        "WIRESPEED_STORE_RETRY": "3",
    }
    # A database of its own: the run is run 1 there.
    admin = create_engine(
        make_url(server.url).set(drivername="postgresql+psycopg"), isolation_level="AUTOCOMMIT"
    )
    with admin.connect() as conn:
        conn.execute(text("CREATE DATABASE spooled"))
    admin.dispose()
    db = make_url(server.url).set(database="spooled").render_as_string(hide_password=False)

    running = subprocess.Popen(
        [*WIRESPEED, "run", str(plan), "--db", db, "-q"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        with Store(db) as store:
            deadline = time.monotonic() + 90
            while time.monotonic() < deadline and not _trials(store):
                time.sleep(0.2)
            # The later trials are longer, so a busy machine still freezes the store
            # while the run is measuring one of them.
            assert 1 <= _trials(store) < 3, "the run committed no trial in 90 s"
        with server.frozen():
            started = time.monotonic()
            try:
                _, stderr = running.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                pytest.fail("the run hung on a frozen store for 60 s")
            took = time.monotonic() - started
    finally:
        if running.poll() is None:
            running.terminate()  # as Ctrl-C: the run stops its iperf server and lab
            try:
                running.wait(timeout=30)
            except subprocess.TimeoutExpired:
                running.kill()
                running.wait()
    assert running.returncode == 1, stderr
    assert "(measured, kept in " in stderr and "wirespeed run --resume 1" in stderr, stderr
    assert "Traceback" not in stderr
    print(f"the run stopped {took:.1f} s after the store froze:\n{stderr}")
    kept = list((tmp_path / "data" / "wirespeed" / "spool").glob("*-run1.db"))
    assert len(kept) == 1

    resumed = subprocess.run(
        [*WIRESPEED, "run", "--resume", "1", "--db", db],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert resumed.returncode == 0, resumed.stderr
    assert "committed 1 trial of run 1 kept in" in resumed.stderr
    with Store(db) as store:
        record = store.load_run(1)
    keys = [o.trial.key for o in record.outcomes]
    assert len(keys) == 3 and len(set(keys)) == 3, keys
    assert record.status.value == "complete"
    assert not kept[0].exists()


def _trials(store: Store) -> int:
    runs = store.list_runs()
    return 0 if not runs else runs[0].trials_ok + runs[0].trials_failed
