"""Which way a search's traffic goes on a path: each direction word as legs (who sends,
who receives, to which address and port), in the lab or between real hosts.

    up, out    the client sends to the server (inside to outside through NAT)
    down, in   the server sends to the client; through NAT (the lab's or a real
               router's) to the DUT's WAN address, where its port forward passes it to
               the client (as seed 004's router forwarded a port so that "in" worked)
    both       up and down at once, each at the search's load
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wirespeed.errors import UsageError
from wirespeed.hosts.base import Host
from wirespeed.model import Role, Topology

if TYPE_CHECKING:
    from wirespeed.lab.lab import Lab

UP_PORT = 5800  # in the lab NAT's forwarded range too (lab/build.py)
DOWN_PORT = 5801
SENDER_PORT_STEP = 2  # the next sender's up port: 5802 (5801 is down's)


@dataclass(frozen=True)
class Leg:
    """One way traffic goes in a search: who sends, who receives, where to; and the
    hosts' own counters where they can be trusted."""

    sender: Host
    receiver: Host
    target: str
    port: int
    # Whether the two hosts' UDP counters count this leg alone (the lab's namespaces
    # carry nothing else), so that they measure the loss on the way.
    counted: bool = False
    # What the path needs for this leg to arrive, said when nothing does (a real
    # router's port forward).
    needs: str | None = None
    # The share of the direction's load it sends (several senders share one direction).
    share: float = 1.0


@dataclass(frozen=True)
class SearchPath:
    """What a search knows of its path: the legs of each direction word (`both` has two,
    sent at once), the link's rate for the ceiling, and whether it is the lab's."""

    legs: Mapping[str, tuple[Leg, ...]]
    link_rate_bps: int | None
    in_lab: bool


def _words(up: Leg, down: Leg | None) -> dict[str, tuple[Leg, ...]]:
    words: dict[str, tuple[Leg, ...]] = {"up": (up,), "out": (up,)}
    if down is not None:
        words.update({"down": (down,), "in": (down,), "both": (up, down)})
    return words


def lab_legs(lab: Lab) -> dict[str, tuple[Leg, ...]]:
    client = lab.device_hosts[Role.CLIENT]
    server = lab.device_hosts[Role.SERVER]
    up = Leg(client, server, lab.server_address, UP_PORT, counted=True)
    if lab.spec.topology is Topology.NAT:
        # The server has no route to the inside: it sends to the DUT's WAN address, whose
        # port forward passes the traffic on to the client.
        assert lab.wan_address is not None and lab.port_forward is not None
        first, last = lab.port_forward
        assert first <= DOWN_PORT <= last
        target = lab.wan_address
    else:
        target = lab.client_address
    down = Leg(server, client, target, DOWN_PORT, counted=True)
    return _words(up, down)


def real_legs(
    client: Host,
    server: Host,
    *,
    client_address: str | None,
    server_address: str | None,
    nat: NatDut | None = None,
    senders: Sequence[Host] = (),
) -> dict[str, tuple[Leg, ...]]:
    """Between plan hosts: down needs the client's address (`address:` in hosts:), or,
    through NAT, the DUT's WAN address, which passes it on by a port forward. More
    senders send up with the client, each an equal share on ports of its own."""
    if server_address is None:
        raise UsageError(f"host {server.name!r} has no address for the client to reach")
    up = Leg(client, server, server_address, UP_PORT)
    if senders:
        return shared_up((client, *senders), server, server_address)
    down: Leg | None
    if nat is not None:
        # Behind NAT the client's own address is not routed from the outside.
        down = Leg(
            server,
            client,
            nat.wan_address,
            DOWN_PORT,
            needs=port_forward_needed(nat, client.name, client_address),
        )
    elif client_address is not None:
        down = Leg(server, client, client_address, DOWN_PORT)
    else:
        down = None
    return _words(up, down)


def shared_up(
    senders: Sequence[Host], server: Host, server_address: str
) -> dict[str, tuple[Leg, ...]]:
    """up (and out) sent by every one of `senders` at once, each its equal share, each
    on its own port (an iperf receiver each): 5800, 5802 ..."""
    share = 1.0 / len(senders)
    legs = tuple(
        Leg(sender, server, server_address, UP_PORT + SENDER_PORT_STEP * index, share=share)
        for index, sender in enumerate(senders)
    )
    return {"up": legs, "out": legs}


@dataclass(frozen=True)
class NatDut:
    """A real NAT router on a path: its name, and the address it has on the server's
    side (the plan's `address:` of the DUT host), where inward traffic is sent."""

    name: str
    wan_address: str


def port_forward_needed(nat: NatDut, client: str, client_address: str | None) -> str:
    """The port forward a NAT router needs for `in`, in the words of its web pages."""
    inside = client_address if client_address is not None else f"{client}'s address"
    return (
        f"on {nat.name}, forward UDP port {DOWN_PORT} arriving at its WAN address "
        f"{nat.wan_address} to {inside} port {DOWN_PORT} (OpenWrt: Network > Firewall > "
        f"Port Forwards, protocol UDP, external port {DOWN_PORT}, internal IP {inside}, "
        f"internal port {DOWN_PORT}); if {nat.wan_address} is not its WAN address, give "
        f"hosts.{nat.name} address: its WAN address"
    )
