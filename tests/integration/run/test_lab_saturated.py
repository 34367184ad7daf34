"""A lab trial on a machine saturated by other work: the lab's limit, not the device's.

The emulated device, the endpoints and everything else on this machine share its cores.
One `yes` per core of this machine is started here, and stopped in a finally, so every
core is busy whatever else runs; the trial's finding names them, and nothing advises
tuning the emulated device. The link is unshaped: it has no line rate to reach (on
gigabit this machine still reaches line rate beside the `yes`, measured 938 Mbit/s with
four, and a trial at line rate was limited by nothing), so the trial's rate is whatever
the saturated cores let through.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from lab_runs import unique_prefix

from support.run_report import render_markdown
from wirespeed.model import FindingKind, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.report import build_report, render_json
from wirespeed.run.runner import Runner
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

PLAN = """
title: saturated
lab: {link: unshaped}
paths: [{name: Br0, topology: bridge}]
tests:
  - {id: "1", name: "TCP", tool: iperf3, duration: 3}
"""
HOGS = os.cpu_count() or 1  # one per core: every core busy for certain


def test_a_lab_trial_on_a_saturated_machine_is_lab_limited_and_names_the_hogs(
    tmp_path: Path,
) -> None:
    plan = parse_plan(PLAN)
    hogs: list[subprocess.Popen[bytes]] = []
    try:
        for _ in range(HOGS):
            hogs.append(subprocess.Popen(["yes"], stdout=subprocess.DEVNULL))
        with Store.open(tmp_path / "runs.db") as store:
            runner = Runner(plan, store, lab_prefix=unique_prefix("saturated"))
            run = runner.run(expand(plan))
            record = store.load_run(run.run_id)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    (outcome,) = record.outcomes
    assert outcome.status is TrialStatus.OK, outcome.reason
    kinds = {f.kind for f in outcome.findings}
    messages = [f.message for f in outcome.findings]
    assert FindingKind.LINE_RATE not in kinds, messages  # an unshaped link has no line rate
    (limited,) = [f for f in outcome.findings if f.kind is FindingKind.LAB_LIMITED]
    assert "saturated" in limited.message and "the lab's limit" in limited.message
    assert any(f"yes (pid {hog.pid})" in limited.message for hog in hogs), messages
    assert FindingKind.CPU_BOUND not in kinds, messages
    report = build_report(record)
    for text in (render_markdown(report), render_json(report)):
        assert "lab-limited" in text
        assert "tune suggest" not in text and "spread the NIC" not in text, text
