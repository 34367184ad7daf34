"""Mistakes a user makes, met by the real command: a message, a hint, an exit status."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from lab_runs import WIRESPEED
from plans import LAB_BRIDGE, LOOPBACK

EXAMPLES = Path(__file__).parents[3] / "examples"


def wirespeed(
    *argv: str, env: dict[str, str] | None = None, user: str | None = None
) -> tuple[int, str]:
    command = [*WIRESPEED, *argv]
    if user is not None:
        command = ["setpriv", "--reuid", user, "--regid", user, "--clear-groups", *command]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env, check=False)
    return done.returncode, done.stderr


def test_a_missing_iperf_names_the_package_to_install(tmp_path: Path) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(LOOPBACK)
    # A PATH with the system tools but neither iperf nor iperf3.
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("ip", "tc", "nft", "ethtool", "uname"):
        found = shutil.which(tool)
        if found:
            (bare / tool).symlink_to(found)
    env = {**os.environ, "PATH": str(bare)}
    status, stderr = wirespeed("run", str(plan), "--db", str(tmp_path / "db"), env=env)
    assert status == 3
    assert "iperf" in stderr and "is not installed" in stderr
    assert "apt-get install iperf" in stderr
    assert "Traceback" not in stderr


@pytest.mark.root
@pytest.mark.parametrize(
    "argv",
    [
        ("lab", "up", "--topology", "bridge", "--name", "never-built"),
        ("run", str(EXAMPLES / "seed-matrix.yaml"), "--db", "/tmp/wirespeed-not-root.db"),
    ],
)
def test_the_lab_without_root_says_to_run_as_root(argv: tuple[str, ...]) -> None:
    status, stderr = wirespeed(*argv, user="65534")  # nobody
    assert status == 4, stderr
    assert "needs root" in stderr
    assert "hint: run it as root" in stderr
    assert "Traceback" not in stderr


@pytest.mark.root
@pytest.mark.slow
def test_an_unreachable_server_fails_its_trial_quickly_with_a_reason(
    make_lab: object, tmp_path: Path
) -> None:
    from collections.abc import Callable

    from wirespeed.lab.lab import Lab
    from wirespeed.model import Role, TrialStatus
    from wirespeed.plan import expand, parse_plan
    from wirespeed.run.trial import Endpoints, run_trial

    assert callable(make_lab)
    build: Callable[..., Lab] = make_lab
    lab = build("bridge", "gbe")
    dut = lab.hosts[Role.DUT]
    # The DUT's LAN port goes down: the client's packets go nowhere.
    dut.run(["ip", "link", "set", "lan", "down"], timeout=5)
    plan = parse_plan(LAB_BRIDGE.replace("tool: iperf2", "tool: iperf3"))
    trial = expand(plan, duration=1, only=["1"])[0]
    outcome = run_trial(
        trial,
        Endpoints(lab.hosts[Role.CLIENT], lab.hosts[Role.SERVER], lab.server_address),
    )
    assert outcome.status is TrialStatus.FAILED
    assert outcome.reason is not None and "unable to connect" in outcome.reason
    assert outcome.finished_at - outcome.started_at < 10
