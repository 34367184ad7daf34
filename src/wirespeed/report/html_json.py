"""JSON inside a page's <script type="application/json">: the report's one escaping rule
for data that travels in a page (the report's plots, a timeline's series)."""

from __future__ import annotations

import json
from typing import Any

import orjson

_JSON_ESCAPES = (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026"))


def script_json(value: Any) -> str:
    """JSON that is safe inside <script type="application/json">: no `<`, `>` or `&`.
    orjson writes the 10 MB of a 10,000-trial page in a fifth of json's 0.2 s; like
    json.dumps(allow_nan=False) it writes no NaN (it writes null where json would raise:
    the plots' values are checked finite before)."""
    try:
        text = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except TypeError:  # an integer beyond 64 bits
        text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    return script_json_text(text)


def script_json_text(text: str) -> str:
    """JSON text made safe inside <script type="application/json">, as script_json's:
    `<`, `>` and `&` occur only inside its strings, where their escapes mean the same."""
    for character, escaped in _JSON_ESCAPES:
        text = text.replace(character, escaped)
    return text
