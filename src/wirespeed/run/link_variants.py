"""A variant's link knobs (MTU, RPS, XPS, offloads) as journaled changes: on the lab's
links (changes_for, used by variants.py) and on real hosts, journaled like `tune`.

    targets = [link_target(host, peers, role=...) ...]   # once, before the first trial
    sessions = apply_link_variant(variant, target, journal)   # session ids to restore

What goes where:
- RPS, XPS and offloads go on the DUT: it is the device under test, the ends are the
  user's own machines and are left as they are.
- The MTU goes on the DUT and on both ends: a path's MTU is what its ends send (seed 001
  sets it on both PCs), and a DUT left at 1500 under jumbo frames, or ends left at 1500
  behind a DUT at 512, would measure fragmentation instead.

Which interfaces carry the path is asked of the host itself: `ip route get ADDRESS` for
the addresses on the other side (as text: busybox's ip has no JSON). A bridge (OpenWrt's
br-lan) stands for its ports (/sys/class/net/br-lan/brif/): RPS and offloads act on the
NICs that receive the packets, so they go on the ports; the MTU goes on the ports, and
on the bridge only if it does not follow them by itself.

Every change goes through the tune journal (tune/apply.py): the previous value is
committed before its knob is written, and written back when the variant ends, at the
end of the run, on Ctrl-C or SIGTERM, and after a SIGKILL by the next run's recovery
(variants.py recover_left_changes). Each host is journaled under the name recovery
reaches it by: a device over SSH as its ssh target (`root@192.168.2.1`), this machine as
`local`, a port of this machine by its namespace (`enp3s0-port`, whose rows go with it
when the port's own row brings the port back).

The MTU of the interface that carries the control connection (the SSH session, or this
machine's default route) is only ever lowered: smaller packets cannot cut a session,
larger ones than a switch passes can. Offloads there are refused as `tune` refuses them.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wirespeed.errors import HostError, UsageError, WirespeedError
from wirespeed.hosts.base import Host
from wirespeed.plan.plan import RPS_SPREAD, Variant
from wirespeed.tune.model import Change

if TYPE_CHECKING:
    from wirespeed.tune.journal import Journal

_DEV = re.compile(r"\bdev (\S+)")
CPU_ONLINE = "/sys/devices/system/cpu/online"


class VariantError(WirespeedError):
    """A variant that cannot be applied here; its trials fail with this reason."""


def _queues(host: Host, interface: str, prefix: str) -> list[str]:
    """The queue directories of an interface ("rx-0", "rx-1" ...), in number order."""
    done = host.run(["ls", f"/sys/class/net/{interface}/queues"], timeout=10.0)
    if done.returncode != 0:
        raise VariantError(f"cannot list the queues of {interface} on {host.name}")
    found = [name for name in done.stdout.split() if name.startswith(prefix)]
    return sorted(found, key=lambda name: int(name.partition("-")[2] or 0))


def _readable(host: Host, path: str) -> bool:
    try:
        host.read_file(path)
    except (OSError, WirespeedError):
        return False
    return True


def _spread_mask(host: Host) -> str:
    from wirespeed.facts.cpus import parse_cpu_list
    from wirespeed.tune.model import mask_of

    try:
        cpus = parse_cpu_list(host.read_file(CPU_ONLINE).strip())
    except (OSError, WirespeedError) as error:
        raise VariantError(f"cannot read the CPUs of {host.name}: {error}") from None
    if not cpus:
        raise VariantError(f"{CPU_ONLINE} on {host.name} lists no CPUs")
    return mask_of(cpus)


def _mask(host: Host, value: str) -> str:
    return _spread_mask(host) if value == RPS_SPREAD else value


def changes_for(variant: Variant, host: Host, interfaces: Sequence[str]) -> list[Change]:
    """The journaled changes that put a host's interfaces into the variant's state.

    RPS goes on every rx queue, XPS on every tx queue that has an xps_cpus (a device
    with one tx queue has none); offloads in the order the plan gives them."""
    from wirespeed.tune.model import Change
    from wirespeed.tune.targets import offload_target

    why = f"variant {variant.name}"
    changes: list[Change] = []
    for interface in interfaces:
        base = f"/sys/class/net/{interface}/queues"
        if variant.rps is not None:
            mask = _mask(host, variant.rps)
            for queue in _queues(host, interface, "rx-"):
                path = f"{base}/{queue}/rps_cpus"
                changes.append(Change(path, None, mask, why, f"RPS {interface} {queue}"))
        if variant.xps is not None:
            mask = _mask(host, variant.xps)
            paths = [f"{base}/{queue}/xps_cpus" for queue in _queues(host, interface, "tx-")]
            usable = [path for path in paths if _readable(host, path)]
            if not usable:
                raise VariantError(
                    f"variant {variant.name!r}: {interface} on {host.name} has no xps_cpus "
                    "(a device with a single tx queue has nothing to steer)"
                )
            changes += [Change(p, None, mask, why, f"XPS {interface}") for p in usable]
        for feature, state in variant.offloads:
            try:
                target = offload_target(interface, feature)
            except UsageError as error:
                raise VariantError(f"variant {variant.name!r}: {error.message}") from None
            changes.append(Change(target, None, state, why, f"{feature} {interface}"))
    return changes


@dataclass(frozen=True)
class LinkTarget:
    """One real host of the run's paths and the interfaces that carry them there."""

    host: Host  # named as the journal must reach it again
    role: str  # "dut", "client" or "server": what the variant may change on it
    interfaces: tuple[str, ...]  # as routed: a bridge stays a bridge
    ports: tuple[str, ...]  # the NICs under them: a bridge's ports, else the same
    control_interface: str | None = None  # the interface of the way in, if known

    @property
    def tunes_steering(self) -> bool:
        return self.role == "dut"


