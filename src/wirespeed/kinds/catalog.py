"""Every kind's hooks (kinds/hooks.py), by the tool a test names: one module per kind
gives them, and this is the one list of those modules.

Importing this imports every kind's module and what their hooks are made of (the run
loop, the plan, the tools' drivers): the command line imports it inside the functions
that need it, so `wirespeed --help` stays fast. Every kind of the registry has its hooks
here, checked when this module is imported, so asking never finds nothing.
"""

from __future__ import annotations

from wirespeed.kinds import bench, bounceback, forwarding, iperf, rrul
from wirespeed.kinds.hooks import KindHooks
from wirespeed.kinds.registry import KINDS, Tool
from wirespeed.model import TestCase
from wirespeed.plan.estimates import OVERHEAD_SECONDS

HOOKS: tuple[KindHooks, ...] = (
    *iperf.HOOKS,
    *rrul.HOOKS,
    *bench.HOOKS,
    *forwarding.HOOKS,
    *bounceback.HOOKS,
)


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
