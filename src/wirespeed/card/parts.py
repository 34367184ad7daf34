"""The parts of a card, each a few of the card plan's tests, by test id.

The ids are fixed so that cards compare with cards (`wirespeed compare` matches rows on
test id) and so that a stored run says it is a card by its plan's `x-card:` key alone.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Part:
    key: str  # in the plan's x-card, the JSON summary and `--skip`
    title: str  # a section's heading
    tests: tuple[str, ...]  # the card plan's test ids of this part


FACTS = Part("facts", "What it is", ())
THROUGHPUT = Part("throughput", "Throughput", ("tcp-up", "tcp-down", "tcp-both", "udp"))
FORWARDING = Part("forwarding", "Forwarding rate", ("fwd",))
LATENCY = Part("latency", "Latency under load", ("rrul",))
VPN = Part("vpn", "VPN tunnels", ("vpn",))
COMPUTE = Part("compute", "Crypto and compute", ("crypto", "7z"))
DEVICE = Part("device", "Clocks, temperatures, throttling", ())

PARTS: tuple[Part, ...] = (FACTS, THROUGHPUT, FORWARDING, LATENCY, VPN, COMPUTE, DEVICE)
# The parts a user can leave out (`--skip`): those with tests of their own.
SKIPPABLE = tuple(p.key for p in PARTS if p.tests)

# The path names the card plan gives: its reports' columns.
ROUTED_PATH = "DUT-path"
DEVICE_PATH = "DUT"
WIREGUARD_PATH = "WireGuard"
OPENVPN_PATH = "OpenVPN"

CARD_KEY = "x-card"  # the plan key that marks a run as a card (plans ignore x- keys)


def part_of(test_id: str) -> Part | None:
    for part in PARTS:
        if test_id in part.tests:
            return part
    return None
