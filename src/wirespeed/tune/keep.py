"""What `wirespeed tune keep` keeps: a plan's or a variant's settings, by interface, in a
form a boot script can find again after a reboot.

A journaled change names an IRQ by its number (/proc/irq/27/smp_affinity), which holds
for one boot only: probe order and MSI allocation can give the NIC another number next
time. A kept setting names the IRQ by the action /proc/interrupts shows for it (`eth0`,
the R2S's USB NIC by its host controller, `xhci-hcd:usb4`) and by the interface it
serves; the boot script looks the number up at every boot (tune/keep_script.py).
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from wirespeed.errors import UsageError
from wirespeed.facts.model import Facts
from wirespeed.tune.model import TunePlan
from wirespeed.tune.targets import (
    Kind,
    check_interface,
    check_value,
    offload_feature,
    parse_target,
)

# A variant's rps/xps "spread": every online CPU, worked out at boot (as a run does).
SPREAD = "spread"
EVERY_QUEUE = ""  # a queue setting's `key` for every rx (or tx) queue of the interface


class KeepError(UsageError):
    """A plan or variant that cannot be turned into a boot script."""


class Knob(enum.StrEnum):
    IRQ = "smp_affinity"
    RPS = "rps_cpus"
    XPS = "xps_cpus"
    MTU = "mtu"
    OFFLOAD = "offload"


@dataclass(frozen=True)
class Setting:
    """One knob of one interface, as it is to be at every boot.

    key: for IRQ the action's name in /proc/interrupts; for RPS/XPS the queue ("rx-0")
    or EVERY_QUEUE; for OFFLOAD the feature's long name; "" for MTU. value: a hex mask
    or SPREAD (every online CPU, worked out at boot), an MTU, on/off."""

    interface: str
    knob: Knob
    value: str
    key: str = ""
    why: str = ""
    irq_then: int | None = None  # the IRQ's number when the plan was made, for people

    def __post_init__(self) -> None:
        check_interface(self.interface)
        for text in (self.value, self.key, self.why):
            if any(not ch.isprintable() for ch in text):
                raise KeepError(f"{self.interface}: {text!r} has a control character")


@dataclass(frozen=True)
class Kept:
    """The settings of a boot script, and where they came from."""

    source: str  # "tree tests/fixtures/boards/r4s", "run 7, variant rps-a72"
    settings: tuple[Setting, ...]
    warnings: tuple[str, ...] = ()

    @property
    def interfaces(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(s.interface for s in self.settings))


def from_plan(plan: TunePlan, facts: Facts) -> Kept:
    """A suggest plan's whole state: the changes and the knobs already so (the boot script
    makes the plan's state, whatever the next boot starts from)."""
    owner: dict[int, str] = {}  # IRQ -> the NIC the plan placed it for
    for assignment in plan.assignments:
        for number in assignment.irqs:
            owner.setdefault(number, assignment.nic)
    names = {irq.number: irq.names for nic in facts.nics for irq in nic.irqs}
    settings: list[Setting] = []
    warnings = list(plan.warnings)  # irqbalance undoes a boot script as it undoes apply
    for change in (*plan.changes, *plan.kept):
        target = parse_target(change.path)
        check_value(target, change.new)
        if target.kind is Kind.SMP_AFFINITY:
            assert target.irq is not None
            nic = owner.get(target.irq)
            name = _irq_name(nic, names.get(target.irq, ()))
            if nic is None or name is None:
                warnings.append(
                    f"IRQ {target.irq} has no name in /proc/interrupts to find it by at "
                    "boot: not kept"
                )
                continue
            settings.append(
                Setting(nic, Knob.IRQ, change.new, name, change.why, irq_then=target.irq)
            )
        elif target.kind in (Kind.RPS, Kind.XPS):
            assert target.interface is not None
            queue = change.path.split("/")[-2]
            knob = Knob.RPS if target.kind is Kind.RPS else Knob.XPS
            settings.append(Setting(target.interface, knob, change.new, queue, change.why))
        else:
            raise KeepError(f"{change.path}: a suggest plan does not set {target.kind.value}")
    order = {nic: index for index, nic in enumerate(a.nic for a in plan.assignments)}
    # By NIC as the plan placed them, each NIC's IRQs first: the order of `tune apply`.
    settings.sort(key=lambda s: (order.get(s.interface, len(order)), s.knob is not Knob.IRQ))
    return Kept(plan.source, tuple(settings), tuple(warnings))


def _irq_name(nic: str | None, names: tuple[str, ...]) -> str | None:
    """The action to find the IRQ by: the one named after the NIC if any (a shared line
    lists several), else the first (a USB NIC's host controller)."""
    if nic is None or not names:
        return None
    return next((name for name in names if nic in name), names[0])


_CPU_KEYS = ("cpus_online", "governor", "max_freq_khz")


def from_variant(
    state: Mapping[str, object], interfaces: Sequence[str], source: str, variant: str
) -> Kept:
    """A run's variant (its provenance state: mtu, rps, xps, offloads) on the device's
    interfaces, as a run puts a variant on the lab's links: RPS on every rx queue, XPS on
    every tx queue, the offloads in the order written."""
    cpu = [key for key in _CPU_KEYS if key in state]
    if cpu:
        raise KeepError(
            f"{source} sets the CPUs ({', '.join(cpu)}): a boot script keeps the network "
            "knobs only (mtu, rps, xps, offloads)",
            hint="set the governor and clocks with the system's own cpufreq configuration",
        )
    warnings = []
    if "tunnel" in state:
        warnings.append(f"{source}: its tunnel options belong to the tunnel, not kept")
    why = f"variant {variant}"
    settings: list[Setting] = []
    for interface in interfaces:
        check_interface(interface)
        base = f"/sys/class/net/{interface}"
        if "mtu" in state:
            mtu = str(state["mtu"])
            check_value(parse_target(f"{base}/mtu"), mtu)
            settings.append(Setting(interface, Knob.MTU, mtu, why=why))
        for knob, queue in ((Knob.RPS, "rx-0"), (Knob.XPS, "tx-0")):
            key = "rps" if knob is Knob.RPS else "xps"
            if key not in state:
                continue
            mask = str(state[key])
            if mask != SPREAD:
                check_value(parse_target(f"{base}/queues/{queue}/{knob.value}"), mask)
            settings.append(Setting(interface, knob, mask, EVERY_QUEUE, why))
        offloads = state.get("offloads", {})
        for feature, on_off in offloads.items() if isinstance(offloads, Mapping) else ():
            if str(on_off) not in ("on", "off"):
                raise KeepError(f"{source}: offload {feature} is {on_off!r}, not on or off")
            settings.append(
                Setting(interface, Knob.OFFLOAD, str(on_off), offload_feature(str(feature)), why)
            )
    if not settings:
        raise KeepError(f"{source} changes no network knob: there is nothing to keep")
    return Kept(source, tuple(settings), tuple(warnings))
