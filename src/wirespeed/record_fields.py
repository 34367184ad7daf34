"""A record's fields under their own names, both ways: the JSON object (or the row) of a
frozen dataclass whose keys are its fields' names, and the dataclass back from one.

The store's codec, the tuning journal, the soak's chunks and the reports write and read
their records through these, so that a record is written field by field in one place.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")


def fields(value: object, names: Iterable[str]) -> dict[str, Any]:
    """The named attributes of a value under their own names, in that order: the JSON
    object of a record whose keys are its fields' names."""
    return {name: getattr(value, name) for name in names}


def fields_or_none(value: object | None, names: Iterable[str]) -> dict[str, Any] | None:
    """fields(value, names); None (null) for no value."""
    return None if value is None else fields(value, names)


def record_of(cls: Callable[..., T], data: Mapping[Any, Any], **given: Any) -> T:
    """The dataclass `cls` from `data`, which holds each of its fields under the field's
    name; `given` are the fields whose stored value is not the field's own (an enum by its
    value, a tuple kept as a list, a key that records written before it lack).

    A call costs about a microsecond more than writing the fields out: the decoders of
    records read by the thousand (a trial's outputs, samples and streams) write them out."""
    return cls(**{name: data[name] for name in _names(cls) if name not in given}, **given)


@functools.cache
def _names(cls: Callable[..., Any]) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls) if f.init)  # type: ignore[arg-type]
