"""CI (.ci/run, on a clean clone) holds every test to the fast loop's guard: the unit
tests run there in two parts, the fast loop's (`--fast`: a test that starts a program
without the `process` mark fails) and the ones it leaves out, which together are every
unit test."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from support import fast_loop

ROOT = Path(__file__).resolve().parents[2]


def _unit_runs() -> list[list[str]]:
    """The pytest commands over tests/unit that the whole suite runs (not `--fast`)."""
    script = (ROOT / "scripts" / "test.sh").read_text()
    whole = script[script.index("\nscripts/bootstrap.sh\n") :]
    return [
        shlex.split(line.split("||")[0])
        for line in whole.splitlines()
        if re.match(r"\.venv/bin/pytest .*tests/unit", line)
    ]


def test_ci_runs_the_whole_suite_of_scripts_test_sh() -> None:
    run = (ROOT / ".ci" / "run").read_text().splitlines()
    assert run[-1].startswith("exec scripts/test.sh ")


def test_the_suite_runs_the_unit_tests_under_the_fast_loops_guard_and_then_the_rest() -> None:
    fast, rest = _unit_runs()
    assert "--fast" in fast and "-m" not in fast
    # The rest: exactly what the fast loop leaves out, so that no unit test runs twice
    # and none is left out of both (a marker added to the fast loop's list only would).
    expression = rest[rest.index("-m") + 1]
    assert set(expression.split(" or ")) == set(fast_loop._LEFT_OUT)
    assert "--fast" not in rest
