"""`wirespeed tune keep --install user@host`: a stored run's variant installed as a boot
script on a dropbear + busybox device, run there, and uninstalled to nothing."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from test_tune_over_ssh import TARGET, _tune
from tune_lab import IFACE, MakeLab, add_veth, knobs, offloads

from wirespeed.hosts.netns import NetnsHost
from wirespeed.lab.lab import Lab
from wirespeed.plan.plan import Variant
from wirespeed.run.link_variants import changes_for
from wirespeed.store import RunInfo, Store
from wirespeed.tune import Change, Journal, apply_changes, restore_session
from wirespeed.tune.model import mask_of

pytestmark = pytest.mark.root


@pytest.fixture
def lab(make_lab: MakeLab) -> Lab:
    lab = make_lab("bridge", dut_access="ssh")
    add_veth(lab.dut_namespace)
    return lab


def _state(dut: NetnsHost) -> dict[str, str]:
    """What the variant touches, exactly as the kernel shows it (both tx queues too)."""
    found = knobs(dut)
    found["tx-1"] = dut.read_file(f"/sys/class/net/{IFACE}/queues/tx-1/xps_cpus")
    return found


def _listing(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))


def test_the_installed_boot_script_sets_what_tune_apply_sets_and_uninstalls_to_nothing(
    lab: Lab, tmp_path: Path
) -> None:
    # The plan of the device itself, read over SSH: its interfaces are all virtual.
    planned = _tune(lab, tmp_path, "keep", TARGET)
    assert planned.returncode == 2
    assert f"nothing to keep for {TARGET}: the plan sets no knob" in planned.stderr

    dut = NetnsHost(lab.dut_namespace)
    device = lab.ssh_host
    assert device is not None
    before = _state(dut)
    last = mask_of(((os.cpu_count() or 1) - 1,))
    gro = "off" if offloads(dut)["generic-receive-offload"][0] == "on" else "on"
    features = (("generic-receive-offload", gro), ("tcp-segmentation-offload", "off"))
    variant = Variant("kept", mtu=9000, rps=last, xps=last, offloads=features)

    # `tune apply`'s way over the same SSH session: journaled, read back, then restored.
    mtu = Change(f"/sys/class/net/{IFACE}/mtu", None, "9000", "variant kept")
    with Journal.open(tmp_path / "apply.db") as journal:
        session = apply_changes(device, [mtu, *changes_for(variant, device, [IFACE])], journal)
        applied = _state(dut)
        restore_session(device, journal, session)
    assert applied != before and _state(dut) == before

    db = tmp_path / "runs.db"
    with Store.open(db) as store:
        run = store.begin_run(
            RunInfo(
                title="kept",
                started_at=time.time(),
                provenance={"variants": {"kept": variant.state()}},
            )
        )
    image = tmp_path / "image"  # the device's / is this machine's: install under a root
    image.mkdir()
    installed = _tune(
        lab, tmp_path, "keep", "--run", str(run), "--variant", "kept", "--interface", IFACE,
        "--install", TARGET, "--install-root", str(image), "--system", "openwrt",
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    assert (
        f"$ ln -s ../init.d/wirespeed-tune {image}/etc/rc.d/S95wirespeed-tune" in installed.stdout
    )
    assert "enabled at boot:" in installed.stdout
    assert _state(dut) == before  # installing changes nothing until it runs

    booted = device.run(["sh", f"{image}/usr/sbin/wirespeed-tune"], timeout=60.0)
    assert booted.returncode == 0, booted.stderr
    assert _state(dut) == applied
    said = booted.stderr.splitlines()
    assert f"wirespeed-tune: {IFACE}: mtu: 1500 -> 9000" in said
    assert f"wirespeed-tune: {IFACE}: offload tcp-segmentation-offload off" in said
    assert len(said) == 7  # one line per knob: mtu, 2 rps, 2 xps, 2 offloads

    removed = _tune(lab, tmp_path, "restore", TARGET, "--keep")
    assert removed.returncode == 0, removed.stderr
    assert _listing(image) == []
