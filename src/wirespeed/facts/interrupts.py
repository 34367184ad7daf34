"""/proc/interrupts as the facts see it: per-CPU counts, the controller as printed, and the
action names per IRQ.

The parsing is wirespeed.procfs_interrupts' (shared with the sampler); this is its view
for the facts: None where a line says nothing, the hardware IRQ as the line prints it
(x86's "5-edge" stays one word, so the controller reads as in the file), and the names
split per action:

    27:  10628015  0 ...   GICv3  44 Level     eth0           controller "GICv3 44 Level"
    24:         1  0       IO-APIC   5-edge      ACPI:Ged     controller "IO-APIC 5-edge"
    47:         0  0 ...   GICv3 151 Level     ff8f3f00.iommu, ff8f0000.vop  two names
"""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed import procfs_interrupts


@dataclass(frozen=True)
class InterruptLine:
    irq: str  # "27", or a per-CPU kind like "IPI0", "NMI", "LOC"
    counts: tuple[int, ...]  # one per CPU column (fewer for lines like "Err:")
    chip: str | None
    hwirq: str | None  # as printed: "44", or x86's "5-edge" (hwirq and trigger in one word)
    trigger: str | None  # "Level"/"Edge" when printed as a word of its own
    names: tuple[str, ...]  # the actions sharing this IRQ

    @classmethod
    def of(cls, line: procfs_interrupts.IrqLine) -> InterruptLine:
        if not line.numbered:
            # Per-CPU kinds ("IPI0:", "LOC:") carry a description, not device names.
            return cls(line.irq, line.counts, None, None, None, (line.name,) if line.name else ())
        hwirq: str | None = line.hwirq or None
        trigger: str | None = line.trigger or None
        if line.joined:
            hwirq, trigger = f"{line.hwirq}-{line.trigger}", None
        return cls(line.irq, line.counts, line.chip or None, hwirq, trigger, line.actions)

    @property
    def number(self) -> int | None:
        return int(self.irq) if self.irq.isdigit() else None

    @property
    def controller(self) -> str | None:
        """How the line describes its source, e.g. "GICv3 44 Level"."""
        parts = [p for p in (self.chip, self.hwirq, self.trigger) if p]
        return " ".join(parts) or None


@dataclass(frozen=True)
class InterruptTable:
    cpus: tuple[int, ...]  # CPU numbers of the columns, from the header (offline CPUs leave gaps)
    lines: tuple[InterruptLine, ...]

    def by_number(self, number: int) -> InterruptLine | None:
        for line in self.lines:
            if line.number == number:
                return line
        return None


def parse_interrupts(text: str) -> InterruptTable:
    table = procfs_interrupts.parse_interrupts(text)
    return InterruptTable(cpus=table.cpus, lines=tuple(map(InterruptLine.of, table.lines)))
