"""The trend against a truth: a lab DUT whose packet rate drops by a quarter between two
"firmware" labels, and a firmware in between that changes nothing (its runs drift within
their noise). The trend must name the drop at the right label, call the unchanged
firmware no change, and the gate must exit 5.

Full-size UDP datagrams offered well above the DUT's packet rate measure its forwarding
rate: the goodput is the limit's packets, whether the lab drops the excess at once or
queues it first (both forward at the limit). Not `forward_rate`: its byte bucket holds a
second of the rate when a test starts on an idle DUT (lab/limits.py), which gives the
first repetition of each run a second more than the others."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lab_runs import namespaces_of, unique_prefix

from support.cli import run_cli
from wirespeed.cli.exit import ExitStatus

pytestmark = [pytest.mark.root, pytest.mark.slow]

PLAN = """
title: firmware {firmware}
lab: {{link: gbe, dut: {{forward_pps: {pps}}}}}
paths:
  - {{name: R, topology: router}}
defaults: {{tool: iperf2, duration: 2}}
tests:
  - {{id: udp, name: UDP 150M, protocol: udp, rate: 150M}}
"""
# firmware -> the DUT's packet rate: 1.1 is 1.0 again, 2.0 forwards a quarter less.
# 150 Mbit/s of 1470-byte datagrams is 12,750 packets/s, above both.
FIRMWARE = {"1.0": 8000, "1.1": 8000, "2.0": 6000}
TRUTH = 0.75


def _goodput(document: dict[str, object]) -> dict[str, object]:
    series = document["series"]
    assert isinstance(series, list)
    (found,) = [s for s in series if s["name"] == "goodput"]
    return dict(found)


def test_the_drop_is_named_at_its_firmware_and_the_gate_fails(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    for firmware, pps in FIRMWARE.items():
        plan = tmp_path / f"{firmware}.yaml"
        plan.write_text(PLAN.format(firmware=firmware, pps=pps))
        prefix = unique_prefix("trend")
        status, _, err = run_cli(
            "run", str(plan), "--repeat", "3", "--label", f"firmware={firmware}",
            "--db", db, "--lab-name", prefix, "-q",
        )  # fmt: skip
        assert status == ExitStatus.OK, err
        assert namespaces_of(prefix) == []

    status, out, err = run_cli("trend", "--by", "firmware", "--format", "json", "--db", db)
    assert status == ExitStatus.OK, err
    goodput = _goodput(json.loads(out))
    groups = goodput["groups"]
    assert isinstance(groups, list)
    assert [g["name"] for g in groups] == list(FIRMWARE)
    steps = goodput["steps"]
    assert isinstance(steps, list)
    unchanged, dropped = steps
    assert (unchanged["after"], unchanged["verdict"]) == ("1.1", "no change"), unchanged
    assert (dropped["after"], dropped["verdict"]) == ("2.0", "regression"), json.dumps(goodput)
    assert dropped["ratio"] == pytest.approx(TRUTH, abs=0.06)
    assert dropped["interval"]["low"] <= dropped["ratio"] <= dropped["interval"]["high"]

    status, _, err = run_cli("trend", "--by", "firmware", "--fail-on", "regression", "--db", db)
    assert status == ExitStatus.BELOW_EXPECTATION
    assert "2.0 against 1.1" in err

    status, out, _ = run_cli(
        "trend", "--by", "firmware", "--baseline", "1.0", "--format", "json", "--db", db
    )
    against = _goodput(json.loads(out))["against_baseline"]
    assert isinstance(against, dict)
    assert (against["before"], against["after"], against["verdict"]) == (
        "1.0",
        "2.0",
        "regression",
    )
