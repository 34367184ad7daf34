"""Frozen model objects made with their fields set at once, for loading a run fast.

A run of 10,000 trials is hundreds of thousands of small frozen dataclasses. Their
__init__ sets each field through object.__setattr__, and their checks (__post_init__)
format their error message on every call, valid or not: together most of the time of
loading a run. The loader makes an object with object.__new__ and gives it its fields as
its __dict__ in one call, after making the same checks itself, and calls the class only
for values that fail them, to raise its own error. The objects are the same: equal, with
the same hash.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any


def field_setter(cls: type, names: tuple[str, ...]) -> Callable[[Any, dict[str, Any]], None]:
    """Sets an instance's __dict__ (the `names` fields, all of them) through the
    attribute's descriptor: a frozen class's __setattr__ refuses, and object.__setattr__
    would look the descriptor up on every call. Refuses a class whose fields are not
    `names`, so a field added to the model cannot be left unset by the loader."""
    fields = tuple(field.name for field in dataclasses.fields(cls))
    if fields != names:
        raise TypeError(f"{cls.__name__} has the fields {fields}, not {names}")
    setter: Callable[[Any, dict[str, Any]], None] = vars(cls)["__dict__"].__set__
    return setter
