"""Running wirespeed against the foreign bench as its user would: a plan naming the
bench's machines by their SSH aliases, `--ssh-config` the bench's file."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable
from pathlib import Path

from support.foreign_bench import PC_LAN, ROUTER_WAN, WORKSTATION, ForeignBench
from wirespeed.model import TrialOutcome
from wirespeed.store import Store

WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]
# The `foreign_bench` fixture (tests/integration/conftest.py): options to ForeignBench.build.
MakeBench = Callable[..., ForeignBench]

# The bench's machines as a plan names them: the laptop (the PC's LAN port), the
# workstation beyond the router's WAN, the router by the address it has there.
HOSTS = f"""\
hosts:
  laptop: {{address: {PC_LAN}, ssh: root@pc}}
  workstation: {{address: {WORKSTATION}, ssh: root@workstation}}
  router: {{address: {ROUTER_WAN}, ssh: root@router}}
"""


def run_plan(
    bench: ForeignBench, tmp_path: Path, plan: str, *extra: str, command: str = "run"
) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "plan.yaml"
    path.write_text(textwrap.dedent(plan), encoding="utf-8")
    argv = [*WIRESPEED, command, str(path)]
    if command == "run":
        argv += ["--ssh-config", str(bench.ssh_config), "--db", str(tmp_path / "runs.db")]
        argv += ["--json", *extra]
    return subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)


def outcomes(tmp_path: Path) -> tuple[TrialOutcome, ...]:
    with Store.open(str(tmp_path / "runs.db"), read_only=True) as store:
        return store.load_run(None).outcomes
