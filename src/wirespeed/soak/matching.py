"""Kernel events near outages: which line the kernel wrote as the path went away.

A network driver's lines name itself, the device and mostly the interface:
    igb 0000:01:00.0: Detected Tx Unit Hang
    igb 0000:01:00.0 eth1: Reset adapter
    igb 0000:01:00.0 eth1: igb: eth1 NIC Link is Up 1000 Mbps Full Duplex, ...
    NETDEV WATCHDOG: eth0 (igb): transmit queue 0 timed out
An outage is matched with every link event (tx-hang, adapter-reset, link-down, link-up,
the watchdog's timeout) from `window` seconds before it starts to `window` after it
ends; the first of them is what it came "after". Times are wall clock seconds: a
kernel line's time is its sampler's start on this machine's clock plus its offset on
the device's (sampling/session.py), good to the sampler's start-up, milliseconds.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from wirespeed.sampling.events import classify
from wirespeed.soak.outages import Outage

__all__ = [
    "DEFAULT_WINDOW",
    "LINK_EVENTS",
    "KernelEvent",
    "Matched",
    "kernel_event",
    "match",
]

DEFAULT_WINDOW = 2.0
LINK_EVENTS = frozenset({"tx-hang", "adapter-reset", "link-down", "link-up"})
INJECTED_MARK = "wirespeed-lab"

# "igb 0000:01:00.0 eth1: ..." / "igb 0000:01:00.0: ..." / "r8169 0000:01:00.0 eth0: ..."
_DRIVER_DEVICE = re.compile(
    r"^(?:\S+: )?(?P<driver>[\w-]+) (?P<device>[\w:.-]+?)(?: (?P<iface>[\w.@-]+))?:"
)
_WATCHDOG = re.compile(r"NETDEV WATCHDOG: (?P<iface>[\w.@-]+) \((?P<driver>[\w-]+)\)")
_IFACE_WORD = re.compile(r"\b(?P<iface>(?:eth|wan|lan|enp|eno|ens|wlan)[\w.@-]*)\b")


@dataclass(frozen=True)
class KernelEvent:
    at: float  # wall clock, seconds
    host: str
    message: str
    kind: str | None  # sampling/events.py's name; None for a line of no known kind
    driver: str | None = None
    interface: str | None = None

    @property
    def injected(self) -> bool:
        """Written by the lab's fault injection, not by a driver."""
        return INJECTED_MARK in self.message

    def to_dict(self) -> dict[str, object]:
        return {
            "at": round(self.at, 3),
            "host": self.host,
            "kind": self.kind,
            "driver": self.driver,
            "interface": self.interface,
            "injected": self.injected,
            "message": self.message,
        }

    @classmethod
    def from_dict(cls, row: dict[str, object]) -> KernelEvent:
        def text(key: str) -> str | None:
            value = row.get(key)
            return None if value is None else str(value)

        at = row["at"]
        assert isinstance(at, (int, float))
        return cls(
            float(at), str(row["host"]), str(row["message"]), text("kind"),
            text("driver"), text("interface"),
        )  # fmt: skip


def kernel_event(at: float, host: str, message: str) -> KernelEvent:
    """A kernel log line -> KernelEvent, with its driver and interface where it names them."""
    driver = interface = None
    if (found := _WATCHDOG.search(message)) or (found := _DRIVER_DEVICE.search(message)):
        driver, interface = found["driver"], found["iface"]
    if interface is None and (word := _IFACE_WORD.search(message)):
        interface = word["iface"]
    return KernelEvent(at, host, message, classify(message), driver, interface)


@dataclass(frozen=True)
class Matched:
    outage: Outage
    events: tuple[KernelEvent, ...]  # link events near it, in time order

    @property
    def cause(self) -> KernelEvent | None:
        """The first link event near it: what the outage came after."""
        return self.events[0] if self.events else None


def match(
    outages: Sequence[Outage], events: Sequence[KernelEvent], window: float = DEFAULT_WINDOW
) -> list[Matched]:
    """Each outage with the link events from `window` s before its start to `window` s
    after its end."""
    linked = sorted((event for event in events if event.kind in LINK_EVENTS), key=lambda e: e.at)
    return [
        Matched(
            outage,
            tuple(e for e in linked if outage.start - window <= e.at <= outage.end + window),
        )
        for outage in outages
    ]
