"""The settings of a test whose kind has an `options:` model of its own (its hooks'): a
benchmark, a search, a bounceback ... checked by that model.

The keys of an iperf test (protocol, direction, parallel ...) mean nothing to such a
kind: written in the test they are errors, inherited from `defaults:` they are ignored
(the defaults are the iperf tests').
"""

from __future__ import annotations

from pydantic import BaseModel

from wirespeed.model import BenchSpec, Tool, frozen_options
from wirespeed.plan.collect import Collector
from wirespeed.plan.schema import SETTING_KEYS, TestEntry
from wirespeed.plan.yamltree import Loc
from wirespeed.trial_kind import hooks_of, kind_of, tools


def describe_bench(tool: Tool) -> str:
    """What a test without a name is called in reports (its kind's title, else its tool)."""
    return kind_of(tool).title or tool


def options_model(tool: Tool) -> type[BaseModel] | None:
    """The model of the kind's `options:` (its hooks'); None: its settings are the test's
    own keys."""
    model = hooks_of(tool).options
    assert model is None or issubclass(model, BaseModel), model
    return model


def with_options() -> tuple[Tool, ...]:
    """The tools whose settings are an `options:` model of their own."""
    return tuple(tool for tool in tools() if options_model(tool) is not None)


def bench_spec(
    entry: TestEntry, tool: Tool, loc: Loc, out: Collector
) -> tuple[BenchSpec, BaseModel] | None:
    """The test's BenchSpec (as the store keeps it) and the same options as its kind's
    model (the test's settings), or None after each problem was recorded at its place."""
    ok = True
    for key in SETTING_KEYS:
        if key != "tool" and key in entry.model_fields_set:
            if tool.searches:
                why = "a forwarding search chooses its own loads, durations and frame sizes"
            elif not tool.moves_traffic:
                why = f"{tool} runs on one host"
            else:
                why = f"{tool} takes its settings under options:"
            out.error(
                (*loc, key),
                f"test {entry.id!r}: {why}: {key} does not apply",
                hint=f"remove {key}:, or set the test's own settings under options:",
                key=True,
            )
            ok = False
    model = options_model(tool)
    assert model is not None, f"{tool} takes no options:"
    options = out.validate(
        model, entry.options or {}, (*loc, "options"), entry=f"test {entry.id!r}"
    )
    if options is None or not ok:
        return None
    return BenchSpec(options=frozen_options(options.model_dump(mode="json"))), options
