"""Every kind, by the tool a test names: each module of this package but hooks.py and this
one is a kind's, and gives what it is and what it does as HOOKS (kinds/hooks.py: each
carries its TrialKind); they are found here without a list of them, so a new kind is its
own module. The tools a plan may name are those these kinds serve.

Importing this imports every kind's module and what their hooks are made of (the run
loop, the plan, the tools' drivers): the command line imports it inside the functions
that need it, and the layers below reach it through trial_kind (tools, kind_of,
hooks_of), so `wirespeed --help` stays fast.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Sequence

from wirespeed import kinds
from wirespeed.kinds.hooks import KindHooks
from wirespeed.model import TestCase
from wirespeed.plan.estimates import OVERHEAD_SECONDS
from wirespeed.trial_kind import Tool

_NOT_A_KIND = {"catalog", "hooks"}


def found() -> tuple[KindHooks, ...]:
    """The HOOKS of each kind's module of this package, in the order of their names."""
    given: list[KindHooks] = []
    for module in sorted(pkgutil.iter_modules(kinds.__path__), key=lambda m: m.name):
        if module.name in _NOT_A_KIND:
            continue
        hooks = vars(importlib.import_module(f"{kinds.__name__}.{module.name}")).get("HOOKS")
        assert isinstance(hooks, tuple), f"kinds/{module.name}.py gives no HOOKS"
        assert all(isinstance(each, KindHooks) for each in hooks), module.name
        given.extend(hooks)
    return tuple(given)


def by_tool(given: Sequence[KindHooks]) -> dict[Tool, KindHooks]:
    """Each tool's kind's hooks: a tool served by two kinds, or a kind given twice, is
    refused when the catalog is made."""
    tools = [tool for hooks in given for tool in hooks.kind.tools]
    kinds_given = [hooks.kind.name for hooks in given]
    twice = sorted({str(tool) for tool in tools if tools.count(tool) > 1})
    named_twice = sorted({name for name in kinds_given if kinds_given.count(name) > 1})
    assert not twice and not named_twice, f"tools served twice {twice}, kinds {named_twice}"
    return {tool: hooks for hooks in given for tool in hooks.kind.tools}


HOOKS: tuple[KindHooks, ...] = found()
BY_TOOL = by_tool(HOOKS)


def hooks_of(tool: Tool) -> KindHooks:
    """The hooks of the kind that serves `tool`: every tool a kind serves has them."""
    return BY_TOOL[tool]


def kind_seconds(test: TestCase, in_lab: bool = True) -> float:
    """The seconds one trial of `test` runs, as its kind estimates them."""
    return hooks_of(test.tool).estimate(test, in_lab)


def trial_seconds(test: TestCase, in_lab: bool = True) -> float:
    """The seconds one trial of `test` takes, the harness's overhead counted."""
    return kind_seconds(test, in_lab) + OVERHEAD_SECONDS
