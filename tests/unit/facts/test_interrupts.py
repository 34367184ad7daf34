"""/proc/interrupts of real machines, parsed."""

from __future__ import annotations

from wirespeed.facts.interrupts import InterruptTable, parse_interrupts

from .conftest import BOARDS


def r4s_table() -> InterruptTable:
    return parse_interrupts((BOARDS / "r4s/proc/interrupts").read_text())


def test_the_r4s_interrupts_file_puts_eth0_on_irq_27_all_on_cpu0() -> None:
    table = r4s_table()
    assert table.cpus == (0, 1, 2, 3, 4, 5)
    eth0 = table.by_number(27)
    assert eth0 is not None
    assert eth0.names == ("eth0",)
    assert eth0.controller == "GICv3 44 Level"
    assert eth0.counts == (10628015, 0, 0, 0, 0, 0)


def test_the_r4s_pcie_nic_is_an_its_msi_edge_interrupt() -> None:
    eth1 = r4s_table().by_number(234)
    assert eth1 is not None
    assert (eth1.chip, eth1.hwirq, eth1.trigger, eth1.names) == (
        "ITS-MSI",
        "524288",
        "Edge",
        ("eth1",),
    )


def test_shared_irqs_list_every_action_and_names_keep_their_spaces() -> None:
    table = r4s_table()
    shared = table.by_number(47)
    power_key = table.by_number(65)
    assert shared is not None and shared.names == ("ff8f3f00.iommu", "ff8f0000.vop")
    assert power_key is not None and power_key.names == ("GPIO Key Power",)


def test_per_cpu_kinds_are_kept_apart_from_numbered_irqs() -> None:
    table = r4s_table()
    ipi0 = next(line for line in table.lines if line.irq == "IPI0")
    err = next(line for line in table.lines if line.irq == "Err")
    assert ipi0.number is None and ipi0.counts[5] == 748488
    assert ipi0.names == ("Rescheduling interrupts",)
    assert err.counts == (0,)


def test_x86_lines_combine_hardware_irq_and_trigger() -> None:
    table = parse_interrupts((BOARDS / "x86-virtio-vm/proc/interrupts").read_text())
    line = table.by_number(38)
    assert line is not None
    assert line.chip == "PCI-MSIX-0000:00:03.0"
    assert line.hwirq == "1-edge"
    assert line.trigger is None
    assert line.names == ("virtio2-input.0",)


def test_an_empty_file_is_an_empty_table() -> None:
    assert parse_interrupts("").lines == ()
