"""Reading a plan file: every problem at once, each with its file:line:column."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from pathlib import Path

from wirespeed.plan.assemble import assemble
from wirespeed.plan.collect import Collector
from wirespeed.plan.plan import Plan
from wirespeed.plan.plan_kind import is_soak_file, stray_keys, stray_message
from wirespeed.plan.problems import PlanError, Problem, printable
from wirespeed.plan.schema import TOP_LEVEL_KEYS
from wirespeed.plan.yamltree import YamlProblem, load_yaml

# A plan is a few kilobytes; anything far bigger is the wrong file (or /dev/zero), and
# reading it whole first would take the machine's memory before YAML even looks at it.
MAX_PLAN_BYTES = 1 << 20


def load_plan(path: Path) -> Plan:
    """Read and validate a plan file; raise PlanError listing everything wrong with it."""
    return parse_plan(*read_plan_file(path))


def read_plan_file(path: Path) -> tuple[str, str]:
    """A plan file's text and how messages name it (a run plan's or a soak plan's);
    PlanError for a file that cannot be read, is too large, or is not UTF-8."""
    source = display_path(path)
    try:
        with path.open("rb") as handle:
            data = handle.read(MAX_PLAN_BYTES + 1)
    except FileNotFoundError:
        raise PlanError([Problem(source, None, None, "no such plan file")]) from None
    except IsADirectoryError:
        raise PlanError([Problem(source, None, None, "is a directory, not a plan file")]) from None
    except OSError as error:
        message = f"cannot read the plan file: {error.strerror or error}"
        raise PlanError([Problem(source, None, None, message)]) from None
    except ValueError:  # a NUL in the name: no file can have it
        raise PlanError([Problem(source, None, None, "no such plan file")]) from None
    return plan_text(data, source), source


def parse_plan_bytes(data: bytes, source: str) -> Plan:
    """Validate a plan given as the bytes of a file (or of stdin)."""
    return parse_plan(plan_text(data, source), source)


def plan_text(data: bytes, source: str) -> str:
    """The text of a plan given as bytes: at most MAX_PLAN_BYTES (one more says it was
    larger), UTF-8."""
    if len(data) > MAX_PLAN_BYTES:
        message = f"larger than {MAX_PLAN_BYTES // 2**20} MiB: not a plan file"
        raise PlanError([Problem(source, None, None, message)])
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[: error.start]  # valid UTF-8: the decoder got this far
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1 :].decode("utf-8")) + 1
        message = f"not UTF-8 text (byte {error.start} is {data[error.start]:#04x})"
        raise PlanError([Problem(source, line, column, message)]) from None


def display_path(path: Path) -> str:
    """The path as messages show it: bytes that are not UTF-8 and control characters
    escaped, so that printing a message about any file name cannot fail or rewrite the
    terminal."""
    return printable(os.fsencode(path).decode("utf-8", "backslashreplace"))


def parse_plan(text: str, source: str = "<plan>") -> Plan:
    """Validate a plan given as text; source names it in messages."""
    try:
        document = load_yaml(text)
    except YamlProblem as problem:
        hint = _quote_comparison_hint(text, problem.line)
        raise PlanError(
            [Problem(source, problem.line, problem.column, problem.message, hint)]
        ) from None
    data = document.data
    if data is None:
        raise PlanError(
            [Problem(source, None, None, "the plan is empty: it needs at least paths: and tests:")]
        )
    if not isinstance(data, dict):
        keys = ", ".join(TOP_LEVEL_KEYS)
        raise PlanError(
            [Problem(source, 1, 1, f"a plan is a mapping of keys ({keys}), not {_kind(data)}")]
        )
    if is_soak_file(data):
        strays = [(key, document.position_of((key,), key=True)) for key in stray_keys(data)]
        raise SoakPlanGiven(text, source, document.position_of(("soak",), key=True), strays)
    out = Collector(source, document)
    plan = assemble(data, out, text=text)
    if plan is None or out.errors:
        raise PlanError(out.errors or [Problem(source, None, None, "the plan is not valid")])
    return plan


class SoakPlanGiven(PlanError):
    """The file is a soak plan (it has `soak:`, and no paths: or tests:): `check` checks
    it as one; `run` says to soak it."""

    def __init__(
        self,
        text: str,
        source: str,
        position: tuple[int, int] | None,
        strays: Sequence[tuple[str, tuple[int, int] | None]] = (),
    ) -> None:
        line, column = position if position is not None else (None, None)
        problems = [
            Problem(
                source, line, column, "this is a soak plan (it has soak:), not a run plan",
                hint=f"soak it with `wirespeed soak {source}`",
            )
        ]  # fmt: skip
        # A run plan's key in it (a stray `tests:`) is said where it is written.
        for key, at in strays:
            message, hint = stray_message(key, soak=True)
            at_line, at_column = at if at is not None else (None, None)
            problems.append(Problem(source, at_line, at_column, message, hint))
        super().__init__(problems)
        self.text = text
        self.source = source


# `goodput: >= 300M`: YAML reads a value starting with `>` as a folded block of text.
_UNQUOTED_COMPARISON = re.compile(r"[:{,]\s*>")


def _quote_comparison_hint(text: str, line: int | None) -> str | None:
    lines = text.splitlines()
    if line is None or not 1 <= line <= len(lines):
        return None
    if not _UNQUOTED_COMPARISON.search(lines[line - 1]):
        return None
    return 'quote a comparison that starts with ">": goodput: ">= 300M"'


def _kind(value: object) -> str:
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text {value[:40]!r}"
    return f"the value {value!r}"
