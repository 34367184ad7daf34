"""`wirespeed tune keep` in-process: printed, written, installed under an install root on
this machine (real mkdir, chmod, ln) and removed by `tune restore local --keep`."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from tune_helpers import BOARDS, snapshot

from support.cli import CliOutcome, run_cli
from wirespeed.store import RunInfo, Store
from wirespeed.tune import Journal


def _run_with_variants(db: Path, variants: dict[str, dict[str, object]]) -> int:
    with Store.open(db) as store:
        return store.begin_run(
            RunInfo(title="A/B", started_at=time.time(), provenance={"variants": variants})
        )


def test_keep_prints_the_boot_script_of_the_plan() -> None:
    status, out, _ = run_cli("tune", "keep", "--root", str(BOARDS / "r4s"))
    assert status == 0
    assert out.startswith("#!/bin/sh\n")
    assert "\tirq eth0 'eth0' '10'  # IRQ 27 when planned\n" in out
    assert "\tirq eth1 'eth1' '20'  # IRQ 234 when planned\n" in out


def test_keep_writes_an_executable_file(tmp_path: Path) -> None:
    target = tmp_path / "r2s.sh"
    status, out, err = run_cli("tune", "keep", "--root", str(BOARDS / "r2s"), "-o", str(target))
    assert (status, out) == (0, "")
    assert "4 setting(s) for eth0, eth1" in err
    assert os.access(target, os.X_OK)
    assert "irq eth1 'xhci-hcd:usb4' '4'" in target.read_text()


def test_keep_a_variant_of_a_stored_run(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run = _run_with_variants(db, {"default": {}, "a72": {"rps": "30", "mtu": 1500}})
    status, out, err = run_cli(
        "tune", "keep", "--run", str(run), "--variant", "a72", "--interface", "eth0,eth1",
        "--db", str(db),
    )  # fmt: skip
    assert status == 0, err
    assert "\tqueues eth1 'rx-*' rps_cpus '30'\n" in out
    assert "\tmtu eth0 '1500'\n" in out


def test_keep_a_variant_on_the_nics_of_a_tree(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    run = _run_with_variants(db, {"spread": {"rps": "spread"}})
    status, out, err = run_cli(
        "tune", "keep", "--run", str(run), "--variant", "spread", "--root", str(BOARDS / "r4s"),
        "--db", str(db),
    )  # fmt: skip
    assert status == 0, err
    assert "if want eth0; then" in out and "if want eth1; then" in out
    assert "if want br-lan" not in out


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--variant", "a72"), "--run and --variant go together"),
        (("--run", "1", "--variant", "nope", "--interface", "eth0"), "has no variant 'nope'"),
        (("--run", "1", "--variant", "a72"), "which interfaces should variant a72 go on?"),
        (("--run", "9", "--variant", "a72", "--interface", "eth0"), "no run 9"),
        (("--run", "1", "--variant", "cpu", "--interface", "eth0"), "sets the CPUs"),
        (("--run", "1", "--variant", "a72", "--interface", "eth0/.."), "refused interface"),
        (("--root", str(BOARDS / "r4s"), "--name", "Bad Name"), "refused name"),
        (("--root", str(BOARDS / "r4s"), "--no-enable"), "go with --install"),
        (("--root", str(BOARDS / "neo2")), "nothing to keep"),
    ],
)
def test_keep_refuses_bad_input_with_status_2(
    tmp_path: Path, args: tuple[str, ...], said: str
) -> None:
    db = tmp_path / "runs.db"
    _run_with_variants(db, {"a72": {"rps": "30"}, "cpu": {"cpus_online": [0, 4]}})
    status, _, err = run_cli("tune", "keep", *args, "--db", str(db))
    assert status == 2, err
    assert said in err


def test_keep_options_belong_to_keep(tmp_path: Path) -> None:
    status, _, err = run_cli("tune", "suggest", "--root", str(BOARDS / "r4s"), "-o", "x.sh")
    assert (status, err.splitlines()[0]) == (
        2,
        "wirespeed: error: --output works with `tune keep` only",
    )
    status, _, err = run_cli("tune", "apply", "--keep", "--db", str(tmp_path / "s.db"))
    assert status == 2 and "--keep works with `tune restore HOST` only" in err
    status, _, err = run_cli("tune", "restore", "--keep", "--db", str(tmp_path / "s.db"))
    assert status == 2 and "--keep needs a HOST" in err


def _install(tmp_path: Path, root: Path, *more: str) -> CliOutcome:
    return run_cli(
        "tune", "keep", "--root", str(BOARDS / "r4s"), "--install", "local",
        "--install-root", str(root), "--system", "openwrt", "--db", str(tmp_path / "runs.db"),
        *more,
    )  # fmt: skip


@pytest.mark.process
def test_install_and_uninstall_leave_nothing(tmp_path: Path) -> None:
    root = tmp_path / "image"
    (root / "etc" / "init.d").mkdir(parents=True)  # an image that has some of the dirs
    before = snapshot(root)
    status, out, err = _install(tmp_path, root)
    assert status == 0, err
    r = str(root)
    assert out.splitlines()[:3] == [
        f"$ mkdir {r}/usr",
        f"$ mkdir {r}/usr/sbin",
        f"$ mkdir {r}/etc/hotplug.d",
    ]
    assert f"$ chmod 755 {r}/usr/sbin/wirespeed-tune" in out
    assert f"$ ln -s ../init.d/wirespeed-tune {r}/etc/rc.d/S95wirespeed-tune" in out
    assert "enabled at boot:" in out and "wirespeed tune restore local --keep" in out
    assert os.readlink(root / "etc/rc.d/S95wirespeed-tune") == "../init.d/wirespeed-tune"
    init = (root / "etc/init.d/wirespeed-tune").read_text()
    assert init.startswith("#!/bin/sh /etc/rc.common\n") and "USE_PROCD=1" in init
    hook = (root / "etc/hotplug.d/net/40-wirespeed-tune").read_text()
    assert '/usr/sbin/wirespeed-tune "$INTERFACE"' in hook
    for script in (
        "usr/sbin/wirespeed-tune",
        "etc/init.d/wirespeed-tune",
        "etc/hotplug.d/net/40-wirespeed-tune",
    ):  # each parses as busybox's shell reads it
        checked = subprocess.run(
            ["busybox", "sh", "-n", str(root / script)], capture_output=True, check=False
        )
        assert checked.returncode == 0, (script, checked.stderr)
    with Journal.open(tmp_path / "runs.db") as journal:
        assert journal.open_entries() == []  # not recovery's: they outlive the process
        assert len(journal.kept_entries("local")) == 9

    again = _install(tmp_path, root)  # a second install replaces its own files
    assert again[0] == 0, again[2]
    assert f"replaced {r}/usr/sbin/wirespeed-tune: the boot script" in again[1]

    status, out, err = run_cli(
        "tune", "restore", "local", "--keep", "--db", str(tmp_path / "runs.db")
    )
    assert status == 0, err
    assert f"$ rmdir {r}/usr" in out and "stay until the next boot" in out
    assert snapshot(root) == before
    with Journal.open(tmp_path / "runs.db") as journal:
        assert journal.kept_entries("local") == []
    status, out, _ = run_cli(
        "tune", "restore", "local", "--keep", "--db", str(tmp_path / "runs.db")
    )
    assert (status, out) == (0, "local: no boot script installed by wirespeed tune keep\n")


@pytest.mark.process
def test_install_without_enabling_says_so(tmp_path: Path) -> None:
    root = tmp_path / "image"
    root.mkdir()
    status, out, err = _install(tmp_path, root, "--no-enable")
    assert status == 0, err
    assert not (root / "etc" / "rc.d").exists()
    assert "not enabled at boot; to enable it: /etc/init.d/wirespeed-tune enable" in out


@pytest.mark.process
def test_install_refuses_a_file_it_did_not_put_there(tmp_path: Path) -> None:
    root = tmp_path / "image"
    (root / "etc" / "init.d").mkdir(parents=True)
    (root / "etc" / "init.d" / "wirespeed-tune").write_text("#!/bin/sh\n# the user's own\n")
    before = snapshot(root)
    status, out, err = _install(tmp_path, root)
    assert status == 2
    assert "wirespeed-tune exists on local and was not installed by wirespeed tune keep" in err
    assert out == "" and snapshot(root) == before


@pytest.mark.process
@pytest.mark.skipif(shutil.which("systemctl") is None, reason="systemctl is not installed")
def test_a_systemd_install_is_enabled_as_systemctl_sees_it_and_removed_to_nothing(
    tmp_path: Path,
) -> None:
    root = tmp_path / "image"
    root.mkdir()
    status, out, err = run_cli(
        "tune", "keep", "--root", str(BOARDS / "r4s"), "--install", "local",
        "--install-root", str(root), "--system", "systemd", "--db", str(tmp_path / "runs.db"),
    )  # fmt: skip
    assert status == 0, err
    assert "(what `systemctl enable wirespeed-tune.service` does)" in out
    unit = (root / "etc/systemd/system/wirespeed-tune.service").read_text()
    assert "Type=oneshot" in unit and "ExecStart=/usr/local/sbin/wirespeed-tune" in unit
    rule = (root / "etc/udev/rules.d/90-wirespeed-tune.rules").read_text()
    assert 'RUN+="/usr/local/sbin/wirespeed-tune $name"' in rule

    def state() -> str:
        said = subprocess.run(
            ["systemctl", f"--root={root}", "is-enabled", "wirespeed-tune.service"],
            capture_output=True,
            text=True,
            check=False,
        )
        return said.stdout.strip() or said.stderr.strip()

    assert state() == "enabled"
    status, _, err = run_cli(
        "tune", "restore", "local", "--keep", "--db", str(tmp_path / "runs.db")
    )
    assert status == 0, err
    assert _listing(root) == []
    assert state() != "enabled"


def _listing(root: Path) -> list[str]:
    return sorted(str(path.relative_to(root)) for path in root.rglob("*"))
