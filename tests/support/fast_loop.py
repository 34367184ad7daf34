"""The fast loop: `pytest --fast` (what `scripts/test.sh --fast` runs), a plugin loaded by
`addopts` in pyproject.toml.

It keeps the tests that need no root, no network namespace and no real program: the
unit tests, less those marked `process` (a shell running the sampler, busybox, 7-zip,
openssl, ssh-keygen, a second Python). While it runs, starting a program fails the test
that did it, so a test that starts one without the mark is named at once instead of
slowing the loop down unnoticed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

_UNIT = Path(__file__).parents[1] / "unit"
_LEFT_OUT = ("process", "root", "slow", "browser")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fast",
        action="store_true",
        help="only the unit tests that start no real program (no root, no namespaces)",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not config.getoption("--fast"):
        return
    kept: list[pytest.Item] = []
    left_out: list[pytest.Item] = []
    for item in items:
        in_unit = _UNIT in Path(str(item.path)).parents
        marked = any(item.get_closest_marker(name) for name in _LEFT_OUT)
        (kept if in_unit and not marked else left_out).append(item)
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = kept


class ProgramStartedError(AssertionError):
    pass


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """In the fast loop, a program started by the test or by any fixture it sets up
    (a module's fixture too) fails it."""
    if not item.config.getoption("--fast"):
        yield
        return
    original = subprocess.Popen.__init__
    test = item.nodeid

    def refuse(self: subprocess.Popen[Any], args: Any, *rest: Any, **options: Any) -> None:
        raise ProgramStartedError(
            f"{test} starts a real program ({args!r:.80}) in the fast loop: "
            "mark it @pytest.mark.process"
        )

    subprocess.Popen.__init__ = refuse  # type: ignore[method-assign]
    try:
        yield
    finally:
        subprocess.Popen.__init__ = original  # type: ignore[method-assign]
