"""What `wirespeed facts` found, as frozen values. Every field a machine may not offer is
Optional: None means "not found or not readable there", never a guess."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Bus(enum.Enum):
    PLATFORM = "platform"  # a SoC-integrated MAC (stmmac/dwmac on Rockchip)
    PCI = "pci"  # PCI or PCIe (the R4S's RTL8111 behind the RK3399 root port)
    USB = "usb"  # a USB NIC (the R2S's RTL8153): its interrupts are the host controller's
    VIRTIO = "virtio"  # a paravirtual NIC; its interrupts belong to the transport device
    VIRTUAL = "virtual"  # no device at all: bridge, veth, ifb, tun
    OTHER = "other"


class IrqLink(enum.Enum):
    """How an IRQ was tied to a NIC; each is read from sysfs or the IRQ's own name."""

    MSI = "msi"  # listed in the NIC's (or its transport's) msi_irqs/
    INTERFACE_NAME = "interface-name"  # a /proc/interrupts action named after the interface
    DEVICE_NAME = "device-name"  # an action named after the device ("virtio2-input.0")
    USB_HOST = "usb-host-controller"  # the host controller above the NIC's USB root hub
    LEGACY = "pci-intx"  # a PCI device without MSI: its `irq` file


@dataclass(frozen=True)
class Cluster:
    cpus: tuple[int, ...]
    core: str | None  # "Cortex-A72", or an x86 model name
    part: str | None  # the ARM "CPU part" (0xd08); None on x86
    max_khz: int | None  # cpufreq cpuinfo_max_freq; None without cpufreq
    capacity: int | None  # the scheduler's cpu_capacity (1024 = the biggest core)
    policy: str | None  # "policy4"

    def __post_init__(self) -> None:
        if not self.cpus:
            raise ValueError("a cluster has at least one CPU")


@dataclass(frozen=True)
class Irq:
    number: int
    names: tuple[str, ...]  # actions on it, from /proc/interrupts
    controller: str | None  # "GICv3 44 Level", "ITS-MSI 524288 Edge"
    link: IrqLink
    counts: tuple[int, ...]  # per CPU, in the order of Facts.irq_cpus
    smp_affinity: str | None  # the hex mask exactly as the kernel prints it
    smp_affinity_list: str | None  # "0-5"
    effective_affinity_list: str | None  # where it really goes (one CPU on GIC), if shown

    @property
    def total(self) -> int:
        return sum(self.counts)


@dataclass(frozen=True)
class QueueMask:
    queue: str  # "rx-0", "tx-0"
    mask: str | None  # rps_cpus / xps_cpus as printed; "0" = off


@dataclass(frozen=True)
class Nic:
    name: str
    bus: Bus
    driver: str | None
    device: str | None  # the canonical sysfs path of its device
    irq_device: str | None  # the device whose interrupts carry its traffic, if not its own
    speed_mbps: int | None  # None when the link is down or the driver does not say
    mtu: int | None
    operstate: str | None
    rx_queues: int
    tx_queues: int
    irqs: tuple[Irq, ...]
    rps: tuple[QueueMask, ...]
    xps: tuple[QueueMask, ...]


@dataclass(frozen=True)
class ThermalZone:
    zone: str  # "thermal_zone0"
    kind: str | None  # its `type`, e.g. "soc-thermal"
    celsius: float | None


@dataclass(frozen=True)
class Facts:
    source: str  # "this machine", "tree tests/fixtures/boards/r4s", a namespace name
    board: str | None
    board_from: str | None  # "device-tree" or "dmi"
    kernel: str | None  # osrelease, "5.4.75"
    kernel_version: str | None  # /proc/version
    os: str | None  # PRETTY_NAME
    cpu_count: int | None
    clusters: tuple[Cluster, ...]
    cpufreq: bool
    thermal: tuple[ThermalZone, ...] | None  # None: no /sys/class/thermal to look in
    irq_cpus: tuple[int, ...]  # the CPU columns of /proc/interrupts
    nics: tuple[Nic, ...]
    irqbalance: bool | None  # None: no process list to look at (a captured tree)
    iperf2: str | None
    iperf3: str | None
    tools_checked: bool  # False with --root: versions were not looked up

    @property
    def fastest_clusters(self) -> tuple[Cluster, ...]:
        """The clusters of the fastest cores, however many clusters share that speed (the
        RK3588's A76s sit in two cpufreq policies, policy4 and policy6); empty when the
        cores are all alike."""
        if len(self.clusters) < 2:
            return ()
        top = max(_speed(cluster) for cluster in self.clusters)
        fastest = tuple(c for c in self.clusters if _speed(c) >= top * _SAME_SPEED)
        return () if len(fastest) == len(self.clusters) else fastest

    @property
    def fastest_cluster(self) -> Cluster | None:
        """The one cluster of the fastest cores; None when they span several clusters or
        the cores are all alike (see fastest_clusters)."""
        fastest = self.fastest_clusters
        return fastest[0] if len(fastest) == 1 else None


# Clusters within this fraction of the fastest count as equally fast: the same core type
# may be binned a step lower in one policy (RK3588 A76s at 2256 vs 2304 MHz), while a
# different core type differs by a factor of about two.
_SAME_SPEED = 0.9

# Rough work per clock of each ARM core, as the kernel's device trees weigh them in
# capacity-dmips-mhz against the big core of the same SoC: rk3399 A53 485 / A72 1024,
# rk3588 A55 530 / A76 1024, exynos5422 A7 539 / A15 1024. Only the order within one SoC
# matters; a core not listed counts as 1024 (an unknown core is not assumed slow).
_WORK_PER_CLOCK = {
    "Cortex-A7": 539,
    "Cortex-A53": 485,
    "Cortex-A55": 530,
    "Cortex-A57": 1024,
    "Cortex-A72": 1024,
    "Cortex-A73": 1024,
    "Cortex-A75": 1024,
    "Cortex-A76": 1024,
    "Cortex-A77": 1024,
    "Cortex-A78": 1024,
}


def _speed(cluster: Cluster) -> float:
    """How much work a core of the cluster does per second, relatively. The kernel's
    cpu_capacity already folds core type and frequency together; without it, the maximum
    frequency times the core's work per clock (a frequency alone would rank a little core
    clocked high above a big one)."""
    if cluster.capacity is not None:
        return float(cluster.capacity) * 1e9
    khz = cluster.max_khz or 1
    return float(khz * _WORK_PER_CLOCK.get(cluster.core or "", 1024))
