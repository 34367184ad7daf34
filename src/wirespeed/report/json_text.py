"""JSON text written by orjson, byte for byte what json.dumps(value, ensure_ascii=False,
allow_nan=False) writes, indented by 2 or compact (separators "," and ":").

orjson is several times faster than json, and writes the same text but for:
  - floats below 1e-4 in magnitude down to 1e-9: orjson writes 0.000012345 and 1.5e-7
    where json (repr) writes 1.2345e-05 and 1.5e-07; such numbers are written again as
    repr writes them (the digits are the same: both write the shortest exact form);
  - NaN and infinities: orjson writes null where json refuses them; they are refused
    here, before writing, with json's error;
  - integers beyond 64 bits, lone surrogates and keys that are not strings, which orjson
    refuses and json writes: json writes the text then (`compact`, `indented`), or the
    caller does (OrjsonRefused).
Everything else (key order, the indent, empty containers, escapes, non-ASCII text as is)
is the same; tests/unit/report/test_json_text.py compares them.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

Fragment = orjson.Fragment

# What orjson refuses that json writes: the caller then writes its text with json.
OrjsonRefused = orjson.JSONEncodeError

NOT_FINITE = "Out of range float values are not JSON compliant"


def _odd(number: float) -> bool:
    """Whether orjson would not write this float as json does: NaN and infinities (an
    error), and 1e-9 <= |x| < 1e-4 (written again as repr writes it)."""
    size = abs(number)
    return not size < math.inf or 1e-9 <= size < 1e-4  # `not <`: NaN too


def _fixed(number: float) -> Fragment:
    if not math.isfinite(number):
        raise ValueError(f"{NOT_FINITE}: {number!r}")
    return Fragment(repr(number))


def prepared(value: Any) -> Any:
    """value, with each float orjson would write otherwise than json as its text as
    json writes it (a Fragment), in a copy of each dict, list or tuple that holds one;
    ValueError, as json.dumps(allow_nan=False) raises it, for NaN or infinity. Only
    dicts, lists and tuples are entered (a Fragment is text prepared already). Most
    values hold no such float: they are only searched, and returned as they are."""
    containers = [[value]]
    push, pop = containers.append, containers.pop
    while containers:
        # Only containers go on the stack: most values are strings and numbers.
        for item in pop():
            kind = type(item)
            if kind is float:
                size = abs(item)
                if not size < math.inf or 1e-9 <= size < 1e-4:  # `not <`: NaN too
                    return _copied(value)
            elif kind is dict:
                push(item.values())
            elif kind is list or kind is tuple:
                push(item)
    return value


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind is float:
        return _fixed(value) if _odd(value) else value
    if kind is dict:
        return {key: _copied(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_copied(item) for item in value]
    return value


def orjson_text(value: Any, *, indent: bool = False) -> bytes:
    """value as JSON by orjson, as json writes it; OrjsonRefused for what orjson
    refuses. A Fragment in value must be prepared already (and not indented)."""
    return orjson.dumps(prepared(value), option=orjson.OPT_INDENT_2 if indent else 0)


def compact(value: Any) -> str:
    """json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).
    value holds no Fragment."""
    try:
        return orjson_text(value).decode()
    except OrjsonRefused:
        return _json(value, indent=False)


def indented(value: Any) -> str:
    """json.dumps(value, ensure_ascii=False, allow_nan=False, indent=2). value holds no
    Fragment."""
    try:
        return orjson_text(value, indent=True).decode()
    except OrjsonRefused:
        return _json(value, indent=True)


def _json(value: Any, *, indent: bool) -> str:
    if indent:
        return json.dumps(value, indent=2, ensure_ascii=False, allow_nan=False)
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
