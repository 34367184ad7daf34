"""What every test shares: a data directory of its own, so that no test (nor a wirespeed
process a test starts) writes the per-user store or spool of whoever runs the suite."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest

_ORIGINAL = "_wirespeed_original_xdg_data_home"


def pytest_configure(config: pytest.Config) -> None:
    data = tempfile.mkdtemp(prefix="wirespeed-tests-data-")
    setattr(config, _ORIGINAL, (os.environ.get("XDG_DATA_HOME"), data))
    os.environ["XDG_DATA_HOME"] = data


def pytest_unconfigure(config: pytest.Config) -> None:
    original, data = getattr(config, _ORIGINAL)
    if original is None:
        os.environ.pop("XDG_DATA_HOME", None)
    else:
        os.environ["XDG_DATA_HOME"] = original
    shutil.rmtree(data, ignore_errors=True)
