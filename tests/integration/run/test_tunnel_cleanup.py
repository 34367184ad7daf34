"""A tunnel leaves nothing behind: no daemon, device, socket or key, whether its run ends,
is stopped with Ctrl-C or SIGTERM mid-trial, or is killed with SIGKILL (then the next
run's start removes what it left). Its keys are private while they exist and are never
stored."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import time
from pathlib import Path

import pytest
from lab_runs import WIRESPEED, alive, namespaces_of, unique_prefix

from wirespeed.lab.naming import namespace_name
from wirespeed.lab.tunnel import TUNNEL_DIR, device_name
from wirespeed.model import Role, TunnelKind
from wirespeed.tools import wireguard

pytestmark = [pytest.mark.root, pytest.mark.slow]


def plan_for(kind: TunnelKind) -> str:
    # The first test runs long enough to be stopped inside; the second is quick.
    return (
        "lab: {link: fe}\n"
        f"paths: [{{name: VPN, topology: router, tunnel: {{kind: {kind.value}}}}}]\n"
        "tests:\n"
        "  - {id: long, duration: 30}\n"
        "  - {id: quick, duration: 1}\n"
    )


def devices(lab: str, kind: TunnelKind) -> list[str]:
    return [device_name(kind, namespace_name(lab, role)) for role in (Role.CLIENT, Role.DUT)]


def daemons(names: list[str]) -> list[int]:
    """Processes whose command line names one of these tunnel devices."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(name.encode() in words for name in names) and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def traces(lab: str, kind: TunnelKind) -> list[str]:
    """What of the tunnel is still there."""
    names = devices(lab, kind)
    left = [f"process {pid}" for pid in daemons(names)]
    if (Path(TUNNEL_DIR) / lab).exists():
        left.append(f"key directory {Path(TUNNEL_DIR) / lab}")
    left += [
        f"socket {wireguard.socket_path(n)}" for n in names if wireguard.socket_path(n).exists()
    ]
    left += [f"namespace {ns}" for ns in namespaces_of(lab.rsplit("-", 1)[0])]
    return left


def start(plan: Path, db: Path, prefix: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*WIRESPEED, "run", str(plan), "--db", str(db), "--lab-name", prefix],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for_tunnel(process: subprocess.Popen[str], lab: str, kind: TunnelKind) -> dict[str, bytes]:
    """Until both daemons run and the trial's traffic flows; the key files' contents."""
    directory = Path(TUNNEL_DIR) / lab
    deadline = time.monotonic() + 60
    while len(daemons(devices(lab, kind))) < 2 or not list(directory.glob("*.key")):
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the tunnel never came up"
        time.sleep(0.1)
    time.sleep(2.0)  # the tunnel proven, iperf running through it
    mode = stat.S_IMODE(directory.stat().st_mode)
    assert mode == 0o700, oct(mode)
    keys = {}
    for key in directory.glob("*.key"):
        assert stat.S_IMODE(key.stat().st_mode) == 0o600, key
        keys[key.name] = key.read_bytes()
    return keys


def assert_never_stored(keys: dict[str, bytes], db: Path) -> None:
    stored = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    for name, material in keys.items():
        # The WireGuard key is one base64 line; the PEM key's body lines are long enough.
        lines = [line for line in material.splitlines() if len(line) > 20 and b"-----" not in line]
        assert lines, name
        for line in lines:
            assert line not in stored, f"{name} found in the store"


# Each kind once, each signal once: the runner handles both signals alike (they end the
# trial, then its tunnel goes), and each kind's teardown is its own.
@pytest.mark.parametrize(
    ("kind", "sig", "exit_status"),
    [(TunnelKind.OPENVPN, signal.SIGINT, 130), (TunnelKind.WIREGUARD, signal.SIGTERM, 143)],
    ids=str,
)
def test_a_run_stopped_inside_a_tunnel_trial_removes_the_tunnel(
    tmp_path: Path, kind: TunnelKind, sig: signal.Signals, exit_status: int
) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(plan_for(kind))
    prefix = unique_prefix(f"tun-{sig.name.lower()}")
    lab = f"{prefix}-router"
    process = start(plan, db, prefix)
    try:
        keys = wait_for_tunnel(process, lab, kind)
        process.send_signal(sig)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == exit_status, stderr
    assert "Traceback" not in stderr
    assert traces(lab, kind) == []
    assert_never_stored(keys, db)


@pytest.mark.parametrize("kind", list(TunnelKind), ids=str)
def test_a_tunnel_left_by_a_killed_run_is_removed_by_the_next_run(
    tmp_path: Path, kind: TunnelKind
) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(plan_for(kind))
    prefix = unique_prefix("tun-kill")
    lab = f"{prefix}-router"
    process = start(plan, db, prefix)
    try:
        keys = wait_for_tunnel(process, lab, kind)
        os.kill(process.pid, signal.SIGKILL)  # no teardown at all
        process.wait()
        left = traces(lab, kind)
        assert any(t.startswith("process") for t in left), left  # as a crash leaves them
        assert f"key directory {Path(TUNNEL_DIR) / lab}" in left
        again = subprocess.run(
            [*WIRESPEED, "run", str(plan), "--db", str(db), "--lab-name", prefix,
             "--only", "quick"],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        subprocess.run([*WIRESPEED, "lab", "down", lab], capture_output=True, check=False)
    assert again.returncode == 0, again.stdout + again.stderr
    assert traces(lab, kind) == []
    assert_never_stored(keys, db)


def test_a_finished_run_leaves_no_tunnel(tmp_path: Path) -> None:
    plan, db = tmp_path / "plan.yaml", tmp_path / "runs.db"
    plan.write_text(plan_for(TunnelKind.WIREGUARD).replace("duration: 30", "duration: 1"))
    prefix = unique_prefix("tun-done")
    done = subprocess.run(
        [*WIRESPEED, "run", str(plan), "--db", str(db), "--lab-name", prefix],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert traces(f"{prefix}-router", TunnelKind.WIREGUARD) == []
