"""A host that is a port of this machine: `hosts: {lan-side: {port: enp3s0, ...}}`.

    hosts:
      lan-side: {port: enp3s0, address: 192.168.1.50/24, gateway: 192.168.1.1}
      wan-side: {port: enp4s0, address: 10.0.0.2/24, mtu: 1500}

For the run the port is moved into a namespace of its own and given the address (with
its prefix: the port's subnet), a default route via `gateway` and `mtu`; the test's end
on that host runs there (tune/ports.py moves it, and gives it back as it was). `force:
true` moves a port that carries this machine's default route or SSH session anyway.

The keys' values are checked by the schema; here, what they mean together, each problem
at its own line.
"""

from __future__ import annotations

import ipaddress
from typing import TYPE_CHECKING

from wirespeed.plan.collect import Collector
from wirespeed.plan.plan import PortPlan
from wirespeed.plan.yamltree import Loc

if TYPE_CHECKING:
    from wirespeed.plan.schema import HostEntry

PORT_ONLY_KEYS = ("gateway", "mtu", "force")


def port_plan(name: str, entry: HostEntry, loc: Loc, out: Collector) -> PortPlan | None:
    """The host's port, None when it names none or after its problems were recorded."""
    if entry.port is None:
        for key in PORT_ONLY_KEYS:
            if key in entry.model_fields_set:
                out.error(
                    (*loc, key),
                    f"host {name!r}: {key}: belongs to a port of this machine",
                    hint=f"add port: (this machine's network port for the host), or remove {key}:",
                    key=True,
                )
        if entry.address is not None and "/" in entry.address:
            out.error(
                (*loc, "address"),
                f"host {name!r}: a prefix is given only to a port's address",
                hint=f"write address: {entry.address.partition('/')[0]}, or add port:",
            )
        return None
    ok = True
    if entry.ssh is not None:
        out.error(
            (*loc, "ssh"),
            f"host {name!r} is port {entry.port} of this machine: it is not reached over SSH",
            hint="remove ssh:, or port: for a device logged in to over SSH",
            key=True,
        )
        ok = False
    if entry.address is None:
        out.error(
            (*loc, "port"),
            f"host {name!r}: port {entry.port} needs the address to give it for the run",
            hint=f"add address: with its prefix, such as {{port: {entry.port}, address: "
            "192.168.1.50/24}",
            key=True,
        )
        return None
    if "/" not in entry.address:
        out.error(
            (*loc, "address"),
            f"host {name!r}: the address of port {entry.port} needs its prefix (the size "
            "of its subnet)",
            hint=f"write address: {entry.address}/24 (or the prefix of the DUT's subnet)",
        )
        return None
    address = ipaddress.ip_interface(entry.address)
    if entry.gateway is not None:
        gateway = ipaddress.ip_address(entry.gateway)
        wrong = None
        if gateway.version != address.version or gateway not in address.network:
            wrong = f"is not in the subnet {address.network} of address {entry.address}"
        elif gateway == address.ip:
            wrong = "is the port's own address"
        if wrong is not None:
            out.error(
                (*loc, "gateway"),
                f"host {name!r}: gateway {entry.gateway} {wrong}",
                hint="the gateway is the DUT's address on the port's subnet",
            )
            return None
    if not ok:
        return None
    return PortPlan(
        interface=entry.port,
        address=entry.address,
        gateway=entry.gateway,
        mtu=entry.mtu,
        force=entry.force,
    )


def check_ports_unique(ports: dict[str, tuple[PortPlan, Loc]], out: Collector) -> None:
    """A port moves once: two hosts cannot both be it."""
    first: dict[str, Loc] = {}
    for name, (port, loc) in ports.items():
        if port.interface in first:
            out.error(
                (*loc, "port"),
                f"host {name!r}: port {port.interface} is already host "
                f"{first[port.interface][1]!r} (line {out.line_of(first[port.interface])})",
                hint="each port is one host: give the other end its own port",
            )
        else:
            first[port.interface] = loc
