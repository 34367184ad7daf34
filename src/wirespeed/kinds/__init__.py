"""What each kind of trial does: one module per kind (iperf.py, rrul.py, bench.py,
forwarding.py, bounceback.py), each giving its hooks as objects (hooks.py), found by
catalog.py without a list of them. What each kind is, and the tools, are the lowest
layer's (wirespeed/trial_kind.py).

The layers below the kinds (the runner, the plan's checks and `expect:`, the benchmarks'
drivers) reach a kind's hooks through trial_kind.hooks_of, which whatever starts
wirespeed (the command line, the test suite, a benchmark script) wires here once with
`wire_hooks()`. Importing this package imports nothing else: the catalog, and with it the
run loop, the plan and the tools, is imported when a hook is first asked for, so
`wirespeed --help` stays fast.
"""

from __future__ import annotations

from wirespeed import trial_kind


def _hooks_of(tool: trial_kind.Tool) -> trial_kind.Hooks:
    from wirespeed.kinds.catalog import hooks_of

    return hooks_of(tool)


def wire_hooks() -> None:
    """Let the layers below find each kind's hooks in kinds/catalog.py."""
    trial_kind.install_hooks(_hooks_of)
