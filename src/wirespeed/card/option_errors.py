"""The card's plan is made from the options the user typed; a problem the plan's checks find
in it is said in the words of the option that made it (`--repeat 1000000: must be at most
1000`), or at its line of the `--expect` file, never at a line of a plan nobody wrote.

    text, expected = with_expectations(text, "expect.yaml")    # --expect's, positions kept
    plan = card_plan_checked(text, source, typed, expected)    # UsageError naming options
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wirespeed.errors import UsageError
from wirespeed.plan.plan import Plan
from wirespeed.plan.problems import PlanError, Problem, printable

# A field of the card's plan -> the option whose value it holds, and what the field is
# where the option goes into more than one ("" where it is the option itself).
FIELD_OPTIONS = {
    "duration": ("--duration", ""),
    "final_duration": ("--duration", "the forwarding search's full-length trials: "),
    "initial_duration": ("--duration", "the forwarding search's first trials: "),
    "repetitions": ("--repeat", ""),
    "dut.forward_pps": ("--forward-pps", ""),
    "dut.forward_rate": ("--forward-rate", ""),
    "queue": ("--queue", ""),
    "mtu": ("--mtu", ""),
    "frame_sizes": ("--frame-sizes", ""),
}


@dataclass(frozen=True)
class Expected:
    """--expect FILE put into the card's plan: the file, its YAML with positions, and the
    plan's line (1-based) of each test whose expectations came from it."""

    file: str
    document: Any  # plan.yamltree.Document of the file
    lines: dict[int, str] = field(default_factory=dict)  # plan line -> test id

    def where(self, test_id: str, message: str) -> str:
        """FILE:line:column of what a problem of test_id's expectations is about: the
        key its message names, else the test id's own."""
        key = message.partition(":")[0].strip()
        given = self.document.data.get(test_id)
        loc: tuple[str, ...] = (test_id,)
        if isinstance(given, Mapping) and key in given:
            loc = (test_id, key)
        position = self.document.position_of(loc, key=True)
        if position is None:
            return self.file
        return f"{self.file}:{position[0]}:{position[1]}"


def with_expectations(text: str, expect_file: str) -> tuple[str, Expected]:
    """The card plan's text with FILE's expectations in its tests (`expect:` of each)."""
    from wirespeed.plan.yamltree import YamlProblem, load_yaml

    path = Path(expect_file)
    if not path.is_file():
        raise UsageError(f"--expect {expect_file}: no such file")
    try:
        document = load_yaml(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise UsageError(f"--expect {expect_file}: not UTF-8 text ({error.reason})") from None
    except YamlProblem as problem:
        at = f":{problem.line}:{problem.column}" if problem.line is not None else ""
        raise UsageError(f"--expect {expect_file}{at}: {problem.message}") from None
    if not isinstance(document.data, dict):
        raise UsageError(
            f"--expect {expect_file}: a mapping of test id -> expectations",
            hint='e.g. fwd: {NDR: {frame: 64, value: ">= 14k"}}',
        )
    expectations: dict[str, Any] = json.loads(json.dumps(document.data, default=str))
    expected = Expected(expect_file, document)
    lines = text.splitlines()
    ids: list[str] = []
    for index, line in enumerate(lines):
        if not line.startswith("  - {") or '"id"' not in line:
            continue
        test = json.loads(line[4:])
        if "topology" in test:
            continue  # a path
        ids.append(test["id"])
        if test["id"] in expectations:
            test["expect"] = expectations[test["id"]]
            expected.lines[index + 1] = test["id"]
            lines[index] = "  - " + json.dumps(test, ensure_ascii=False)
    unknown = sorted(set(expectations) - set(expected.lines.values()))
    if unknown:
        raise UsageError(
            f"--expect {expect_file}: the card has no test {', '.join(unknown)}",
            hint=f"its tests: {', '.join(ids)}",
        )
    return "\n".join(lines) + "\n", expected


def card_plan_checked(
    text: str, source: str, typed: Mapping[str, str], expected: Expected | None = None
) -> Plan:
    """The card's plan; its problems said as the options' (typed: option -> the value as
    the user gave it) or the --expect file's, each once."""
    from wirespeed.plan.load import parse_plan

    try:
        return parse_plan(text, source)
    except PlanError as error:
        said = list(dict.fromkeys(_said(p, typed, expected) for p in error.problems))
        if len(said) == 1:
            raise UsageError(said[0][0], hint=said[0][1]) from None
        lines = "\n".join(message + (f"\n  hint: {hint}" if hint else "") for message, hint in said)
        raise UsageError(f"{len(said)} problems with the card's options:\n{lines}") from None


def _said(
    problem: Problem, typed: Mapping[str, str], expected: Expected | None
) -> tuple[str, str | None]:
    message = printable(problem.message)
    if expected is not None and problem.line in expected.lines:
        test_id = expected.lines[problem.line]
        return f"--expect {expected.where(test_id, message)}: {test_id}: {message}", problem.hint
    name, _, rest = message.partition(": ")
    option, what = FIELD_OPTIONS.get(name.split("[")[0], ("", ""))
    if option in typed:
        return f"{option} {typed[option]}: {what}{rest}", problem.hint
    # Not an option's value (a plan file's bench, a bug of the card's): where it is.
    return f"{problem.where}: {message}", problem.hint or (
        "`wirespeed card ... --print-plan` shows the card's plan"
    )
