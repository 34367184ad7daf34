"""The soak tests' lab: its name unique to the test and this process, removed after."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from wirespeed.lab.lab import down_lab


@pytest.fixture
def lab_name(request: pytest.FixtureRequest) -> Iterator[str]:
    label = request.node.name[5:13].strip("_").replace("_", "-")
    name = f"soak-{os.getpid() % 100000}-{label}".rstrip("-")
    yield name
    down_lab(name, force=True)
