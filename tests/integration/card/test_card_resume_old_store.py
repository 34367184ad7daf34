"""A card stopped with Ctrl-C by the version before runs kept their settings
(tests/fixtures/stores-v6/card-interrupted.db), finished by this version's
`wirespeed run --resume 1`: shown as a card, every trial in the same run, no lab left."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.root, pytest.mark.slow]

WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]
OLD_STORES = Path(__file__).parents[2] / "fixtures" / "stores-v6"


def test_a_card_stored_by_the_version_before_is_finished_by_resume(tmp_path: Path) -> None:
    prefix = f"ocres{os.getpid()}"
    db = tmp_path / "runs.db"
    shutil.copy(OLD_STORES / "card-interrupted.db", db)
    resumed = subprocess.run(
        [*WIRESPEED, "run", "--resume", "1", "--db", str(db), "--lab-name", prefix,
         "--markdown", str(tmp_path / "card.md")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert "1 of 5 trials are stored, 4 to go" in resumed.stderr
    assert resumed.stdout.startswith("Device card: lab nat, fe")  # shown as a card
    # --markdown: the card it is, as `wirespeed card -o card.md` writes it.
    assert (tmp_path / "card.md").read_text().startswith("# Device card: lab nat, fe")
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    assert prefix not in listed.stdout
    with sqlite3.connect(db) as conn:
        assert conn.execute("select count(*), min(status) from runs").fetchone() == (1, "complete")
        assert conn.execute("select count(*) from trials where status = 'ok'").fetchone() == (5,)
