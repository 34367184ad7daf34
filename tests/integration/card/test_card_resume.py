"""A lab card stopped with Ctrl-C (SIGINT) in its second trial, then finished by
`wirespeed run --resume N` as its Ctrl-C message says: the interrupted card says so at
its top and in the part it did not reach; the resumed one has every part, in the same
run, and no lab is left. Short trials (1 s) of the throughput and latency parts."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.root, pytest.mark.slow]

WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]


def _committed(db: Path) -> int:
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return int(conn.execute("select count(*) from trials").fetchone()[0])
    except sqlite3.OperationalError:  # no store, or no tables yet
        return 0


def _labs(prefix: str) -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    return [line.split()[0] for line in listed.stdout.splitlines() if prefix in line]


def test_a_card_interrupted_by_sigint_says_so_and_is_finished_by_resume(tmp_path: Path) -> None:
    prefix = f"cres{os.getpid()}"
    db = tmp_path / "runs.db"
    card = subprocess.Popen(
        [*WIRESPEED, "card", "lab:nat:fe", "--duration", "1", "--skip",
         "forwarding,vpn,compute", "--db", str(db), "--lab-name", prefix],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while _committed(db) < 1 and time.monotonic() < deadline and card.poll() is None:
            time.sleep(0.05)
        assert _committed(db) >= 1, "the card committed no trial in 120 s"
        card.send_signal(signal.SIGINT)  # Ctrl-C, in its second trial
        _, err = card.communicate(timeout=120)
    finally:
        if card.poll() is None:
            card.kill()
    assert card.returncode == 130, err
    assert "hint: run 1 stored; continue with `wirespeed run --resume 1`" in err
    assert _labs(prefix) == []
    stored = _committed(db)
    assert 1 <= stored < 5  # 4 throughput trials and RRUL

    shown = subprocess.run(
        [*WIRESPEED, "report", "1", "--db", str(db), "--format", "json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert shown.returncode == 0, shown.stderr
    interrupted = json.loads(shown.stdout)["card"]
    said = f"interrupted after {stored} of 5 trials: `wirespeed run --resume 1` measures the rest"
    assert interrupted["unfinished"] == said
    parts = {part["key"]: part for part in interrupted["parts"]}
    assert parts["latency"]["unfinished"].startswith("not measured: the card was interrupted")
    assert parts["latency"]["figures"] == []

    resumed = subprocess.run(
        [*WIRESPEED, "run", "--resume", "1", "--db", str(db), "--lab-name", prefix],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert "Traceback" not in resumed.stderr
    assert f"{stored} of 5 trials are stored, {5 - stored} to go" in resumed.stderr
    assert resumed.stdout.startswith("Device card: lab nat, fe")  # shown as a card
    assert "interrupted after" not in resumed.stdout
    assert _labs(prefix) == []
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*), min(status) from runs").fetchone() == (1, "complete")
    shown = subprocess.run(
        [*WIRESPEED, "report", "1", "--db", str(db), "--format", "json"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    whole = json.loads(shown.stdout)["card"]
    assert whole["unfinished"] is None
    parts = {part["key"]: part for part in whole["parts"]}
    for key in ("throughput", "latency"):
        assert parts[key]["unfinished"] is None and parts[key]["figures"], key
    increase = {f["label"]: f["value"] for f in parts["latency"]["figures"]}
    assert "latency increase (round trip)" in increase