def route_interface(host: Host, address: str) -> str | None:
    """The interface the host sends to address by; None when it has no route there."""
    try:
        done = host.run(["ip", "route", "get", address], timeout=10.0)
    except (OSError, TimeoutError, WirespeedError):
        return None
    return routed_interface(done.stdout) if done.returncode == 0 else None


def routed_interface(ip_route_get: str) -> str | None:
    """The `dev` of `ip route get`'s answer (iproute2 or busybox); None for loopback."""
    found = _DEV.search(ip_route_get)
    return None if found is None or found.group(1) == "lo" else found.group(1)


def bridge_ports(host: Host, interface: str) -> tuple[str, ...]:
    """A bridge's ports (its brif/ directory); () for an interface that is no bridge."""
    try:
        done = host.run(["ls", f"/sys/class/net/{interface}/brif"], timeout=10.0)
    except (OSError, TimeoutError, WirespeedError):
        return ()
    return tuple(sorted(done.stdout.split())) if done.returncode == 0 else ()


def link_target(
    host: Host,
    peers: Sequence[str],
    *,
    role: str,
    control_interface: str | None = None,
    first_only: bool = False,
) -> LinkTarget:
    """The host's interfaces toward peers (addresses on the path's other sides).

    first_only: an end needs one interface, the first peer it has a route to (the far
    end, else the DUT); a DUT needs one per side. VariantError when none is routed."""
    interfaces: list[str] = []
    for address in peers:
        found = route_interface(host, address)
        if found is not None and found not in interfaces:
            interfaces.append(found)
            if first_only:
                break
    if not interfaces:
        raise VariantError(
            f"{host.name} has no route to {' or '.join(peers)}: cannot tell which of its "
            "interfaces carries the path"
        )
    ports: list[str] = []
    for interface in interfaces:
        for port in bridge_ports(host, interface) or (interface,):
            if port not in ports:
                ports.append(port)
    return LinkTarget(host, role, tuple(interfaces), tuple(ports), control_interface)


def mtu_changes(variant: Variant, target: LinkTarget, interfaces: Sequence[str]) -> list[Change]:
    """The MTU on interfaces, those not already at it; refused upward on the interface
    of the control connection."""
    if variant.mtu is None:
        return []
    wanted = str(variant.mtu)
    why = f"variant {variant.name}"
    changes: list[Change] = []
    for interface in interfaces:
        path = f"/sys/class/net/{interface}/mtu"
        try:
            now = target.host.read_file(path).strip()
        except (OSError, WirespeedError) as error:
            raise VariantError(f"cannot read {path} on {target.host.name}: {error}") from None
        if now == wanted:
            continue
        if interface == target.control_interface and now.isdigit() and variant.mtu > int(now):
            raise VariantError(
                f"variant {variant.name!r}: {interface} on {target.host.name} carries the "
                f"control connection, and an MTU above its {now} could cut it",
                hint="reach the host by another interface, or raise its MTU by hand",
            )
        changes.append(Change(path, now, wanted, why, f"MTU {interface}"))
    return changes


def apply_link_variant(variant: Variant, target: LinkTarget, journal: Journal) -> list[str]:
    """Apply the variant's link knobs to one host; the journal sessions to restore.

    RPS, XPS and offloads (on a DUT) are checked against the control interface as `tune`
    checks them; the MTU was checked by mtu_changes. A failure restores what this call
    changed before it propagates (apply_changes does it per session)."""
    from wirespeed.tune.apply import apply_changes, restore_session

    sessions: list[str] = []
    try:
        if target.tunes_steering:
            steering = changes_for(variant, target.host, target.ports)
            if steering:
                sessions.append(
                    apply_changes(
                        target.host,
                        steering,
                        journal,
                        control_interface=target.control_interface,
                    )
                )
        # The ports first; a bridge then follows them by itself (the kernel sets it to
        # its ports' smallest MTU) and is only set when it did not: one set by hand
        # no longer follows, and writing one that follows would make it stop following
        # after the run. Checked in mtu_changes: only lowered on the control interface.
        bridges = [i for i in target.interfaces if i not in target.ports]
        for interfaces in (target.ports, bridges):
            mtu = mtu_changes(variant, target, interfaces)
            if mtu:
                sessions.append(apply_changes(target.host, mtu, journal, force=True))
    except BaseException:
        for session in reversed(sessions):
            # What cannot be written back stays open in the journal for `tune restore`.
            with contextlib.suppress(HostError, OSError, WirespeedError):
                restore_session(target.host, journal, session)
        raise
    return sessions
