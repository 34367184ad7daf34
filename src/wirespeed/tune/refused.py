"""What tuning refuses, and the first check every interface name passes.

Interface names come from devices, plans and users: a name like `eth0/../../x` must not
become a path outside /sys/class/net. Below the targets (tune/targets.py) and the records
of moved ports and tunnel ends, which all check names this way.
"""

from __future__ import annotations

import re

from wirespeed.errors import UsageError

__all__ = ["RefusedError", "check_interface"]

# IFNAMSIZ is 16 with the NUL: 15 characters. The kernel refuses "/" and whitespace
# (dev_valid_name); the character set here is narrower on purpose.
_IFNAME = re.compile(r"[A-Za-z0-9_.:@-]{1,15}")


class RefusedError(UsageError):
    """A target or value that tuning will not write."""


def check_interface(name: str) -> str:
    if "/" in name or ".." in name or not _IFNAME.fullmatch(name) or set(name) == {"."}:
        raise RefusedError(
            f"refused interface name {name!r}",
            hint="1-15 characters of A-Z a-z 0-9 _ . : @ -, without / or ..",
        )
    return name
