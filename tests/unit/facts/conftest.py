"""/proc + /sys trees of real boards (tests/fixtures/boards/README.md says file by file).

`x86-virtio-vm` is captured whole from this machine. `r4s` and `r2s` are partly captured
(/proc/interrupts, /proc/cpuinfo, kernel, os, device-tree model, the NICs' names and
drivers, copied from published dumps) and partly derived: cpufreq (1416000/1800000 kHz,
1296000), every smp_affinity (`3f`), mtu, speed, rps_cpus and the sysfs layout are what
the kernel would show, reconstructed, never read off those boards. A test asserting
those checks the reading, not the boards."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.facts import Facts, TreeSource, collect

BOARDS = Path(__file__).resolve().parents[2] / "fixtures" / "boards"


def board_facts(name: str) -> Facts:
    return collect(TreeSource(BOARDS / name))


@pytest.fixture(scope="module")
def r4s() -> Facts:
    return board_facts("r4s")


@pytest.fixture(scope="module")
def r2s() -> Facts:
    return board_facts("r2s")


@pytest.fixture(scope="module")
def vm() -> Facts:
    return board_facts("x86-virtio-vm")
