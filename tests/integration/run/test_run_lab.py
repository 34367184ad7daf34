"""The seed matrix through the emulated lab, as a user runs it: `wirespeed run`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lab_runs import namespaces_of, unique_prefix
from plans import LAB_BRIDGE

from support.cli import run_cli
from wirespeed.model import FindingKind
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

# What makes a lab's figure the machine's rather than the path's, as the run says it.
EXPLAINED = {
    FindingKind.LAB_LIMITED,
    FindingKind.BACKGROUND_LOAD,
    FindingKind.CPU_BOUND,
    FindingKind.STALLED,
}
# The least share of a limit a lab's figure may reach, even with a finding that explains
# why it fell short.
FLOOR = 0.7


def test_the_bridge_path_reaches_the_gigabit_ceiling_and_the_lab_is_gone_after(
    tmp_path: Path,
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(LAB_BRIDGE)
    prefix = unique_prefix("bridge")
    db, markdown = tmp_path / "runs.db", tmp_path / "report.md"
    argv = ["run", str(plan), "--db", str(db), "--lab-name", prefix, "--markdown", str(markdown)]
    status, _, err = run_cli(*argv)

    assert status == 0, err
    assert namespaces_of(prefix) == []
    table = markdown.read_text()
    assert "| Test | Br0 |" in table
    assert "941.5" in table  # TCP's ceiling at 1 Gbit/s, MTU 1500
    assert "957.0" in table  # UDP's, 1470-byte datagrams

    status, json_out, _ = run_cli("report", "--db", str(db), "--format", "json")
    assert status == 0
    document = json.loads(json_out)
    goodputs = {
        trial["test"]["id"]: trial["flows"][0]["goodput_bps"] for trial in document["trials"]
    }
    # Within 2 % of the physical limits (LIMITS.md), never above them; below only where
    # the run says why, and never below 70 % of the limit even then: a finding explains a
    # shortfall, it does not excuse any. CI once measured 687.6 Mbit/s (73 %) in this TCP
    # trial when it lasted 3 s, cause unknown: three cores' worth of `yes`, or a UDP flood
    # between two other namespaces, cost it nothing when tried; it lasts 5 s since, so
    # that a shared machine's pause of a fraction of a second costs it less. A figure the
    # lab could not carry must say so. UDP's explained share is lower: iperf2's sender at
    # 1000M loses a few % on the way at times (97.4 % measured on an almost idle
    # machine), which TCP resends.
    for test_id, ceiling, explained in (("1", 941.5e6, 0.98), ("5", 957.0e6, 0.95)):
        goodput = goodputs[test_id]
        assert FLOOR * ceiling <= goodput <= ceiling * 1.005, (test_id, goodput)
        if goodput < ceiling * explained:
            with Store.open(str(db), read_only=True) as store:
                (trial,) = [o for o in store.load_run(None).outcomes if o.trial.test.id == test_id]
            said = {f.kind for f in trial.findings}
            assert said & EXPLAINED, (test_id, goodput, trial.findings)
