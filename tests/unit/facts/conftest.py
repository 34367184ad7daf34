"""Captured /proc + /sys trees of real boards (tests/fixtures/boards/README.md)."""

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
