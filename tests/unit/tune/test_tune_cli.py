"""`wirespeed tune ...` in-process, with the parser lines from the command's docstring."""

from __future__ import annotations

import json
from pathlib import Path

from tune_helpers import BOARDS

from support.cli import run_cli


def test_suggest_for_the_r4s_tree_prints_the_seed_plan() -> None:
    status, out, _ = run_cli("tune", "suggest", "--root", str(BOARDS / "r4s"))
    assert status == 0
    assert "IRQ 27 (eth0): 3f (cpus 0-5) → 10 (cpu 4)" in out
    assert "IRQ 234 (eth1): 3f (cpus 0-5) → 20 (cpu 5)" in out


def test_suggest_json() -> None:
    status, out, _ = run_cli("tune", "suggest", "--root", str(BOARDS / "r2s"), "--json")
    assert status == 0
    document = json.loads(out)
    assert {a["nic"]: a["irqs"] for a in document["assignments"]} == {
        "eth0": [29],
        "eth1": [167],
    }


def test_a_captured_tree_cannot_be_applied(tmp_path: Path) -> None:
    status, _, err = run_cli(
        "tune", "apply", "--root", str(BOARDS / "r4s"), "--db", str(tmp_path / "s.db")
    )
    assert status == 2
    assert "suggest and keep only" in err


def test_forget_needs_a_host(tmp_path: Path) -> None:
    status, _, err = run_cli("tune", "restore", "--forget", "--db", str(tmp_path / "s.db"))
    assert status == 2
    assert "--forget needs a HOST" in err


def test_restore_with_an_empty_journal_has_nothing_to_do(tmp_path: Path) -> None:
    status, out, _ = run_cli("tune", "restore", "--db", str(tmp_path / "s.db"))
    assert (status, out) == (0, "nothing to restore\n")


def test_an_unknown_host_is_not_reachable(tmp_path: Path) -> None:
    status, _, err = run_cli("tune", "apply", "no-such-ns-xyz", "--db", str(tmp_path / "s.db"))
    assert status == 1
    assert "not reachable" in err
