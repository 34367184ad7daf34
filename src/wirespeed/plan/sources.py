"""Where a plan comes from: a file, a plan shipped with wirespeed by name, or stdin.

    plan_from_argument("examples/seed-matrix.yaml")   # a file
    plan_from_argument("seed-matrix")                 # built in (the file wins if one exists)
    plan_from_argument("-", sys.stdin.buffer)         # piped in

The built-in plans are YAML files in the `builtin` folder beside this module, shipped in
the package; `examples/` links to them, so there is one copy of each.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import BinaryIO

from wirespeed.errors import UsageError
from wirespeed.plan.load import (
    MAX_PLAN_BYTES,
    display_path,
    parse_plan,
    parse_plan_bytes,
    plan_text,
    read_plan_file,
)
from wirespeed.plan.plan import Plan
from wirespeed.plan.problems import did_you_mean

STDIN = "-"
STDIN_SOURCE = "<stdin>"
_SUFFIX = ".yaml"


def builtin_names() -> list[str]:
    folder = resources.files("wirespeed.plan") / "builtin"
    return sorted(
        entry.name.removesuffix(_SUFFIX)
        for entry in folder.iterdir()
        if entry.name.endswith(_SUFFIX)
    )


def builtin_text(name: str) -> str:
    if name not in builtin_names():
        raise _unknown(name, as_file=False)
    resource = resources.files("wirespeed.plan") / "builtin" / f"{name}{_SUFFIX}"
    return resource.read_text(encoding="utf-8")


def builtin_source(name: str) -> str:
    """How messages and the store name a built-in plan."""
    return f"<built-in {name}>"


def load_builtin(name: str) -> Plan:
    text = builtin_text(name)
    return parse_plan_bytes(text.encode("utf-8"), builtin_source(name))


def plan_from_argument(argument: str, stdin: BinaryIO | None = None) -> Plan:
    """PLAN as `run` and `check` take it: `-` for stdin, a file, or a built-in plan's
    name. A bare word that is neither is an error listing the built-in plans (a mistyped
    name is never taken for something else)."""
    return parse_plan(*plan_text_from_argument(argument, stdin))


def plan_text_from_argument(argument: str, stdin: BinaryIO | None = None) -> tuple[str, str]:
    """PLAN's text and how messages name it, whatever the plan is (`soak` reads its
    plans here too): from stdin, a file, or a built-in plan."""
    if argument == STDIN:
        if stdin is None:
            raise UsageError("no standard input to read the plan from")
        return plan_text(stdin.read(MAX_PLAN_BYTES + 1), STDIN_SOURCE), STDIN_SOURCE
    if _is_bare_name(argument) and not _exists(argument):
        if argument in builtin_names():
            return builtin_text(argument), builtin_source(argument)
        raise _unknown(argument)
    return read_plan_file(Path(argument))


def _is_bare_name(argument: str) -> bool:
    return "/" not in argument and not argument.endswith((".yaml", ".yml"))


def _exists(argument: str) -> bool:
    try:
        return Path(argument).exists()
    except (OSError, ValueError):  # a NUL in the name: no file has it
        return False


def _unknown(name: str, *, as_file: bool = True) -> UsageError:
    names = builtin_names()
    shown = display_path(Path(name))
    return UsageError(
        f"{shown}: {'no such plan file, and ' if as_file else ''}no built-in plan of that name"
        f"{did_you_mean(name, names)}",
        hint=f"built-in plans: {', '.join(names)} (`wirespeed plans` describes them)",
    )
