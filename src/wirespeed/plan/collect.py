"""Gathering problems with their positions, and turning pydantic's errors into plain words."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ValidationError
from pydantic_core import ErrorDetails

from wirespeed.plan.problems import Problem, did_you_mean, one_of, shown
from wirespeed.plan.yamltree import Document, Loc

M = TypeVar("M", bound=BaseModel)

_EXPECTED = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "string_type": "text",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping of keys",
    "model_type": "a mapping of keys",
    "model_attributes_type": "a mapping of keys",
}


class Collector:
    """Problems found so far in one file; errors and warnings kept apart."""

    def __init__(self, source: str, document: Document | None = None) -> None:
        self.source = source
        self.document = document
        self.errors: list[Problem] = []
        self.warnings: list[Problem] = []

    def problem(
        self, loc: Loc, message: str, hint: str | None = None, *, key: bool = False
    ) -> Problem:
        position = None if self.document is None else self.document.position_of(loc, key=key)
        line, column = position if position is not None else (None, None)
        return Problem(self.source, line, column, message, hint)

    def line_of(self, loc: Loc) -> int | None:
        position = None if self.document is None else self.document.position_of(loc)
        return None if position is None else position[0]

    def error(self, loc: Loc, message: str, hint: str | None = None, *, key: bool = False) -> None:
        self.errors.append(self.problem(loc, message, hint, key=key))

    def warn(self, loc: Loc, message: str, hint: str | None = None, *, key: bool = False) -> None:
        problem = self.problem(loc, message, hint, key=key)
        if problem not in self.warnings:  # the same test on several paths warns once
            self.warnings.append(problem)

    def validate(
        self,
        model: type[M],
        data: Any,
        where: Loc,
        *,
        misplaced: dict[str, str] | None = None,
        entry: str | None = None,
    ) -> M | None:
        """The validated entry, or None after recording each of its errors at its position.

        misplaced: keys that belong elsewhere, with the message to give instead of
        "unknown key" (an `id:` under `defaults:`). entry: what an error of the entry as
        a whole names it ("test 'fwd'"); by default its section's word ("a test").
        """
        try:
            return model.model_validate(data)
        except ValidationError as failure:
            for error in failure.errors(include_url=False):
                # A mapping key that failed is pointed at where the key is written.
                loc = where + tuple(step for step in error["loc"] if step != "[key]")
                key = _is_key_error(error)
                inner = error["loc"][:-1]
                allowed = _keys_at(model, inner)
                message = _describe(error, allowed=allowed, misplaced=misplaced or {})
                outer_key = str(error["loc"][-1]) if error["loc"] else ""
                if key and inner and outer_key in model.model_fields and " (did" not in message:
                    # Written one level too deep: say where it belongs.
                    owner = f"{where[-1]}:" if where else "the plan's top level"
                    message += f" under {inner[-1]}: (it is a key of {owner})"
                if not error["loc"]:  # the entry itself is wrong: say which entry
                    message = f"{entry or _entry_label(where)}: {message}"
                self.error(loc, message, key=key)
            return None


def _keys_at(model: type[BaseModel], path: tuple[int | str, ...]) -> Iterable[str]:
    """The keys the entry at `path` inside `model` may have: a near miss is looked for
    among them, not among the outer entry's (`dut: {queue: ...}` is no near miss of the
    lab's own `queue`)."""
    current: Any = model
    for step in path:
        if isinstance(step, int) or not (
            isinstance(current, type) and issubclass(current, BaseModel)
        ):
            continue  # a list's index or a mapping's key: the item's model is found below
        field = current.model_fields.get(step)
        if field is None:
            return model.model_fields
        current = _model_in(field.annotation)
        if current is None:
            return ()
    return (
        current.model_fields if isinstance(current, type) and issubclass(current, BaseModel) else ()
    )


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model an annotation holds: itself, or inside Optional, list or dict."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for argument in get_args(annotation):
        found = _model_in(argument)
        if found is not None:
            return found
    return None


def salvage(model: type[M], data: Any) -> M:
    """The model built from those keys of data that are valid on their own.

    Lets the checks that need an entry (the defaults) still run after the entry's own
    errors were reported, without reporting them a second time.
    """
    if not isinstance(data, dict):
        return model()
    good: dict[str, Any] = {}
    for key, value in data.items():
        try:
            model.model_validate({key: value})
        except ValidationError:
            continue
        good[key] = value
    return model.model_validate(good)


def _entry_label(where: Loc) -> str:
    section = where[0] if where else ""
    if section == "hosts" and len(where) > 1:
        return f"host {str(where[1])!r}"
    return {"tests": "a test", "paths": "a path"}.get(str(section), str(section) or "the plan")


def _is_key_error(error: ErrorDetails) -> bool:
    # An unknown key is reported where the key is written, not where its value is.
    return error["type"] == "extra_forbidden" or (
        bool(error["loc"]) and error["loc"][-1] == "[key]"
    )


def _describe(error: ErrorDetails, *, allowed: Iterable[str], misplaced: dict[str, str]) -> str:
    kind = error["type"]
    loc = [step for step in error["loc"] if step != "[key]"]
    label = _label(loc)
    given = error.get("input")
    context = error.get("ctx") or {}
    if kind == "extra_forbidden":
        key = str(loc[-1]) if loc else "?"
        if key in misplaced:
            return misplaced[key]
        return f"unknown key {key!r}{did_you_mean(key, allowed)}"
    if kind == "missing":
        return f"missing key {label!r}"
    if kind == "value_error":
        return (
            f"{label}: {context.get('error', error['msg'])}" if label else str(context.get("error"))
        )
    if kind == "enum":
        choices = re.findall(r"'([^']*)'", str(context.get("expected", "")))
        hint = did_you_mean(given, choices) if isinstance(given, str) else ""
        return f"{label}: {shown(given)} is not one of {one_of(choices)}{hint}"
    prefix = f"{label}: " if label else ""
    if kind in _EXPECTED:
        return f"{prefix}expected {_EXPECTED[kind]}, got {shown(given)}"
    for bound, words in _BOUNDS.items():
        if bound in context:
            return f"{prefix}must be {words} {_number(context[bound])}, got {shown(given)}"
    message = error["msg"]
    message = message[:1].lower() + message[1:]
    return f"{prefix}{message}, got {shown(given)}"


_BOUNDS = {"ge": "at least", "gt": "more than", "le": "at most", "lt": "less than"}


def _number(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))  # "more than 0", not "more than 0.0"
    return str(value)


# A key shown as written after a dot; others (spaces, `:`, quotes, control characters)
# are quoted in brackets, so the label ends where the message's own `:` starts.
_PLAIN_KEY = re.compile(r"[^\s:'\"\[\]\x00-\x1f\x7f-\x9f]+")


def _label(loc: list[str | int]) -> str:
    """tests[2].window, offloads.gro; offloads['a b'] for a key that is not one word."""
    text = ""
    for step in loc:
        if isinstance(step, int):
            text += f"[{step}]"
        elif not _PLAIN_KEY.fullmatch(step):
            text += f"[{step!r}]"
        else:
            text += f".{step}" if text else step
    return text
