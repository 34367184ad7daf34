"""/proc/interrupts as data: the one parser of the facts (which IRQ serves a NIC) and of
the sampler (counts per CPU at every tick, so it is kept cheap).

The header names the CPU columns (online CPUs only: offline ones leave gaps). Each line
is a label, a count per column, and a description whose shape depends on the line:

     27:  10628015  0 ...  GICv3  44 Level     eth0              arm64: chip, hwirq, trigger
    234:    855861  0 ...  ITS-MSI 524288 Edge      eth1         PCIe MSI
     24:         1  0      IO-APIC   5-edge      ACPI:Ged        x86: "hwirq-flow", one word
     65:         0  0 ...  rockchip_gpio_irq   5 Edge      GPIO Key Power    spaces in a name
     47:         0  0 ...  GICv3 151 Level     ff8f3f00.iommu, ff8f0000.vop  a shared IRQ
   IPI0:     11514  ...    Rescheduling interrupts           a per-CPU kind: a description
    Err:         0                                           machine-wide: one count

The kernel (kernel/irq/proc.c, show_interrupts) prints a numbered IRQ's chip, then its
hwirq when it has a domain, then "Level"/"Edge" on architectures that show the trigger,
then "-" and the flow handler's name ("edge", "fasteoi") glued to what came before, then
its actions separated by ", ". Pure: text in, frozen dataclasses out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CPU_COLUMN = re.compile(r"CPU(\d+)")
# x86 glues the flow handler's name to the hwirq: "5-edge", "9-fasteoi", or "-edge" alone
# for an IRQ without a domain. The name starts with a letter, so an action named like an
# i2c client ("1-0050") is not taken for one.
_HWIRQ_FLOW = re.compile(r"(\d*)-([A-Za-z_]\w*)")
# The trigger as a word of its own (CONFIG_GENERIC_IRQ_SHOW_LEVEL: arm, arm64, riscv...).
_TRIGGER_WORDS = frozenset(("Level", "Edge"))


@dataclass(frozen=True)
class IrqLine:
    """One line of /proc/interrupts.

    `counts` follows the table's CPU columns; a line with fewer counts than CPUs
    (ERR:, MIS:, Err:) carries a machine-wide count and is not per CPU.
    """

    irq: str  # "27", "234", "IPI0", "LOC", "ERR"
    counts: tuple[int, ...]
    chip: str = ""  # "GICv3", "ITS-MSI", "IR-PCI-MSI"; "" for the architecture's lines
    hwirq: str = ""  # the interrupt number on that chip: "44", "524288"
    trigger: str = ""  # "Level", "Edge", or x86's flow handler: "edge", "fasteoi"
    name: str = ""  # the handlers ("eth0", "ff8f3f00.iommu, ff8f0000.vop") or a description
    # hwirq and trigger were printed as one word ("5-edge"): the facts show it as printed.
    joined: bool = False

    @property
    def numbered(self) -> bool:
        return self.irq.isdigit()

    @property
    def actions(self) -> tuple[str, ...]:
        """The handlers that share this IRQ, one per device."""
        return tuple(part.strip() for part in self.name.split(",") if part.strip())


@dataclass(frozen=True)
class InterruptTable:
    cpus: tuple[int, ...]  # the CPU of each count column (offline CPUs are left out)
    lines: tuple[IrqLine, ...]

    def line(self, irq: str) -> IrqLine | None:
        return next((line for line in self.lines if line.irq == irq), None)

    def per_cpu(self, line: IrqLine) -> dict[int, int]:
        """The counts of a line by CPU number; empty for a machine-wide line."""
        if len(line.counts) < len(self.cpus):
            return {}
        return dict(zip(self.cpus, line.counts, strict=False))


def parse_interrupts(text: str) -> InterruptTable:
    """/proc/interrupts: one column per online CPU, then chip, hwirq, trigger, names."""
    rows = text.splitlines()
    if not rows:
        return InterruptTable((), ())
    cpus = tuple(int(number) for number in _CPU_COLUMN.findall(rows[0]))
    columns = len(cpus)
    lines: list[IrqLine] = []
    for row in rows[1:]:
        label, colon, rest = row.partition(":")
        irq = label.strip()
        if not colon or not irq:  # not a line of the table: no label, no IRQ
            continue
        counts, description = _counts_and_description(rest, columns)
        if irq.isdigit():
            lines.append(IrqLine(irq, counts, *_describe(description)))
        else:
            lines.append(IrqLine(irq, counts, name=description))
    return InterruptTable(cpus, tuple(lines))


def _counts_and_description(rest: str, columns: int) -> tuple[tuple[int, ...], str]:
    """Up to `columns` leading counts, and the text after them with its spacing kept."""
    # One split does it for a line with a count in every column, the common case: the
    # last piece is the description as printed. Words hold no spaces, so they are all
    # counts when joined they are all digits (one test instead of one per column).
    words = rest.split(None, columns)
    head = words[:columns]
    if "".join(head).isdecimal():
        counts = tuple(map(int, head))
        return counts, words[columns].rstrip() if len(words) > columns else ""
    # Fewer counts than columns (ERR:, Err:): the description, if any, starts at the
    # first word that is not a count; split again to keep its spacing.
    taken = 0
    while taken < len(head) and head[taken].isdecimal():
        taken += 1
    counts = tuple(map(int, head[:taken]))
    if taken == len(words):
        return counts, ""
    return counts, rest.split(None, taken)[taken].rstrip()


def _describe(description: str) -> tuple[str, str, str, str, bool]:
    """chip, hwirq, trigger, handlers, and whether hwirq and trigger were one word."""
    words = description.split(None, 2)
    if not words:
        return "", "", "", "", False
    chip = words[0]
    if len(words) == 1:
        return chip, "", "", "", False
    word, rest = words[1], words[2] if len(words) > 2 else ""
    if word.isdecimal():
        after = rest.split(None, 1)
        if after and after[0] in _TRIGGER_WORDS:
            return chip, word, after[0], after[1] if len(after) > 1 else "", False
        return chip, word, "", rest, False
    if word in _TRIGGER_WORDS:  # an IRQ without a domain prints no hwirq
        return chip, "", word, rest, False
    joined = _HWIRQ_FLOW.fullmatch(word)
    if joined is not None:
        return chip, joined[1], joined[2], rest, True
    return chip, "", "", description.split(None, 1)[1], False
