"""The kinds of trial: what each is (kinds/registry.py, the lowest layer) and, one module
per kind above the run loop, what it does (its hooks).

`from wirespeed.kinds import Tool, kind_of ...` is the registry's data, and importing it
imports nothing else of wirespeed: model.py takes its `Tool` from here, and `wirespeed
--help` stays fast (tests/unit/test_kinds.py checks both in a fresh interpreter).
"""

from __future__ import annotations

from wirespeed.kinds.registry import (
    KINDS,
    Figures,
    Measures,
    Tool,
    TrialKind,
    kind_of,
    resolve,
    with_options,
)

__all__ = [
    "KINDS",
    "Figures",
    "Measures",
    "Tool",
    "TrialKind",
    "kind_of",
    "resolve",
    "with_options",
]
