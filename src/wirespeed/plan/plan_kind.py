"""Which kind of plan a file is, a run plan or a soak plan, by the keys only one kind has;
and the keys of the other kind a file holds by mistake, each said at its line.

A run plan has `paths:` and `tests:` (and may have `defaults:`, `repetitions:`,
`power:`); a soak plan has one `path:` and `soak:`. `soak:` is the sign of a soak plan,
unless the file is plainly a run plan (`paths:` and `tests:`, no `path:`) with a stray
`soak:`. Whatever the kind, the other kind's keys are reported where they are written,
not as "unknown key 'soak'" of a plan taken for the wrong kind.
"""

from __future__ import annotations

from collections.abc import Mapping

RUN_ONLY_KEYS = ("paths", "tests", "defaults", "repetitions", "power")
SOAK_ONLY_KEYS = ("soak", "path")


def is_soak_file(data: Mapping[object, object]) -> bool:
    """A plan file's top-level mapping is a soak plan's."""
    if "soak" not in data:
        return False
    plainly_run = "paths" in data and "tests" in data and "path" not in data
    return not plainly_run


def stray_keys(data: Mapping[object, object]) -> tuple[str, ...]:
    """The keys of the other kind of plan than the file is, in the file's order."""
    other = RUN_ONLY_KEYS if is_soak_file(data) else ("soak",) if "soak" in data else ()
    return tuple(str(key) for key in data if key in other)


def stray_message(key: str, *, soak: bool) -> tuple[str, str]:
    """What a stray key is, and what to do: (message, hint)."""
    if soak:
        return (
            f"{key}: a run plan's key, and this is a soak plan (it has soak:)",
            "remove it: a soak streams probes on its one path: as soak: says; tests go in "
            "a run plan of their own (docs/plan-format.md)",
        )
    return (
        f"{key}: a soak plan's key, and this is a run plan (it has paths: and tests:)",
        "remove it: a soak is a plan of its own, with one path: and soak: "
        "(docs/plan-format.md, Soak), run by `wirespeed soak`",
    )
