"""`wirespeed tune apply|restore user@host`: a dropbear + busybox device tuned over SSH
from the CLI, journaled under the name given, and restored exactly."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tune_lab import IFACE, MakeLab, add_veth

from wirespeed.hosts.netns import NetnsHost
from wirespeed.lab import ssh_dut
from wirespeed.lab.lab import Lab
from wirespeed.tune import Journal, control_interface_of

pytestmark = pytest.mark.root

WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]
TARGET = "root@the-dut"


@pytest.fixture
def lab(make_lab: MakeLab) -> Lab:
    lab = make_lab("bridge", dut_access="ssh")
    add_veth(lab.dut_namespace)
    return lab


def _config(lab: Lab, tmp_path: Path) -> Path:
    """An ssh_config naming the device, as a user would write one."""
    device = lab.ssh_device
    assert device is not None
    config = tmp_path / "ssh_config"
    config.write_text(
        "Host the-dut\n"
        f"  HostName {device.address}\n"
        f"  Port {device.port}\n"
        f"  IdentityFile {device.client_key}\n"
        f"  UserKnownHostsFile {device.known_hosts}\n"
    )
    return config


def _in_mgmt(lab: Lab, argv: list[str]) -> subprocess.CompletedProcess[str]:
    """Run where a controller reaches the device: in the lab's management namespace."""
    device = lab.ssh_device
    assert device is not None
    return subprocess.run(
        ["ip", "netns", "exec", device.mgmt_namespace, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _tune(lab: Lab, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    argv = [*WIRESPEED, "tune", *args, "--ssh-config", str(_config(lab, tmp_path))]
    return _in_mgmt(lab, [*argv, "--db", str(tmp_path / "runs.db")])


# A wirespeed that tunes the device over SSH and exits without restoring, as `tune apply`
# does: RPS of both rx queues onto the last CPU, journaled under the name given.
APPLIER = """
import os, sys
from pathlib import Path
from wirespeed.hosts.ssh import SshHost
from wirespeed.hosts.ssh_connection import SshSettings
from wirespeed.hosts.ssh_target import SshTarget
from wirespeed.tune import Change, Journal, apply_changes, control_interface_of
from wirespeed.tune.model import mask_of

target, config, db, iface = sys.argv[1:]
host = SshHost(SshTarget.parse(target), SshSettings(config_path=Path(config)), name=target)
last = mask_of(((os.cpu_count() or 1) - 1,))
base = f"/sys/class/net/{iface}/queues"
changes = [Change(f"{base}/{q}", None, last, "test") for q in ("rx-0/rps_cpus", "rx-1/rps_cpus")]
with Journal.open(db) as journal:
    apply_changes(host, changes, journal, control_interface=control_interface_of(host))
host.close()
"""


def _rps(host: NetnsHost) -> list[str]:
    base = f"/sys/class/net/{IFACE}/queues"
    return [host.read_file(f"{base}/{queue}") for queue in ("rx-0/rps_cpus", "rx-1/rps_cpus")]


def test_tune_apply_over_ssh_reads_the_device_and_changes_nothing_without_a_nic(
    lab: Lab, tmp_path: Path
) -> None:
    # The lab's interfaces are all virtual: the plan is empty, and says why.
    applied = _tune(lab, tmp_path, "apply", TARGET)
    assert applied.returncode == 0, applied.stderr
    assert applied.stdout == f"{TARGET}: nothing to change\n"
    assert "no physical network interface" in applied.stderr


def test_a_device_tuned_over_ssh_is_restored_exactly_by_name(lab: Lab, tmp_path: Path) -> None:
    dut = NetnsHost(lab.dut_namespace)
    before = _rps(dut)
    config, db = str(_config(lab, tmp_path)), str(tmp_path / "runs.db")
    applier = _in_mgmt(lab, [sys.executable, "-c", APPLIER, TARGET, config, db, IFACE])
    assert applier.returncode == 0, applier.stderr
    assert _rps(dut) != before
    with Journal.open(tmp_path / "runs.db") as journal:
        rows = journal.open_entries(host=TARGET)
    assert [row.previous for row in rows] == before

    restored = _tune(lab, tmp_path, "restore", TARGET)
    assert restored.returncode == 0, restored.stderr
    assert f"{TARGET}: /sys/class/net/{IFACE}/queues/rx-0/rps_cpus restored" in restored.stdout
    assert _rps(dut) == before  # exactly as read, newline and padding included
    again = _tune(lab, tmp_path, "restore", TARGET)
    assert again.returncode == 0 and "nothing to restore" in again.stdout


def test_the_control_interface_of_a_device_over_ssh_is_the_one_its_session_uses(
    lab: Lab,
) -> None:
    route = subprocess.run(
        ["ip", "-n", lab.dut_namespace, "-o", "route", "get", ssh_dut.MGMT_ADDRESS],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    host = lab.ssh_host
    assert host is not None
    assert control_interface_of(host) == route[route.index("dev") + 1]
