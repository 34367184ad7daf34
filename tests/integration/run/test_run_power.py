"""The board's power in a lab run: a meter command read before and during each trial,
its idle and load power and the energy per Mbit stored and shown in the JSON report."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lab_runs import namespaces_of, unique_prefix

from support.cli import run_cli

pytestmark = [pytest.mark.root, pytest.mark.slow]

METER = Path(__file__).resolve().parents[2] / "fixtures" / "meters" / "lab-meter.sh"


def _plan(meter: str) -> str:
    return f"""
title: lab power
lab: {{link: gbe}}
power: {{meter: "{meter}", interval: 0.5, idle: 2}}
paths:
  - {{name: Br0, topology: bridge}}
defaults: {{tool: iperf3, duration: 2}}
tests:
  - {{id: "1", name: TCP}}
"""


def test_a_meter_gives_idle_and_load_power_and_the_energy_of_each_megabit(
    tmp_path: Path,
) -> None:
    prefix = f"power-{unique_prefix('meter')}"
    plan = tmp_path / "plan.yaml"
    plan.write_text(_plan(f"sh {METER} {prefix}"))
    db = tmp_path / "runs.db"
    status, _, err = run_cli("run", str(plan), "--db", str(db), "--lab-name", prefix)
    assert status == 0, err
    assert namespaces_of(prefix) == []

    status, out, _ = run_cli("report", "--db", str(db), "--format", "json")
    assert status == 0
    (trial,) = json.loads(out)["trials"]
    measured = {m["name"]: m for m in trial["measurements"]}
    idle, load = measured["power idle"], measured["power load"]
    assert idle["unit"] == "W" and idle["better"] == "lower"
    assert idle["labels"] == {"source": "meter"}
    assert idle["value"] == pytest.approx(2.2)
    # the first reading of the load may still find the client starting
    assert 2.2 < load["value"] <= 5.0
    goodput = trial["flows"][0]["goodput_bps"]
    energy = measured["energy per Mbit"]
    assert energy["unit"] == "mJ/Mbit"
    assert energy["value"] == pytest.approx((load["value"] - 2.2) / (goodput / 1e6) * 1000)
    assert energy["value"] > 0
    (meter,) = [series for series in trial["power"] if series["source"] == "power meter"]
    assert meter["load_start"] == pytest.approx(2.0, abs=0.5)
    assert len(meter["t"]) == len(meter["power_w"]) >= 6
    assert max(meter["power_w"]) == pytest.approx(5.0)


def test_a_meter_that_prints_nothing_useful_is_a_warning_not_a_failure(tmp_path: Path) -> None:
    prefix = f"power-{unique_prefix('bad-meter')}"
    plan = tmp_path / "plan.yaml"
    plan.write_text(_plan("echo no reading here"))
    db = tmp_path / "runs.db"
    status, _, err = run_cli("run", str(plan), "--db", str(db), "--lab-name", prefix)
    assert status == 0, err
    assert namespaces_of(prefix) == []
    status, out, _ = run_cli("report", "--db", str(db), "--format", "json")
    (trial,) = json.loads(out)["trials"]
    assert trial["status"] == "ok"
    assert "measurements" not in trial
    messages = [w["message"] for w in trial["warnings"]]
    assert any("printed no reading" in m and "echo no reading here" in m for m in messages)
