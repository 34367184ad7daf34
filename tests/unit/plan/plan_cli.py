"""Running `wirespeed check` / `wirespeed run` in-process on a plan file, and what every
outcome must look like: exit 0 for a plan that loads, else exit 2 and a message that names
the file (and the line, where the problem has one); never a traceback.

stdout is a strict UTF-8 stream, like a terminal's under a UTF-8 locale: text that cannot
be printed fails here as it would for a user. `run` is stopped at preflight, the first
thing it does after loading and expanding the plan, so nothing is built, run or opened.
"""

from __future__ import annotations

import re
from pathlib import Path

from support.cli import PreflightOutcome, run_cli_to_preflight

# Problems that are about the whole file, where no line can be given.
WITHOUT_A_LINE = re.compile(
    r"no such plan file|is a directory, not a plan file|cannot read the plan file"
    r"|larger than \d+ MiB|the plan is empty|not valid YAML: nested too deeply"
    r"|the file expands to more than|an alias refers to a value that contains it"
)


Outcome = PreflightOutcome


def cli(*argv: str) -> Outcome:
    return run_cli_to_preflight(*argv)


def check_and_run(plan: Path, shown: str, db: Path, command: str) -> Outcome:
    """`wirespeed check PLAN` or `wirespeed run PLAN`, checked against the contract."""
    if command == "check":
        outcome = cli("check", str(plan))
    else:
        # --db: should a future `run` open its store earlier, it is a scratch file here.
        outcome = cli("run", str(plan), "--db", str(db), "--quiet")
    assert_clean(outcome, shown, command=command)
    return outcome


_PROBLEM = re.compile(r"(?P<where>(?::\d+(?::\d+)?)?): (?P<message>.*)")


def assert_clean(outcome: Outcome, shown: str, *, command: str) -> None:
    """Exit 0 (check) or preflight (run) for a valid plan; else 2 and every problem as
    `file[:line[:column]]: message`, the line left out only where the file has none."""
    everything = outcome.out + outcome.err
    assert "Traceback" not in everything, everything
    ok = 0 if command == "check" else None
    assert outcome.status in (ok, 2), outcome
    if outcome.status == ok:
        if command == "check":
            assert outcome.out.startswith(f"{shown}: ok — "), outcome
        for line in outcome.err.splitlines():
            assert line.startswith(("wirespeed: warning: ", "  hint: ")), outcome
        return
    assert outcome.err.startswith("wirespeed: error: "), outcome
    first, *rest = outcome.err.removeprefix("wirespeed: error: ").splitlines()
    summary = re.fullmatch(rf"\d+ problems in {re.escape(shown)}:", first)
    problems = [line for line in rest if not line.startswith("  hint: ")] if summary else [first]
    assert problems, outcome
    for line in problems:
        assert line.startswith(shown), (shown, outcome)
        match = _PROBLEM.fullmatch(line[len(shown) :])
        assert match is not None, (line, outcome)
        if not match["where"]:
            assert WITHOUT_A_LINE.search(match["message"]), (line, outcome)
