"""Read a lab's live state back from the kernel, for `wirespeed lab status`."""

from __future__ import annotations

import json


def parse_ip_addr_json(text: str) -> dict[str, tuple[str, ...]]:
    """`ip -j addr show` -> {interface: ("198.18.1.2/24", ...)}; loopback left out.

    Empty for empty or unreadable output (a namespace that vanished meanwhile)."""
    try:
        interfaces = json.loads(text) if text.strip() else []
    except json.JSONDecodeError:
        return {}
    addresses: dict[str, tuple[str, ...]] = {}
    for interface in interfaces:
        name = interface.get("ifname")
        if not name or name == "lo":
            continue
        addresses[name] = tuple(
            f"{info['local']}/{info['prefixlen']}"
            for info in interface.get("addr_info", [])
            if info.get("family") == "inet" and "local" in info
        )
    return addresses
