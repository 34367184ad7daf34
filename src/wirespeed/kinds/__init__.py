"""What each kind of trial is and does: one module per kind (iperf.py, rrul.py, bench.py
...), each giving its TrialKind and its hooks as objects (hooks.py), found by catalog.py
without a list of them. The tools a plan may name
are those these modules serve; what a kind is (trial_kind.TrialKind) and the questions
asked of it are the lowest layer's (wirespeed/trial_kind.py).

The layers below the kinds (the runner, the plan's checks and `expect:`, the benchmarks'
drivers) reach the kinds through trial_kind (tools, kind_of, hooks_of), which whatever
starts wirespeed (the command line, the test suite, a benchmark script) wires here once
with `wire_hooks()`. Importing this package imports nothing else: the catalog, and with it
the run loop, the plan and the tools, is imported when a kind is first asked for, so
`wirespeed --help` stays fast.
"""

from __future__ import annotations

from collections.abc import Mapping

from wirespeed import trial_kind


def _by_tool() -> Mapping[trial_kind.Tool, trial_kind.Hooks]:
    from wirespeed.kinds.catalog import BY_TOOL

    return BY_TOOL


def wire_hooks() -> None:
    """Let the layers below find each kind, and the tools they serve, in kinds/catalog.py."""
    trial_kind.install_hooks(_by_tool)
