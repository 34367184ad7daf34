"""What is wrong with a plan file, said the way compilers say it: file:line:column: message."""

from __future__ import annotations

import datetime
import difflib
import unicodedata
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from wirespeed.errors import UsageError


@dataclass(frozen=True)
class Problem:
    """One error or warning about a plan file. line and column are 1-based; None if unknown."""

    source: str
    line: int | None
    column: int | None
    message: str
    hint: str | None = None

    @property
    def where(self) -> str:
        source = printable(self.source)
        if self.line is None:
            return source
        if self.column is None:
            return f"{source}:{self.line}"
        return f"{source}:{self.line}:{self.column}"

    def __str__(self) -> str:
        text = f"{self.where}: {printable(self.message)}"
        return text if self.hint is None else f"{text}\n  hint: {printable(self.hint)}"


def printable(text: str) -> str:
    """text with control characters escaped (\\x1b): a message quotes what the file
    holds, and must neither rewrite the terminal nor break into lines of its own."""
    if text.isprintable():
        return text
    return "".join(
        f"\\x{ord(char):02x}" if unicodedata.category(char) == "Cc" else char for char in text
    )


class PlanError(UsageError):
    """A plan file that cannot be run, with every problem found in it (not just the first)."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        if not problems:
            raise ValueError("a PlanError needs at least one problem")
        self.problems: list[Problem] = sorted(problems, key=_reading_order)
        count = len(self.problems)
        summary = "1 problem" if count == 1 else f"{count} problems"
        source = self.problems[0].source
        if count == 1:
            message = str(self.problems[0])
        else:
            # Compiler style: a summary, then one `file:line:col: message` line each, so
            # editors and terminals can jump to every problem.
            lines = "\n".join(str(problem) for problem in self.problems)
            message = f"{summary} in {source}:\n{lines}"
        super().__init__(message, hint=f"fix {'it' if count == 1 else 'them'} and run again")


def _reading_order(problem: Problem) -> tuple[int, int]:
    # Problems without a position (file not found, empty file) come first.
    return (problem.line or 0, problem.column or 0)


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """' (did you mean 'duration'?)' for a near miss, else ''. Case aside: `ndr` is a
    near miss of `NDR`."""
    by_lower: dict[str, str] = {}
    for choice in choices:
        by_lower.setdefault(choice.lower(), choice)
    close = difflib.get_close_matches(word.lower(), list(by_lower), n=1, cutoff=0.6)
    return f" (did you mean {by_lower[close[0]]!r}?)" if close else ""


def one_of(choices: Iterable[str]) -> str:
    """'a, b or c' for messages."""
    items = list(choices)
    if len(items) <= 1:
        return "".join(items)
    return f"{', '.join(items[:-1])} or {items[-1]}"


def shown(value: object) -> str:
    """A plan's value as an error shows it: 'a mapping', 'nothing (null)', 'the date
    2020-12-09 (quote it to make it text)', a text or number as written."""
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, AbstractSet):
        return "a set"
    if value is None:
        return "nothing (null)"
    if isinstance(value, datetime.date):
        # YAML reads 2020-12-09 as a date, not as text.
        return f"the date {value.isoformat()} (quote it to make it text)"
    if isinstance(value, str | int | float):
        return repr(value)
    return f"a {type(value).__name__}"
