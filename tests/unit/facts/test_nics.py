"""Each NIC's bus, driver and the IRQs that carry its packets, found through sysfs."""

from __future__ import annotations

from wirespeed.facts import Bus, Facts, IrqLink, Nic


def nic(facts: Facts, name: str) -> Nic:
    return next(n for n in facts.nics if n.name == name)


def test_r4s_eth0_is_the_platform_gmac_on_irq_27_handled_only_on_cpu0(r4s: Facts) -> None:
    eth0 = nic(r4s, "eth0")
    assert (eth0.bus, eth0.driver) == (Bus.PLATFORM, "rk_gmac-dwmac")
    (irq,) = eth0.irqs
    assert (irq.number, irq.link, irq.controller) == (27, IrqLink.INTERFACE_NAME, "GICv3 44 Level")
    assert (irq.smp_affinity, irq.smp_affinity_list) == ("3f", "0-5")
    assert irq.counts == (10628015, 0, 0, 0, 0, 0)


def test_r4s_eth1_is_the_pcie_rtl8111_on_its_own_msi_234_not_the_root_ports(r4s: Facts) -> None:
    eth1 = nic(r4s, "eth1")
    assert (eth1.bus, eth1.driver) == (Bus.PCI, "r8169")
    (irq,) = eth1.irqs  # the root port's IRQ 222 (PME, AER) is not eth1's
    assert (irq.number, irq.link, irq.names) == (234, IrqLink.MSI, ("eth1",))
    assert irq.smp_affinity == "3f"
    assert irq.counts == (855861, 0, 0, 0, 0, 0)


def test_r4s_lists_no_virtual_interfaces_unless_asked(r4s: Facts) -> None:
    from wirespeed.facts import TreeSource, collect

    from .conftest import BOARDS

    assert [n.name for n in r4s.nics] == ["eth0", "eth1"]
    everything = collect(TreeSource(BOARDS / "r4s"), include_virtual=True)
    assert [(n.name, n.bus) for n in everything.nics] == [
        ("br-lan", Bus.VIRTUAL),
        ("eth0", Bus.PLATFORM),
        ("eth1", Bus.PCI),
    ]


def test_r2s_usb_nic_irq_is_its_host_controllers_found_through_sysfs(r2s: Facts) -> None:
    eth1 = nic(r2s, "eth1")
    assert (eth1.bus, eth1.driver) == (Bus.USB, "r8152")
    assert eth1.irq_device == "xhci-hcd.0.auto"
    # The NIC hangs off root hub usb5; the controller names its IRQ after usb4.
    assert "/usb5/" in (eth1.device or "")
    (irq,) = eth1.irqs
    assert (irq.number, irq.link, irq.names) == (167, IrqLink.USB_HOST, ("xhci-hcd:usb4",))
    assert (irq.smp_affinity, irq.counts) == ("4", (0, 0, 81033, 0))


def test_r2s_eth0_is_the_platform_gmac_on_irq_29_on_cpu1(r2s: Facts) -> None:
    eth0 = nic(r2s, "eth0")
    (irq,) = eth0.irqs
    assert (eth0.bus, irq.number, irq.counts) == (Bus.PLATFORM, 29, (0, 473493, 0, 0))


def test_a_virtio_nic_uses_the_msi_vectors_of_its_pci_transport(vm: Facts) -> None:
    eth0 = nic(vm, "eth0")
    assert (eth0.bus, eth0.driver, eth0.irq_device) == (Bus.VIRTIO, "virtio_net", "0000:00:03.0")
    assert [(i.number, i.names) for i in eth0.irqs] == [
        (37, ("virtio2-config",)),
        (38, ("virtio2-input.0",)),
        (39, ("virtio2-output.0",)),
    ]
    assert eth0.speed_mbps is None  # virtio reports -1
    assert eth0.irqs[1].effective_affinity_list is not None


def test_rps_masks_are_read_per_rx_queue(r4s: Facts) -> None:
    eth0 = nic(r4s, "eth0")
    assert (eth0.rx_queues, eth0.tx_queues) == (1, 1)
    assert [(q.queue, q.mask) for q in eth0.rps] == [("rx-0", "0")]
    assert [(q.queue, q.mask) for q in eth0.xps] == [("tx-0", None)]
