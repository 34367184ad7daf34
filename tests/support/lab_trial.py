"""One plan of one trial run by the real `wirespeed run` in a lab of its own: its
outcome and what the run said. The run removes its lab; a test stopped mid-run
removes it here."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from wirespeed.model import TrialOutcome
from wirespeed.store import Store

WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]


def run_one_trial(
    tmp_path: Path, plan: str, label: str, topology: str, *extra: str, kind: str
) -> tuple[TrialOutcome, str]:
    """Run `plan` in a lab named KIND-LABEL-PID-TOPOLOGY."""
    plan_file = tmp_path / f"{label}.yaml"
    plan_file.write_text(textwrap.dedent(plan))
    db = tmp_path / f"{label}.db"
    prefix = f"{kind}-{label}-{os.getpid()}"
    try:
        done = subprocess.run(
            [*WIRESPEED, "run", str(plan_file), "--db", str(db), "--lab-name", prefix, *extra],
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    finally:
        subprocess.run(
            [*WIRESPEED, "lab", "down", f"{prefix}-{topology}"], capture_output=True, check=False
        )
    assert done.returncode == 0, done.stderr
    with Store.open(str(db)) as store:
        (outcome,) = store.load_run(None, intervals=False).outcomes
    return outcome, done.stdout + done.stderr
