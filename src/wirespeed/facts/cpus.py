"""CPU clusters: cores grouped by core type (/proc/cpuinfo) and by cpufreq policy.

On big.LITTLE SoCs the core type and the frequency domain usually agree (the RK3399:
cpu0-3 Cortex-A53 in policy0, cpu4-5 Cortex-A72 in policy4), but either may be missing:
x86 has no "CPU part", a VM has no cpufreq. A group is cores that share both.
"""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed.facts.model import Cluster
from wirespeed.facts.read import FactSource, read_int, read_value

CPU_DIR = "/sys/devices/system/cpu"

# ARM Ltd. (implementer 0x41) part numbers, as arch/arm64/include/asm/cputype.h lists them.
ARM_PARTS = {
    "0xc07": "Cortex-A7",
    "0xc09": "Cortex-A9",
    "0xc0f": "Cortex-A15",
    "0xd03": "Cortex-A53",
    "0xd04": "Cortex-A35",
    "0xd05": "Cortex-A55",
    "0xd07": "Cortex-A57",
    "0xd08": "Cortex-A72",
    "0xd09": "Cortex-A73",
    "0xd0a": "Cortex-A75",
    "0xd0b": "Cortex-A76",
    "0xd0c": "Neoverse-N1",
    "0xd0d": "Cortex-A77",
    "0xd41": "Cortex-A78",
    "0xd44": "Cortex-X1",
    "0xd46": "Cortex-A510",
    "0xd47": "Cortex-A710",
    "0xd48": "Cortex-X2",
}
ARM_IMPLEMENTER = "0x41"


@dataclass(frozen=True)
class CpuInfoEntry:
    processor: int
    implementer: str | None
    part: str | None
    model_name: str | None

    @property
    def core(self) -> str | None:
        if self.part is not None and self.implementer in (None, ARM_IMPLEMENTER):
            return ARM_PARTS.get(self.part.lower(), f"part {self.part}")
        if self.part is not None:
            return f"{self.implementer} part {self.part}"
        return self.model_name


def parse_cpuinfo(text: str) -> tuple[CpuInfoEntry, ...]:
    """One entry per `processor` block; the trailing board block (Hardware:, Model:) of
    32-bit ARM and Raspberry Pi kernels has no `processor` and is skipped."""
    entries = []
    for block in text.split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.splitlines():
            key, colon, value = line.partition(":")
            if colon:
                fields.setdefault(key.strip().lower(), value.strip())
        processor = fields.get("processor", "")
        if not processor.isdigit():
            continue
        entries.append(
            CpuInfoEntry(
                processor=int(processor),
                implementer=fields.get("cpu implementer"),
                part=fields.get("cpu part"),
                model_name=fields.get("model name"),
            )
        )
    return tuple(entries)


def parse_cpu_list(text: str | None) -> tuple[int, ...] | None:
    """A CPU list -> the CPUs: "0-3,6" -> (0, 1, 2, 3, 6); related_cpus uses spaces."""
    if text is None:
        return None
    cpus: list[int] = []
    try:
        for part in text.replace(",", " ").split():
            first, dash, last = part.partition("-")
            cpus.extend(range(int(first), int(last) + 1) if dash else [int(first)])
    except ValueError:
        return None
    return tuple(sorted(set(cpus)))


def parse_cpu_mask(mask: str | None) -> tuple[int, ...] | None:
    """A hex CPU mask as sysfs prints it ("3f", "00000000,00000030") -> the CPUs set."""
    if mask is None:
        return None
    try:
        value = int(mask.replace(",", ""), 16)
    except ValueError:
        return None
    return tuple(bit for bit in range(value.bit_length()) if value >> bit & 1)


def cpufreq_policies(source: FactSource) -> dict[int, tuple[str, int | None]]:
    """cpu -> (policy name, cpuinfo_max_freq in kHz)."""
    found: dict[int, tuple[str, int | None]] = {}
    for policy in source.list_dir(f"{CPU_DIR}/cpufreq") or ():
        if not policy.startswith("policy"):
            continue
        base = f"{CPU_DIR}/cpufreq/{policy}"
        cpus = parse_cpu_list(read_value(source, f"{base}/related_cpus"))
        max_khz = read_int(source, f"{base}/cpuinfo_max_freq")
        for cpu in cpus or ():
            found[cpu] = (policy, max_khz)
    return found


def read_clusters(source: FactSource) -> tuple[tuple[Cluster, ...], int | None, bool]:
    """(clusters, number of CPUs, whether cpufreq is there)."""
    text = source.read("/proc/cpuinfo")
    entries = parse_cpuinfo(text) if text else ()
    policies = cpufreq_policies(source)
    if not entries:
        online = parse_cpu_list(read_value(source, f"{CPU_DIR}/online")) or ()
        entries = tuple(CpuInfoEntry(cpu, None, None, None) for cpu in online)
    groups: dict[tuple[str | None, str | None, str | None], list[int]] = {}
    for entry in entries:
        policy = policies.get(entry.processor, (None, None))[0]
        groups.setdefault((entry.core, entry.part, policy), []).append(entry.processor)
    clusters = []
    for (core, part, policy), cpus in groups.items():
        first = min(cpus)
        clusters.append(
            Cluster(
                cpus=tuple(sorted(cpus)),
                core=core,
                part=part,
                max_khz=policies.get(first, (None, None))[1],
                capacity=read_int(source, f"{CPU_DIR}/cpu{first}/cpu_capacity"),
                policy=policy,
            )
        )
    clusters.sort(key=lambda c: c.cpus[0])
    return tuple(clusters), (len(entries) or None), bool(policies)
