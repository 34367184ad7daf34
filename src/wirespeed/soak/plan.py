"""Soak plan files: where the stream runs (a lab path or real hosts) and `soak:`.

    title: Router soak, two injected outages
    lab: {link: gbe}
    path: {name: R, topology: router}
    soak:
      duration: 40s        # how long the stream runs (a number is seconds; 10m, 14h)
      interval: 10ms       # one probe each way every interval (100 packets/s)
      chunk: 60s           # irtt runs this long; what a killed soak loses at most
      outage: 10           # consecutive lost probes that make an outage
      match_window: 2s     # kernel events this near an outage are matched with it
      ethtool: [wan]       # DUT interfaces whose `ethtool -S` counters are read per chunk
      bursts: {every: 10m, duration: 30s}   # iperf3 load on a schedule (optional)
      faults:              # lab only: outages of known start and length
        - {at: 10s, down: 3.2s, kind: link}
        - {at: 25s, down: 1.5s, kind: forwarding}

On real hosts, `path:` names `client`, `server` (both run irtt) and `dut` (whose kernel
log and counters are followed, over SSH) from `hosts:`, as docs/plan-format.md says.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationError, model_validator

from wirespeed.errors import UsageError
from wirespeed.plan.schema import Entry, HostEntry, LabEntry, PathEntry
from wirespeed.plan.yamltree import YamlProblem, load_yaml
from wirespeed.soak.outages import DEFAULT_THRESHOLD

__all__ = ["BurstEntry", "FaultEntry", "SoakEntry", "SoakFile", "parse_soak_plan", "seconds"]

MAX_SOAK = 7 * 86400.0
_UNITS = {"ms": 1e-3, "s": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0, "d": 86400.0}
_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(ms|s|min|m|h|d)?\s*$")


def seconds(value: object) -> float:
    """10, 0.5, "10ms", "60s", "10m", "14h" -> seconds."""
    if isinstance(value, bool):
        raise ValueError("a duration is a number of seconds or a text like 10m")
    if isinstance(value, (int, float)):
        return float(value)
    found = _DURATION.match(str(value))
    if not found:
        raise ValueError(f"{value!r} is no duration (write 10ms, 60s, 10m, 14h)")
    return float(found[1]) * _UNITS[found[2] or "s"]


Seconds = Annotated[float, BeforeValidator(seconds), Field(gt=0, le=MAX_SOAK)]
At = Annotated[float, BeforeValidator(seconds), Field(ge=0, le=MAX_SOAK)]


class FaultEntry(Entry):
    at: At
    down: Annotated[float, BeforeValidator(seconds), Field(gt=0, le=600)]
    kind: str = "link"

    @model_validator(mode="after")
    def _kind(self) -> FaultEntry:
        if self.kind not in ("link", "forwarding"):
            raise ValueError("kind: link or forwarding")
        return self


class BurstEntry(Entry):
    every: Seconds
    duration: Seconds
    parallel: Annotated[int, Field(ge=1, le=16)] = 1


class SoakEntry(Entry):
    duration: Seconds
    interval: Annotated[float, BeforeValidator(seconds), Field(ge=0.001, le=1.0)] = 0.01
    chunk: Annotated[float, BeforeValidator(seconds), Field(ge=5, le=3600)] = 60.0
    outage: Annotated[int, Field(ge=1, le=100000)] = DEFAULT_THRESHOLD
    match_window: Annotated[float, BeforeValidator(seconds), Field(ge=0, le=600)] = 2.0
    port: Annotated[int, Field(ge=1, le=65535)] = 2112
    dut_access: str = "netns"  # lab only: "ssh" makes the DUT a dropbear + busybox device
    ethtool: list[str] | None = None
    bursts: BurstEntry | None = None
    faults: list[FaultEntry] = Field(default_factory=list)


class SoakFile(Entry):
    title: str | None = None
    lab: LabEntry | None = None
    hosts: dict[str, HostEntry] = Field(default_factory=dict)
    path: PathEntry
    soak: SoakEntry

    @model_validator(mode="after")
    def _where(self) -> SoakFile:
        named = self.path.client or self.path.server
        if named is None and self.lab is None:
            raise ValueError("a path without hosts runs in the lab: add `lab:`")
        if named is not None and self.soak.faults:
            raise ValueError("faults: are injected into a lab DUT only")
        if self.path.topology not in ("router", "nat", "bridge"):
            raise ValueError("a soak's path forwards: topology router, nat or bridge")
        return self


def parse_soak_plan(text: str, source: str = "<soak plan>") -> SoakFile:
    try:
        document: Any = load_yaml(text).data
    except YamlProblem as problem:
        raise UsageError(f"{source}: {problem}") from None
    if not isinstance(document, dict):
        raise UsageError(f"{source}: a soak plan is a mapping (title, lab, path, soak)")
    try:
        return SoakFile.model_validate(document)
    except ValidationError as error:
        said = "; ".join(
            f"{'.'.join(str(part) for part in problem['loc'])}: {problem['msg']}"
            for problem in error.errors()
        )
        raise UsageError(f"{source}: {said}") from None
