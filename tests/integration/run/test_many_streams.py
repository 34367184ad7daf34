"""iperf2 -P 64 through the lab's shaped gigabit link, its server taking its connections
late: the flow is timed by the wire, never read above what the link carries.

iperf2's server takes connections one by one and starts each stream's clock then; on a
busy machine the 64 of -P 64 are taken over tens to hundreds of milliseconds while the
kernel already receives their bytes, and the server reads above the link (956 Mbit/s of
a 941.5 ceiling). Here the server is held (SIGSTOP) for 0.4 s as the client starts, which
makes it late every time: iperf2 itself then says about 974 Mbit/s. The trial times the
flow by the receiving interface's counters (run/wire_span.py) and says so.
"""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest
from lab_runs import unique_prefix

from wirespeed.hosts.base import Host, Process
from wirespeed.model import Flow, Proto, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.run import trial
from wirespeed.run.runner import Runner
from wirespeed.store import Store

pytestmark = [pytest.mark.root]

PLAN = """
title: many streams
lab: {link: gbe}
paths: [{name: Br0, topology: bridge}]
tests:
  - {id: "1", name: "TCP -P 64", tool: iperf2, parallel: 64, duration: 2}
"""
CEILING = 1e9 * 1448 / 1538  # TCP over 1 GbE, MTU 1500 (LIMITS.md)
HELD = 0.4


def test_a_server_that_takes_its_streams_late_is_timed_by_the_wire(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    listening = trial.wait_listening

    def then_held(host: Host, server: Process, port: int, protocol: Proto) -> None:
        listening(host, server, port, protocol)
        os.kill(server.pid, signal.SIGSTOP)  # the client starts next
        threading.Timer(HELD, os.kill, (server.pid, signal.SIGCONT)).start()

    monkeypatch.setattr(trial, "wait_listening", then_held)
    plan = parse_plan(PLAN)
    with Store.open(tmp_path / "runs.db") as store:
        runner = Runner(plan, store, lab_prefix=unique_prefix("streams"), watch=())
        run = runner.run(expand(plan))
        record = store.load_run(run.run_id)
    (outcome,) = record.outcomes
    assert outcome.status is TrialStatus.OK, outcome.reason
    assert outcome.result is not None
    direction = outcome.result.direction(Flow.UP)
    assert direction is not None and direction.goodput_bps is not None
    said = [w.message for w in outcome.result.warnings if "interface received" in w.message]
    assert direction.goodput_bps <= CEILING * 1.005, (direction.goodput_bps, said)
    assert said, outcome.result.warnings
    assert "its streams' clocks started after their first bytes arrived" in said[0]
