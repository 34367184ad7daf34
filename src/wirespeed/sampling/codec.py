"""Frozen dataclasses to JSON and back, by their type hints.

Enough for the summary's shapes: dataclasses, tuples (fixed or `X, ...`), `X | None`,
str, int, float, bool. A value of another shape is a programming error, raised early.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T")


def dumps(value: object) -> str:
    return json.dumps(dataclasses.asdict(value), sort_keys=True)  # type: ignore[call-overload]


def loads(cls: type[T], text: str) -> T:
    value: T = build(cls, json.loads(text))
    return value


def build(kind: Any, data: Any) -> Any:
    """An instance of `kind` from what json.loads made of it."""
    if dataclasses.is_dataclass(kind) and isinstance(kind, type):
        hints = typing.get_type_hints(kind)
        values = {
            item.name: build(hints[item.name], data[item.name])
            for item in dataclasses.fields(kind)
            if item.name in data
        }
        return kind(**values)
    origin = typing.get_origin(kind)
    arguments = typing.get_args(kind)
    if origin in (types.UnionType, typing.Union):
        if data is None:
            return None
        options = [option for option in arguments if option is not type(None)]
        return build(options[0], data)
    if origin is tuple:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return tuple(build(arguments[0], item) for item in data)
        return tuple(build(option, item) for option, item in zip(arguments, data, strict=True))
    if kind is float:
        return float(data)
    if kind in (str, int, bool):
        return data
    raise TypeError(f"cannot rebuild {kind!r} from JSON")
