"""`wirespeed tune ...` in-process, with the parser lines from the command's docstring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tune_helpers import BOARDS

from support.cli import run_cli
from wirespeed.store import Store


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
    store = tmp_path / "s.db"
    Store.open(store).close()
    status, out, _ = run_cli("tune", "restore", "--db", str(store))
    assert (status, out) == (0, "nothing to restore\n")


@pytest.mark.parametrize(
    "argv",
    [
        ("tune", "restore"),
        ("tune", "restore", "local"),
        ("tune", "restore", "local", "--forget"),
        ("tune", "restore", "local", "--keep"),
    ],
)
def test_restore_never_makes_a_store_at_a_mistyped_db(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    """A typo must not read as "nothing to restore" while ports sit in namespaces."""
    typo = tmp_path / "typo.db"
    status, out, err = run_cli(*argv, "--db", str(typo))
    assert status == 2, err
    assert f"no store at {typo}: the file does not exist" in err
    assert out == "" and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_restore_without_a_default_store_has_nothing_to_do_and_makes_none(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("WIRESPEED_DB", "SUDO_USER", "SUDO_UID", "SUDO_GID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    status, out, err = run_cli("tune", "restore", "local")
    assert (status, out) == (0, "nothing to restore\n"), err
    assert not (tmp_path / "data").exists()


def test_an_unknown_host_is_not_reachable(tmp_path: Path) -> None:
    status, _, err = run_cli("tune", "apply", "no-such-ns-xyz", "--db", str(tmp_path / "s.db"))
    assert status == 1
    assert "not reachable" in err
