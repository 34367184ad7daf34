"""A plan's `expect:` as a regression gate: met exits 0, below exits 5 with table and JSON
saying so. On a 100 Mbit/s link (TCP ceiling 94.1), which a busy machine still reaches."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from lab_runs import namespaces_of, unique_prefix

from support.cli import run_cli
from wirespeed.cli.exit import ExitStatus

pytestmark = [pytest.mark.root, pytest.mark.slow]

PLAN = """
title: expectations on fe
lab: {{link: fe}}
paths:
  - {{name: WAN, topology: endpoint}}
defaults: {{tool: iperf3, duration: 1}}
tests:
  - {{id: 1, name: TCP, expect: {{goodput: "{expected}"}}}}
"""


def _run(tmp_path: Path, expected: str) -> tuple[int, str, str, dict[str, Any]]:
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN.format(expected=expected))
    prefix = unique_prefix("h17-expect")
    db = tmp_path / "runs.db"
    status, out, err = run_cli("run", str(plan), "--db", str(db), "--lab-name", prefix)
    assert namespaces_of(prefix) == []
    _, json_out, _ = run_cli("report", "--db", str(db), "--format", "json")
    return status, out, err, json.loads(json_out)


def test_an_expectation_the_link_meets_exits_0(tmp_path: Path) -> None:
    status, out, err, document = _run(tmp_path, ">= 50M")
    assert status == ExitStatus.OK, err
    assert "\N{CHECK MARK} expectation met" in out
    assert document["expectations"]["verdict"] == "met"


def test_an_expectation_above_the_link_exits_with_below_expectation(tmp_path: Path) -> None:
    status, out, err, document = _run(tmp_path, ">= 200M")
    assert status == ExitStatus.BELOW_EXPECTATION, err
    assert status == 5  # documented: README, --help
    assert "\N{BALLOT X} expectation not met" in out
    assert "goodput >= 200.0 Mbit/s expected: not met" in out
    assert "1 of 1 expectations not met: goodput >= 200.0 Mbit/s on 1/WAN/default" in err
    (judged,) = document["table"][0]["cells"][0]["expectations"]
    assert judged["verdict"] == "not met"
    assert 10e6 < judged["measured"] < 200e6  # measured: a sanity bound only
    assert document["expectations"] == {
        "verdict": "not met",
        "met": 0,
        "not_met": 1,
        "not_measured": 0,
    }
