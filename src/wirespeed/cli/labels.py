"""`run --label KEY=VALUE`: what the user says a run is (its firmware, a build), stored
with the run and the keys `wirespeed trend --by KEY` groups runs by."""

from __future__ import annotations

import re
from collections.abc import Sequence

from wirespeed.errors import UsageError

# A key as people write one in a shell and as `trend --by` takes it back.
_KEY = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{0,63}")
MAX_VALUE = 200


def parse_labels(given: Sequence[str] | None) -> dict[str, str]:
    """{"firmware": "23.05.3"} from ["firmware=23.05.3"]; a bad one is a usage error."""
    labels: dict[str, str] = {}
    for text in given or ():
        key, sep, value = text.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not value:
            raise UsageError(
                f"--label {text!r}: give KEY=VALUE", hint="e.g. --label firmware=23.05.3"
            )
        if _KEY.fullmatch(key) is None:
            raise UsageError(
                f"--label {text!r}: a key is a letter, then letters, digits, _ . or -",
                hint="e.g. --label firmware=23.05.3 --label build=r23497",
            )
        if len(value) > MAX_VALUE or not value.isprintable():
            raise UsageError(
                f"--label {key}: a value is one line of printable text, "
                f"at most {MAX_VALUE} characters"
            )
        if key in labels and labels[key] != value:
            raise UsageError(f"--label {key} is given twice: {labels[key]!r} and {value!r}")
        labels[key] = value
    return labels
