"""/proc/interrupts as data: per-CPU counts, the controller, and the action names per IRQ.

The tail after the counts differs by architecture and kernel:

    27:  10628015  0 ...   GICv3  44 Level     eth0                      (arm64)
   234:    855861  0 ...   ITS-MSI 524288 Edge      eth1                 (PCIe MSI)
    24:         1  0       IO-APIC   5-edge      ACPI:Ged                (x86: hwirq-type)
    65:         0  0 ...   rockchip_gpio_irq   5 Edge      GPIO Key Power (a name with spaces)
    47:         0  0 ...   GICv3 151 Level     ff8f3f00.iommu, ff8f0000.vop  (shared IRQ)

so the name is whatever follows the controller, the hardware IRQ and (when it is a word of
its own) the trigger; a shared IRQ lists its actions separated by ", ".
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADER_CPU = re.compile(r"CPU(\d+)")
_TAIL = re.compile(
    r"^(?P<chip>\S+)\s+(?P<hwirq>\S+)(?:\s+(?P<trigger>Level|Edge))?(?:\s+(?P<name>.*))?$"
)


@dataclass(frozen=True)
class InterruptLine:
    irq: str  # "27", or a per-CPU kind like "IPI0", "NMI", "LOC"
    counts: tuple[int, ...]  # one per CPU column (fewer for lines like "Err:")
    chip: str | None
    hwirq: str | None
    trigger: str | None
    names: tuple[str, ...]  # the actions sharing this IRQ

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
    rows = text.splitlines()
    if not rows:
        return InterruptTable(cpus=(), lines=())
    cpus = tuple(int(n) for n in _HEADER_CPU.findall(rows[0]))
    lines = []
    for row in rows[1:]:
        line = _parse_line(row, len(cpus))
        if line is not None:
            lines.append(line)
    return InterruptTable(cpus=cpus, lines=tuple(lines))


def _parse_line(row: str, columns: int) -> InterruptLine | None:
    label, colon, rest = row.partition(":")
    if not colon or not label.strip():
        return None
    fields = rest.split()
    counts: list[int] = []
    while fields and len(counts) < columns and fields[0].isdigit():
        counts.append(int(fields.pop(0)))
    tail = " ".join(fields)
    chip = hwirq = trigger = None
    names: tuple[str, ...] = ()
    match = _TAIL.match(tail)
    if match and label.strip().isdigit():
        chip, hwirq, trigger = match["chip"], match["hwirq"], match["trigger"]
        names = tuple(n.strip() for n in (match["name"] or "").split(",") if n.strip())
    elif tail:
        # Per-CPU kinds ("IPI0:", "LOC:") carry a description, not device names.
        names = (tail,)
    return InterruptLine(
        irq=label.strip(),
        counts=tuple(counts),
        chip=chip,
        hwirq=hwirq,
        trigger=trigger,
        names=names,
    )
