"""A test's effective settings: its own keys, else `defaults:`, else the built-in defaults.

Each setting remembers where it came from, so a problem with a value that a test
inherited is reported at `defaults:`, where the user has to change it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from wirespeed.model import Direction, Probes, Proto, TestCase, TestSpec, Tool
from wirespeed.plan.schema import SETTING_KEYS, TestEntry, TestSettings
from wirespeed.plan.yamltree import Loc
from wirespeed.units import format_rate

# What a key left out everywhere means. The iperf defaults (window, rate, length) are left
# to the tool, so None reaches the argv builders and no option is passed.
BUILT_IN: dict[str, Any] = {
    "tool": Tool.IPERF2,
    "protocol": Proto.TCP,
    "duration": 10.0,
    "parallel": 1,
    "direction": Direction.UP,
    "interval": 1.0,
}
# An RRUL test's own defaults (flent's): four streams each way at once, probed.
RRUL_DEFAULTS: dict[str, Any] = {
    "parallel": 4,
    "direction": Direction.BIDIR,
    "probes": Probes.IRTT,
}


@dataclass(frozen=True)
class ResolvedTest:
    """A test of the plan with its effective settings and where each one was written."""

    case: TestCase
    loc: Loc  # the test's entry: ("tests", 3)
    origins: dict[str, Loc]  # setting -> loc of the value in force; absent: built-in
    paths: tuple[str, ...] | None  # `paths:` of the test; None: every path

    def where(self, setting: str) -> Loc:
        """Where to point at for a problem with this setting."""
        return self.origins.get(setting, self.loc)


def resolve(entry: TestEntry, loc: Loc, defaults: TestSettings) -> ResolvedTest:
    """Merge one test with the defaults; raise ModelError if the result cannot exist."""
    values: dict[str, Any] = {}
    origins: dict[str, Loc] = {}
    for key in SETTING_KEYS:
        # An explicit `window: null` in a test overrides a window in defaults.
        if key in entry.model_fields_set:
            values[key] = getattr(entry, key)
            origins[key] = (*loc, key)
        elif key in defaults.model_fields_set:
            values[key] = getattr(defaults, key)
            origins[key] = ("defaults", key)
        else:
            values[key] = BUILT_IN.get(key)
    tool = values.pop("tool")
    if tool is Tool.RRUL:
        _rrul_defaults(values, origins)
    spec = TestSpec(**{key: value for key, value in values.items() if value is not None})
    name = entry.name if entry.name is not None else describe(tool, spec)
    case = TestCase(id=entry.id, name=name, tool=tool, spec=spec)
    paths = tuple(entry.paths) if entry.paths is not None else None
    return ResolvedTest(case=case, loc=loc, origins=origins, paths=paths)


def _rrul_defaults(values: dict[str, Any], origins: dict[str, Loc]) -> None:
    """RRUL's own defaults where the test sets nothing. `defaults:` speaks for the plan's
    iperf tests: its direction, protocol and streams are not an RRUL test's (its
    probes, duration and congestion control are)."""
    for key in ("direction", "protocol", "parallel"):
        if origins.get(key, ("",))[0] == "defaults":
            del origins[key]
            values[key] = BUILT_IN.get(key)
    for key, value in RRUL_DEFAULTS.items():
        if key not in origins:
            values[key] = value


def describe(tool: Tool, spec: TestSpec) -> str:
    """A name for a test that has none: 'TCP, 2 streams, dual', 'UDP 1000.0 Mbit/s'."""
    if tool is Tool.RRUL:
        return f"RRUL, {spec.parallel} streams each way"
    words = [spec.protocol.value.upper()]
    if spec.rate is not None:
        words[0] += f" {format_rate(spec.rate)}"
    if spec.window is not None:
        words.append(f"window {_size(spec.window)}")
    if spec.length is not None:
        words.append(f"length {_size(spec.length)}")
    if spec.parallel > 1:
        words.append(f"{spec.parallel} streams")
    if spec.direction is not Direction.UP:
        words.append(spec.direction.value)
    if spec.mtu is not None:
        words.append(f"MTU {spec.mtu}")
    if tool is not Tool.IPERF2:
        words.append(tool)
    return ", ".join(words)


def _size(size: int) -> str:
    for unit, scale in (("M", 2**20), ("K", 2**10)):
        if size % scale == 0:
            return f"{size // scale}{unit}"
    return f"{size} B"
