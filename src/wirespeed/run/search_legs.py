"""Which way a search's traffic goes on a path: each direction word as legs (who sends,
who receives, to which address and port), in the lab or between real hosts.

    up, out    the client sends to the server (inside to outside through NAT)
    down, in   the server sends to the client; through the lab's NAT to the DUT's WAN
               address, where its port forward passes it to the client (as seed 004's
               router forwarded a port so that "in" worked)
    both       up and down at once, each at the search's load
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wirespeed.errors import UsageError
from wirespeed.hosts.base import Host
from wirespeed.model import Role, Topology

if TYPE_CHECKING:
    from wirespeed.lab.lab import Lab

UP_PORT = 5800  # in the lab NAT's forwarded range too (lab/build.py)
DOWN_PORT = 5801


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
) -> dict[str, tuple[Leg, ...]]:
    """Between plan hosts: down needs the client's address (`address:` in hosts:)."""
    if server_address is None:
        raise UsageError(f"host {server.name!r} has no address for the client to reach")
    up = Leg(client, server, server_address, UP_PORT)
    down = None if client_address is None else Leg(server, client, client_address, DOWN_PORT)
    return _words(up, down)
