"""Reading a captured tree: symlinks resolve inside it, missing files are None."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from wirespeed.facts.read import HostSource, TreeSource, read_value
from wirespeed.hosts.local import LocalHost

from .conftest import BOARDS


def test_class_net_links_resolve_to_the_device_inside_the_tree() -> None:
    tree = TreeSource(BOARDS / "r4s")
    assert tree.resolve("/sys/class/net/eth1/device") == (
        "/sys/devices/platform/f8000000.pcie/pci0000:00/0000:00:00.0/0000:01:00.0"
    )
    assert tree.resolve("/sys/class/net/eth1/device/driver") == "/sys/bus/pci/drivers/r8169"


def test_the_device_tree_model_is_read_through_proc_device_tree() -> None:
    tree = TreeSource(BOARDS / "r4s")
    assert read_value(tree, "/proc/device-tree/model") == "FriendlyElec NanoPi R4S"


def test_missing_files_and_directories_are_none() -> None:
    tree = TreeSource(BOARDS / "r4s")
    assert tree.read("/proc/version") is None
    assert tree.list_dir("/sys/class/thermal") is None
    assert tree.resolve("/sys/class/net/lo/device") is None


def test_links_cannot_leave_the_tree(tmp_path: Path) -> None:
    (tmp_path / "sys").mkdir()
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "hostname").write_text("inside\n")
    os.symlink("../../../../../../etc", tmp_path / "sys" / "up")
    os.symlink("/etc", tmp_path / "sys" / "absolute")
    tree = TreeSource(tmp_path)
    assert tree.read("/sys/up/hostname") == "inside\n"
    assert tree.read("/sys/absolute/hostname") == "inside\n"


def test_a_link_loop_is_none(tmp_path: Path) -> None:
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    assert TreeSource(tmp_path).read("/a") is None


@pytest.mark.process
def test_a_host_reads_the_same_files_as_the_tree_at_root(tmp_path: Path) -> None:
    host, tree = HostSource(LocalHost()), TreeSource(Path("/"))
    assert host.read("/proc/sys/kernel/osrelease") == tree.read("/proc/sys/kernel/osrelease")
    assert host.list_dir("/sys/class/net") == tree.list_dir("/sys/class/net")
    assert host.resolve("/sys/class/net/lo") == tree.resolve("/sys/class/net/lo")
    assert host.resolve("/sys/class/net/lo/device") is None  # lo has no device
    assert host.read(str(tmp_path / "missing")) is None
    assert host.list_dir(str(tmp_path / "missing")) is None
