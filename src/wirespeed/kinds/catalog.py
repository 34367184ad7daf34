"""Every kind's hooks (kinds/hooks.py), by the tool a test names: each module of this
package but hooks.py and this one is a kind's, and gives them as HOOKS; they are found
here without a list of them, so a new kind is its own module.

Importing this imports every kind's module and what their hooks are made of (the run
loop, the plan, the tools' drivers): the command line imports it inside the functions
that need it, and the layers below reach it through trial_kind.hooks_of, so `wirespeed
--help` stays fast. Every kind of trial_kind.KINDS has its hooks here, checked when this
module is imported, so asking never finds nothing.
"""

from __future__ import annotations

import importlib
import pkgutil

from wirespeed import kinds
from wirespeed.kinds.hooks import KindHooks
from wirespeed.model import TestCase
from wirespeed.plan.estimates import OVERHEAD_SECONDS
from wirespeed.trial_kind import KINDS, Tool

_NOT_A_KIND = {"catalog", "hooks"}


def _found() -> tuple[KindHooks, ...]:
    """The HOOKS of each kind's module of this package, in the order of their names."""
    found: list[KindHooks] = []
    for module in sorted(pkgutil.iter_modules(kinds.__path__), key=lambda m: m.name):
        if module.name in _NOT_A_KIND:
            continue
        hooks = vars(importlib.import_module(f"{kinds.__name__}.{module.name}")).get("HOOKS")
        assert isinstance(hooks, tuple), f"kinds/{module.name}.py gives no HOOKS"
        assert all(isinstance(each, KindHooks) for each in hooks), module.name
        found.extend(hooks)
    return tuple(found)


HOOKS: tuple[KindHooks, ...] = _found()


def _by_tool() -> dict[Tool, KindHooks]:
    given = [hooks.kind for hooks in HOOKS]
    missing = [kind.name for kind in KINDS if kind not in given]
    twice = {kind.name for kind in given if given.count(kind) > 1}
    assert not missing and not twice, f"kinds without hooks {missing}, given twice {twice}"
    return {tool: hooks for hooks in HOOKS for tool in hooks.kind.tools}


_BY_TOOL = _by_tool()


def hooks_of(tool: Tool) -> KindHooks:
    """The hooks of the kind that serves `tool`: every Tool's kind has them."""
    return _BY_TOOL[tool]


def kind_seconds(test: TestCase, in_lab: bool = True) -> float:
    """The seconds one trial of `test` runs, as its kind estimates them."""
    return hooks_of(test.tool).estimate(test, in_lab)


def trial_seconds(test: TestCase, in_lab: bool = True) -> float:
    """The seconds one trial of `test` takes, the harness's overhead counted."""
    return kind_seconds(test, in_lab) + OVERHEAD_SECONDS
