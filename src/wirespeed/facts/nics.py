"""Network interfaces: what device each is, and which IRQs carry its packets.

An interface's IRQs are found through sysfs, never by guessing from names that look alike:

- PCI(e) NIC: its device's msi_irqs/ (the R4S's RTL8111: IRQ 234, ITS-MSI). Without MSI,
  the device's legacy `irq`. Never the msi_irqs of a bridge above it: the RK3399 root
  port has its own (PME/AER, IRQ 222), and they carry no packets.
- platform NIC: /proc/interrupts actions named after the interface ("eth0"), which is
  how stmmac and most SoC MACs request them ("eth0:rx-0" with per-queue vectors).
- USB NIC: it has no IRQ of its own; every packet completes on the host controller's.
  Walk up `device` to the root hub (usbN); its parent is the controller, and the
  controller's IRQ is named after *one* of its root hubs ("xhci-hcd:usb4"), which need
  not be the hub the NIC hangs off: an xHCI has a USB 2 and a USB 3 root hub and names
  its IRQ after the USB 2 one, so the R2S's RTL8153 sits on usb5 behind "xhci-hcd:usb4".
- virtio NIC: the virtioN device sits on a transport (virtio-pci); the MSI vectors are
  the transport's, their actions named "virtioN-input.0", "virtioN-output.0".
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from wirespeed.facts.interrupts import InterruptLine, InterruptTable
from wirespeed.facts.model import Bus, Irq, IrqLink, Nic, QueueMask
from wirespeed.facts.read import FactSource, read_int, read_value

NET_DIR = "/sys/class/net"
_ROOT_HUB = re.compile(r"usb\d+")
_SUBSYSTEMS = {
    "platform": Bus.PLATFORM,
    "pci": Bus.PCI,
    "usb": Bus.USB,
    "virtio": Bus.VIRTIO,
}


def read_nics(
    source: FactSource, table: InterruptTable | None, include_virtual: bool = False
) -> tuple[Nic, ...]:
    nics = []
    for name in source.list_dir(NET_DIR) or ():
        if name == "lo":
            continue
        nic = read_nic(source, name, table)
        if nic.bus is Bus.VIRTUAL and not include_virtual:
            continue
        nics.append(nic)
    return tuple(nics)


def read_nic(source: FactSource, name: str, table: InterruptTable | None) -> Nic:
    base = f"{NET_DIR}/{name}"
    device = source.resolve(f"{base}/device")
    bus = _bus(source, device)
    links, irq_device = _irq_links(source, name, device, bus, table)
    queues = source.list_dir(f"{base}/queues") or ()
    rx = [q for q in queues if q.startswith("rx-")]
    tx = [q for q in queues if q.startswith("tx-")]
    speed = read_int(source, f"{base}/speed")
    return Nic(
        name=name,
        bus=bus,
        driver=_link_name(source, f"{device}/driver") if device else None,
        device=device,
        irq_device=irq_device,
        # A link that is down reports -1 (or refuses the read): no speed, not "-1 Mb/s".
        speed_mbps=speed if speed is not None and speed > 0 else None,
        mtu=read_int(source, f"{base}/mtu"),
        operstate=read_value(source, f"{base}/operstate"),
        rx_queues=len(rx),
        tx_queues=len(tx),
        irqs=tuple(read_irq(source, table, n, link) for n, link in sorted(links.items())),
        rps=tuple(QueueMask(q, read_value(source, f"{base}/queues/{q}/rps_cpus")) for q in rx),
        xps=tuple(QueueMask(q, read_value(source, f"{base}/queues/{q}/xps_cpus")) for q in tx),
    )


def read_irq(source: FactSource, table: InterruptTable | None, number: int, link: IrqLink) -> Irq:
    line = table.by_number(number) if table else None
    base = f"/proc/irq/{number}"
    return Irq(
        number=number,
        names=line.names if line else (),
        controller=line.controller if line else None,
        link=link,
        counts=line.counts if line else (),
        smp_affinity=read_value(source, f"{base}/smp_affinity"),
        smp_affinity_list=read_value(source, f"{base}/smp_affinity_list"),
        effective_affinity_list=read_value(source, f"{base}/effective_affinity_list"),
    )


def _link_name(source: FactSource, path: str) -> str | None:
    target = source.resolve(path)
    return posixpath.basename(target) if target else None


def _bus(source: FactSource, device: str | None) -> Bus:
    if device is None:
        return Bus.VIRTUAL
    subsystem = _link_name(source, f"{device}/subsystem")
    if subsystem in _SUBSYSTEMS:
        return _SUBSYSTEMS[subsystem]
    # No subsystem link (a partial capture): the canonical path still tells.
    parts = device.split("/")
    if any(_ROOT_HUB.fullmatch(part) for part in parts):
        return Bus.USB
    if re.fullmatch(r"virtio\d+", parts[-1]):
        return Bus.VIRTIO
    if re.fullmatch(r"[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]", parts[-1]):
        return Bus.PCI
    if "/devices/platform/" in device:
        return Bus.PLATFORM
    return Bus.OTHER


def _irq_links(
    source: FactSource,
    name: str,
    device: str | None,
    bus: Bus,
    table: InterruptTable | None,
) -> tuple[dict[int, IrqLink], str | None]:
    links: dict[int, IrqLink] = {}
    if device is None:
        return links, None
    irq_device: str | None = None
    lines = table.lines if table else ()

    def add(numbers: list[int], link: IrqLink) -> None:
        for number in numbers:
            links.setdefault(number, link)

    add(_msi_irqs(source, device), IrqLink.MSI)
    if bus is Bus.PCI and not links:
        legacy = read_int(source, f"{device}/irq")
        if legacy:
            add([legacy], IrqLink.LEGACY)
    if bus is Bus.USB:
        controller, hubs = _usb_host_controller(source, device)
        if controller is not None:
            irq_device = posixpath.basename(controller)
            add(_msi_irqs(source, controller), IrqLink.USB_HOST)
            suffixes = tuple(f":{hub}" for hub in hubs)
            add(_matching(lines, lambda action: action.endswith(suffixes)), IrqLink.USB_HOST)
    if bus is Bus.VIRTIO:
        transport = posixpath.dirname(device)
        irq_device = posixpath.basename(transport)
        add(_msi_irqs(source, transport), IrqLink.MSI)
    add(_matching(lines, lambda action: _named_after(action, name)), IrqLink.INTERFACE_NAME)
    device_name = posixpath.basename(device)
    add(_matching(lines, lambda action: _named_after(action, device_name)), IrqLink.DEVICE_NAME)
    return links, irq_device


def _named_after(action: str, owner: str) -> bool:
    # "eth0", or per-queue vectors "eth0-rx-0", "eth0-TxRx-0" (igb), "eth0:rx-0" (stmmac).
    return action == owner or action.startswith((f"{owner}-", f"{owner}:"))


def _matching(lines: tuple[InterruptLine, ...], wanted: Callable[[str], bool]) -> list[int]:
    return [
        line.number
        for line in lines
        if line.number is not None and any(wanted(action) for action in line.names)
    ]


def _msi_irqs(source: FactSource, device: str) -> list[int]:
    return sorted(int(n) for n in source.list_dir(f"{device}/msi_irqs") or () if n.isdigit())


def _usb_host_controller(source: FactSource, device: str) -> tuple[str | None, tuple[str, ...]]:
    """The controller above the root hub `device` hangs off, and all its root hubs."""
    parts = device.split("/")
    hub_positions = [i for i, part in enumerate(parts) if _ROOT_HUB.fullmatch(part)]
    if not hub_positions:
        return None, ()
    controller = "/".join(parts[: hub_positions[0]])
    hubs = tuple(e for e in source.list_dir(controller) or () if _ROOT_HUB.fullmatch(e))
    return controller, hubs or (parts[hub_positions[0]],)
