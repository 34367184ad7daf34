"""Where to log in to an SSH device, and what counts as a host name or address.

    target = SshTarget.parse("root@r4s.lan:2222")   # ValueError says what is wrong

Plans, `facts`, `tune` and the lab's SSH DUT all name devices this way; it lives with the
hosts so that hosts/ and lab/ need nothing from plan/.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

# Hosts, users and ports as they are written, and nothing else: these values reach
# command lines (iperf's -c, and on an SSH device a shell), so `;`, `$(`, quotes, spaces
# and a leading `-` (an option to whatever reads it) are refused here, at the door.
_LABEL = r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?"
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*\.?")
_ZONE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,14}")  # fe80::1%eth0: an interface name
_SSH = re.compile(
    r"(?:(?P<user>[A-Za-z0-9_][A-Za-z0-9_.-]{0,63})@)?"
    r"(?P<host>\[[^\[\]]*\]|[^@:\[\]]+)(?::(?P<port>[0-9]{1,5}))?"
)


def is_host(text: str) -> bool:
    """An IPv4 or IPv6 address (with a zone, fe80::1%eth0) or a DNS host name."""
    if len(text) > 253:
        return False
    if _HOST_NAME.fullmatch(text):
        return True
    address, _, zone = text.partition("%")
    if zone and not _ZONE.fullmatch(zone):
        return False
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return False
    return not zone or parsed.version == 6


@dataclass(frozen=True)
class SshTarget:
    """Where to log in: `root@192.168.0.62:22`. user None: ssh's own default; port None:
    the one ~/.ssh/config gives the host, else 22 (a port written out wins over both)."""

    host: str
    user: str | None = None
    port: int | None = None

    def __post_init__(self) -> None:
        if not self.host:
            raise ValueError("an SSH target needs a host")
        if self.port is not None and not 1 <= self.port <= 65535:
            raise ValueError(f"SSH port {self.port} is not in 1..65535")

    @classmethod
    def parse(cls, text: str) -> SshTarget:
        """'root@192.168.0.62', 'root@r4s.lan:2222', '[fe80::1]:22' -> SshTarget."""
        match = _SSH.fullmatch(text)
        if not match:
            raise ValueError(
                f"{text!r} is not an SSH target: write user@host or user@host:port "
                "(a user of letters, digits and . _ -)"
            )
        host = match["host"]
        if host.startswith("["):
            host = host[1:-1]  # [IPv6]:port; the brackets only separate the port
            if ":" not in host or not is_host(host):
                raise ValueError(f"{text!r} is not an SSH target: [{host}] is not an IPv6 address")
        elif not is_host(host):
            raise ValueError(
                f"{text!r} is not an SSH target: {host!r} is not an IP address or a host name "
                "(letters, digits, - and .; IPv6 in brackets: root@[fe80::1]:22)"
            )
        port = int(match["port"]) if match["port"] else None
        return cls(host=host, user=match["user"], port=port)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        user = f"{self.user}@" if self.user else ""
        return f"{user}{host}" if self.port is None else f"{user}{host}:{self.port}"
