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
    variants:              # lab only, optional: one soak per state, one after the other
      - {name: gro-on, offloads: {gro: on}}
      - {name: gro-off, offloads: {gro: off}}

On real hosts, `path:` names `client`, `server` (both run irtt) and `dut` (whose kernel
log and counters are followed, over SSH) from `hosts:`, as docs/plan-format.md says.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator, Field, ValidationError, model_validator

from wirespeed.errors import UsageError
from wirespeed.plan.plan import Variant
from wirespeed.plan.schema import Entry, HostEntry, LabEntry, PathEntry, VariantEntry
from wirespeed.plan.yamltree import Document, YamlProblem, load_yaml
from wirespeed.soak.outages import DEFAULT_THRESHOLD

__all__ = [
    "BurstEntry",
    "FaultEntry",
    "SoakEntry",
    "SoakFile",
    "parse_soak_plan",
    "seconds",
    "soak_variants",
]

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
    variants: list[VariantEntry] | None = None

    @model_validator(mode="after")
    def _where(self) -> SoakFile:
        named = self.path.client or self.path.server
        if named is None and self.lab is None:
            raise ValueError("a path without hosts runs in the lab: add `lab:`")
        ported = sorted(name for name, host in self.hosts.items() if host.port is not None)
        if ported:
            # Without the move, both ends would be this machine over loopback.
            raise ValueError(
                f"hosts: {', '.join(ported)}: a port of this machine is a host of "
                "`wirespeed run` only; a soak does not move ports into namespaces"
            )
        prefixed = sorted(n for n, h in self.hosts.items() if h.address and "/" in h.address)
        if prefixed:
            raise ValueError(
                f"hosts: {', '.join(prefixed)}: an address with a prefix belongs to a port "
                "of this machine; write the address alone"
            )
        if named is not None and self.soak.faults:
            raise ValueError("faults: are injected into a lab DUT only")
        if self.path.topology not in ("router", "nat", "bridge"):
            raise ValueError("a soak's path forwards: topology router, nat or bridge")
        if self.variants is not None:
            _check_variants(self.variants, on_real_hosts=named is not None)
        return self


# What a lab soak's variant may set: the lab's links. A soak has no tunnel, and the lab
# DUT's CPUs are this machine's.
_SOAK_VARIANT_KEYS = ("name", "mtu", "rps", "xps", "offloads")


def _check_variants(variants: list[VariantEntry], *, on_real_hosts: bool) -> None:
    if not variants:
        raise ValueError(
            "variants: the list is empty (leave the key out to soak in the one, unchanged state)"
        )
    if on_real_hosts:
        raise ValueError(
            "variants: are applied to a lab DUT only; on real hosts soak once per state "
            "and compare the soaks with `wirespeed soak --compare A B`"
        )
    seen: set[str] = set()
    for variant in variants:
        if variant.name in seen:
            raise ValueError(f"variants: duplicate variant name {variant.name!r}")
        seen.add(variant.name)
        other = sorted(key for key in variant.model_fields_set if key not in _SOAK_VARIANT_KEYS)
        if other:
            raise ValueError(
                f"variants: {variant.name!r} sets {', '.join(other)}: a soak's variant sets "
                f"the lab's {', '.join(_SOAK_VARIANT_KEYS[1:])}"
            )


def soak_variants(plan: SoakFile) -> tuple[Variant, ...]:
    """The plan's variants in the order written; () when it has none."""
    return tuple(
        Variant(
            name=entry.name,
            mtu=entry.mtu,
            rps=entry.rps,
            xps=entry.xps,
            offloads=tuple((entry.offloads or {}).items()),
        )
        for entry in plan.variants or ()
    )


def parse_soak_plan(text: str, source: str = "<soak plan>") -> SoakFile:
    """The plan, or UsageError with every problem as `source:line:column: what`."""
    try:
        document = load_yaml(text)
    except YamlProblem as problem:
        raise UsageError(f"{source}: {problem}") from None
    if not isinstance(document.data, dict):
        raise UsageError(f"{source}: a soak plan is a mapping (title, lab, path, soak)")
    try:
        return SoakFile.model_validate(document.data)
    except ValidationError as error:
        said = [_problem(document, source, problem) for problem in error.errors()]
        raise UsageError("\n".join(said)) from None


def _problem(document: Document, source: str, problem: Any) -> str:
    loc = tuple(problem["loc"])
    message = str(problem["msg"]).removeprefix("Value error, ")
    if not loc:
        # The whole file's checks name the key they are about first ("variants: ...").
        key = message.split(":", 1)[0]
        loc = (key,) if key in document.data else ()
    where = document.position_of(loc, key=True)
    at = f"{source}:{where[0]}:{where[1]}" if where else source
    name = ".".join(str(part) for part in loc)
    if not name or message.startswith(name):
        return f"{at}: {message}"
    return f"{at}: {name}: {message}"
