"""A UDP test whose datagrams never reach the server: the client port's gateway is an
address nobody answers, so the datagrams die in the client's own ARP queue while iperf2
says it sent them all and exits 0. The trial fails, and no expectation is met by the
sender's rate. (That the ports come back as they were, test_port_hosts.py checks.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import run_cli
from support.port_bench import port_bench

pytestmark = [pytest.mark.root]

PLAN = """\
title: a gateway nobody answers
hosts:
  lan-side: {{port: {a}, address: 192.168.71.50/24, gateway: 192.168.71.9}}
  wan-side: {{port: {b}, address: 10.71.0.2/24, gateway: 10.71.0.1}}
paths:
  - {{name: routed, topology: router, client: lan-side, server: wan-side, link: gbe}}
tests:
  - {{id: udp, protocol: udp, rate: 500M, duration: 1, expect: {{goodput: ">= 400M"}}}}
"""


def test_a_sender_s_rate_that_never_arrived_fails_the_trial_and_its_expectation(
    tmp_path: Path,
) -> None:
    with port_bench() as bench:
        plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
        plan.write_text(PLAN.format(a=bench.port_a, b=bench.port_b))
        status, out, err = run_cli("run", str(plan), "--db", str(db), "-q")
    assert status != 0, (out, err)
    assert "expectations met" not in err
    _, report, _ = run_cli("report", "1", "--db", str(db), "--format", "json")
    (trial,) = json.loads(report)["trials"]
    assert trial["status"] == "failed", trial
    assert "the server reported nothing received of the up flow" in trial["reason"]
