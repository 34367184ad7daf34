"""Which parts of a card can run where it runs: a part whose program the device lacks, or
that its bench cannot give, is left out with a line saying why (and which package brings
the program), never failing the card."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from wirespeed.card.parts import COMPUTE, FORWARDING, OPENVPN_PATH, VPN, WIREGUARD_PATH
from wirespeed.card.target import CardBench
from wirespeed.errors import MissingToolError
from wirespeed.run.host_tunnel import WIREGUARD_PACKAGES

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
    if bench.port_end is not None and bench.forwards:
        skips[VPN.key] = (
            f"VPN tunnels: {bench.port_end} is a port of this machine, and a tunnel's end "
            "runs on an SSH host or on this machine itself only (docs/plan-format.md)"
        )
    elif not bench.builds_tunnels:
        skips[VPN.key] = (
            "VPN tunnels: the traffic ends at the device; give --client and --server, "
            "the hosts on its two sides, for tunnels between them across it"
        )
    if bench.lab is None and "dut" not in bench.device:
        path = bench.routed.get("name", "the path")
        skips[COMPUTE.key] = (
            f"crypto and compute: {path} names no device (dut:) to run openssl and 7-zip "
            "on; give it the router as a host with ssh: and name it in the path's dut: "
            "(docs/bench.md)"
        )
    return skips


@dataclass(frozen=True)
class TunnelEnd:
    """One end's host of a real bench's tunnels, as asked before the run: where it is in
    words ("laptop (root@pc)"), which programs it has, and whether its kernel has
    WireGuard (the module loaded: no wireguard-go needed)."""

    where: str
    has_program: Callable[[str], bool]
    wireguard_module: bool


# Between real hosts: each end's programs and the packages that bring them (an end with
# neither WireGuard's kernel module nor wireguard-go gets run/host_tunnel.py's packages).
OPENVPN_PACKAGES = {"Debian": "openvpn", "OpenWrt": "openvpn-openssl"}
WG_PACKAGES = {"Debian": "wireguard-tools", "OpenWrt": "wireguard-tools"}
IP_PACKAGES = {"Debian": "iproute2", "OpenWrt": "ip-full"}


def tunnel_skips(ends: Sequence[TunnelEnd], *, openssl_here: bool) -> dict[str, str]:
    """The tunnels a real bench cannot build: one whose tools an end lacks is left out
    with the package to install there (the run would refuse it, exit 3). OpenVPN's keys
    are made on this machine, with openssl."""
    skips: dict[str, str] = {}
    for end in ends:
        missing = _missing_openvpn(end)
        if missing is not None:
            skips.setdefault(OPENVPN_PATH, f"{SAID[OPENVPN_PATH]}: {missing}")
        missing = _missing_wireguard(end)
        if missing is not None:
            skips.setdefault(WIREGUARD_PATH, f"{SAID[WIREGUARD_PATH]}: {missing}")
    if not openssl_here:
        error = MissingToolError("openssl", "this machine", {"Debian": "openssl"})
        skips.setdefault(OPENVPN_PATH, f"{SAID[OPENVPN_PATH]}: {error.message} ({error.hint})")
    return skips


def _missing_openvpn(end: TunnelEnd) -> str | None:
    if end.has_program("openvpn"):
        return None
    error = MissingToolError("openvpn", end.where, OPENVPN_PACKAGES)
    return f"{error.message} ({error.hint})"


def _missing_wireguard(end: TunnelEnd) -> str | None:
    for program, packages in (("wg", WG_PACKAGES), ("ip", IP_PACKAGES)):
        if not end.has_program(program):
            error = MissingToolError(program, end.where, packages)
            return f"{error.message} ({error.hint})"
    if end.wireguard_module or end.has_program("wireguard-go"):
        return None
    error = MissingToolError("wireguard-go", end.where, WIREGUARD_PACKAGES)
    return f"{error.message}, nor WireGuard's kernel module ({error.hint})"


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
