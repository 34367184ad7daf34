"""Browser tests: the HTML report in real headless Chromium."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    # Also belongs in pyproject's [tool.pytest.ini_options] markers; registering it here
    # keeps --strict-markers happy either way (a repeated line is harmless).
    config.addinivalue_line("markers", "browser: runs headless Chromium; skipped without it")
