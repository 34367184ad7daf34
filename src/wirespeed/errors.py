"""Errors a user can cause or fix. The CLI maps each to a message and an exit status in
one place (cli/errors.py); everything else is a bug and keeps its traceback."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar


class WirespeedError(Exception):
    """An error with a message meant for the user, and optionally what to do about it."""

    exit_status = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class UsageError(WirespeedError):
    """Bad input: a plan that does not validate, an unknown option value, a missing file."""

    exit_status = 2


class MissingToolError(WirespeedError):
    """A program wirespeed needs is not installed where it must run."""

    exit_status = 3

    # Debian package that provides each tool, for the hint.
    PACKAGES: ClassVar[dict[str, str]] = {
        "iperf": "iperf",
        "iperf3": "iperf3",
        "ping": "iputils-ping",  # busybox's has no flood mode (-f)
        "ip": "iproute2",
        "tc": "iproute2",
        "ss": "iproute2",
        "nft": "nftables",
        "ethtool": "ethtool",
        "dropbear": "dropbear-bin",
        "dropbearkey": "dropbear-bin",
        "busybox": "busybox",
        "unshare": "util-linux",
        "openvpn": "openvpn",
        "wireguard-go": "wireguard-go",
        "wg": "wireguard-tools",
        "tcpreplay": "tcpreplay",
        "trafgen": "netsniff-ng",
    }

    def __init__(
        self, tool: str, where: str = "this machine", packages: Mapping[str, str] | None = None
    ) -> None:
        if packages:
            # A benchmark's driver says where its tool comes from, system by system.
            hint = "install it: " + "; ".join(
                f"{system}: {_install(system, package)}" for system, package in packages.items()
            )
        else:
            package = self.PACKAGES.get(tool, tool)
            hint = f"install it: apt-get install {package}  (OpenWrt: opkg install {package})"
        super().__init__(f"{tool} is not installed on {where}", hint=hint)
        self.tool = tool


def _install(system: str, package: str) -> str:
    if system == "Debian":
        return f"apt-get install {package}"
    if system == "OpenWrt":
        return f"opkg install {package}"
    return package


class NotRootError(WirespeedError):
    """The lab needs root: namespaces, veth, nftables and tc are privileged."""

    exit_status = 4

    def __init__(self, what: str) -> None:
        super().__init__(
            f"{what} needs root (network namespaces, veth, tc and nftables are privileged)",
            hint="run it as root, e.g. sudo wirespeed ...",
        )


class HostError(WirespeedError):
    """A host could not run a command, or a command failed there."""


class LabError(WirespeedError):
    """The emulated lab could not be built or torn down."""


class TrialError(WirespeedError):
    """A trial failed; the run records the reason and goes on."""
