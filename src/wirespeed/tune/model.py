"""A tuning plan as frozen values: which knob, from what, to what, and why.

A Change names its knob by `path`: a procfs/sysfs file from the allow-list in
tune/targets.py (`/proc/irq/27/smp_affinity`), or an offload as `ethtool:IF:FEATURE`
(`ethtool:eth0:generic-receive-offload`), which has no file and is set with
`ethtool -K IF FEATURE on|off`.
"""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed.facts.cpus import parse_cpu_mask


@dataclass(frozen=True)
class Change:
    path: str
    old: str | None  # as the facts showed it; None when it could not be read there
    new: str
    why: str
    subject: str = ""  # for people: "IRQ 27 (eth0)", "RPS eth0 rx-0"; the path if empty

    def __post_init__(self) -> None:
        if not self.path or not self.new:
            raise ValueError("a change needs a path and a new value")


@dataclass(frozen=True)
class Assignment:
    """One NIC and the CPU its packets are steered to."""

    nic: str
    cpu: int
    irqs: tuple[int, ...]  # the IRQs that carry its packets (a USB NIC: the controller's)
    shared_irqs: tuple[int, ...] = ()  # of those, IRQs another NIC already placed


@dataclass(frozen=True)
class TunePlan:
    source: str  # whose facts: "this machine", "tree tests/fixtures/boards/r4s"
    candidates: tuple[int, ...]  # the CPUs chosen from, best first
    assignments: tuple[Assignment, ...]
    changes: tuple[Change, ...]  # only knobs whose value differs from the plan's
    kept: tuple[Change, ...]  # knobs already as the plan wants them (old == new)
    warnings: tuple[str, ...]


def mask_of(cpus: tuple[int, ...] | list[int]) -> str:
    """(4,) -> "10": the hex mask sysfs takes, lower case, no leading zeros."""
    value = 0
    for cpu in cpus:
        value |= 1 << cpu
    return f"{value:x}"


def cpus_text(mask: str | None) -> str:
    """ "3f" -> "cpus 0-5", "10" -> "cpu 4", "0" -> "off"; unreadable -> "unknown"."""
    if mask is None:
        return "unknown"
    cpus = parse_cpu_mask(mask)
    if cpus is None:
        return "not a mask"
    if not cpus:
        return "off"
    return ("cpu " if len(cpus) == 1 else "cpus ") + cpu_list(cpus)


def cpu_list(cpus: tuple[int, ...]) -> str:
    """(0, 1, 2, 3, 5) -> "0-3,5", as smp_affinity_list writes it."""
    runs: list[str] = []
    start = prev = cpus[0] if cpus else 0
    for cpu in [*cpus[1:], None]:
        if cpu is not None and cpu == prev + 1:
            prev = cpu
            continue
        runs.append(f"{start}-{prev}" if prev != start else f"{start}")
        if cpu is not None:
            start = prev = cpu
    return ",".join(runs) if cpus else ""


def same_mask(a: str | None, b: str | None) -> bool:
    """Equal as CPU sets: sysfs pads masks ("00000010" on some kernels, "10" on others)."""
    if a is None or b is None:
        return False
    return parse_cpu_mask(a) == parse_cpu_mask(b) and parse_cpu_mask(a) is not None
