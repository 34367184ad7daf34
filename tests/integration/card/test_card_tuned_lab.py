"""`wirespeed card lab --tuned` as a user runs it, throughput only and 1 s a test: the
network part runs stock and again with what `tune suggest` proposes for the lab's DUT
(RPS and XPS of its veths), each figure is shown stock → tuned, and every change is
written back (the journal's rows are all restored) before the lab goes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest

from support.cli import run_cli

pytestmark = [pytest.mark.root]

TCP_CEILING = 94.1e6  # LIMITS.md: TCP at 100 Mbit/s, MTU 1500


def _namespaces_of(prefix: str) -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    names = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]
    return [n for n in names if n.startswith(f"wirespeed-{prefix}-")]


def test_a_tuned_card_shows_each_figure_stock_and_tuned_and_restores_the_dut(
    tmp_path: Path,
) -> None:
    prefix = f"tuned{os.getpid()}"
    db = tmp_path / "runs.db"
    argv = [
        "card", "lab:nat:fe", "--tuned", "--duration", "1",
        "--skip", "forwarding,latency,vpn,compute", "--db", str(db), "--lab-name", prefix,
        "--json",
    ]  # fmt: skip
    status, out, err = run_cli(*argv)

    assert status == 0, err
    assert _namespaces_of(prefix) == []
    # What was changed is said as `tune suggest` says it.
    assert f"tune suggest on wirespeed-{prefix}-nat-dut:" in err
    assert "RPS " in err or "XPS " in err
    card = json.loads(out)["card"]
    figures = next(p for p in card["parts"] if p["key"] == "throughput")["figures"]
    assert [f["label"] for f in figures][:2] == ["TCP up", "TCP down"]
    for figure in figures[:2]:
        tuned = figure["tuned"]
        assert tuned is not None, figure
        # Both states route at about the line rate: within 20 % below it on a busy
        # machine (the 1-second tests), never above it.
        for value in (figure["value"], tuned["value"]):
            assert 0.8 * TCP_CEILING < value <= 1.01 * TCP_CEILING, figure
        assert tuned["change"].endswith("%")  # one repetition a side: no mark
    assert card["tuned"][0].startswith("tuned: what tune suggest proposed")
    # Every knob the tuned variant wrote was written back.
    with sqlite3.connect(db) as conn:
        states = [row[0] for row in conn.execute("SELECT state FROM tune_journal")]
    assert states and set(states) == {"restored"}
