"""A benchmark test's settings: its `options:` checked by the driver's own schema.

The keys of a traffic test (protocol, direction, parallel ...) mean nothing to a
benchmark that runs on one host: written in the test they are errors, inherited from
`defaults:` they are ignored (the defaults are the traffic tests').
"""

from __future__ import annotations

from pydantic import BaseModel

from wirespeed.model import BenchSpec, Tool, frozen_options
from wirespeed.plan.collect import Collector
from wirespeed.plan.schema import SETTING_KEYS, TestEntry
from wirespeed.plan.yamltree import Loc

# What a test without a name is called in reports.
_NAMES = {
    Tool.OPENSSL: "openssl speed",
    Tool.SEVENZIP: "7-zip benchmark",
    Tool.UNIXBENCH: "UnixBench",
    Tool.FORWARDING: "forwarding rate",
}


def describe_bench(tool: Tool) -> str:
    return _NAMES.get(tool, tool.value)


def _options_model(tool: Tool) -> type[BaseModel]:
    if tool.searches:
        from wirespeed.plan.forwarding import ForwardingOptions

        return ForwardingOptions
    from wirespeed.tools.bench import bench_driver_for

    return bench_driver_for(tool).Options


def bench_spec(entry: TestEntry, tool: Tool, loc: Loc, out: Collector) -> BenchSpec | None:
    """The test's BenchSpec, or None after each problem was recorded at its place."""
    ok = True
    for key in SETTING_KEYS:
        if key != "tool" and key in entry.model_fields_set:
            why = (
                "a forwarding search chooses its own loads, durations and frame sizes"
                if tool.searches
                else f"{tool.value} runs on one host"
            )
            out.error(
                (*loc, key),
                f"test {entry.id!r}: {why}: {key} does not apply",
                hint=f"remove {key}:, or set the test's own settings under options:",
                key=True,
            )
            ok = False
    options = out.validate(
        _options_model(tool), entry.options or {}, (*loc, "options"), entry=f"test {entry.id!r}"
    )
    if options is None or not ok:
        return None
    return BenchSpec(options=frozen_options(options.model_dump(mode="json")))
