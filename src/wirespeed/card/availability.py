"""Which parts of a card can run where it runs: a part whose program the device lacks, or
that its bench cannot give, is left out with a line saying why (and which package brings
the program), never failing the card."""

from __future__ import annotations

from collections.abc import Callable

from wirespeed.card.parts import FORWARDING, OPENVPN_PATH, VPN, WIREGUARD_PATH
from wirespeed.card.target import CardBench
from wirespeed.errors import MissingToolError

# test id or tunnel path -> the programs it needs (any one of a tuple's), and the
# Debian/OpenWrt packages that bring them.
NEEDS: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    WIREGUARD_PATH: (("wireguard-go",), {"Debian": "wireguard-go"}),
    "wg": (("wg",), {"Debian": "wireguard-tools"}),
    OPENVPN_PATH: (("openvpn",), {"Debian": "openvpn"}),
    "crypto": (("openssl",), {"Debian": "openssl", "OpenWrt": "openssl-util"}),
    "7z": (("7zz", "7z", "7za"), {"Debian": "7zip", "OpenWrt": "p7zip"}),
}
# What each names, for the line that says it was left out.
SAID = {
    WIREGUARD_PATH: "WireGuard tunnel",
    "wg": "WireGuard tunnel",
    OPENVPN_PATH: "OpenVPN tunnel",
    "crypto": "openssl speed",
    "7z": "7-zip benchmark",
}


def bench_skips(bench: CardBench) -> dict[str, str]:
    """The parts this bench cannot give, whatever is installed."""
    skips: dict[str, str] = {}
    if not bench.forwards:
        skips[FORWARDING.key] = (
            "forwarding rate: the traffic ends at the device; give --client and --server, "
            "the hosts on its two sides, for the rate it forwards"
        )
    elif not bench.in_lab and "link" not in bench.routed:
        skips[FORWARDING.key] = (
            "forwarding rate: the path has no line rate to search from; give --link "
            "(gbe, fe, 2.5gbe ...)"
        )
    if not bench.builds_tunnels:
        skips[VPN.key] = (
            "VPN tunnels: wirespeed builds tunnels in the lab only; set one up on the "
            "device by hand and measure through it with a plan (docs/plan-format.md)"
        )
    return skips


def tool_skips(has_program: Callable[[str], bool], where: str, *, tunnels: bool) -> dict[str, str]:
    """The tests whose program `has_program` does not find, each with its line. The
    tunnels' programs run on this machine (the lab), the benchmarks' on the device."""
    skips: dict[str, str] = {}
    for key, (programs, packages) in NEEDS.items():
        is_tunnel = key in (WIREGUARD_PATH, "wg", OPENVPN_PATH)
        if is_tunnel and not tunnels:
            continue
        if any(has_program(program) for program in programs):
            continue
        missing = MissingToolError(" or ".join(programs), where, packages)
        target = WIREGUARD_PATH if key == "wg" else key
        skips.setdefault(target, f"{SAID[key]}: {missing.message} ({missing.hint})")
    return skips
