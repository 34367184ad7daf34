"""One end of a VPN tunnel on a real host, as the tune journal keeps it: what to remove.

A tunnel between real hosts (run/host_tunnel.py) makes, on each host it has an end on,
a private directory (/tmp/wirespeed-tunnel-<12 hex>, mode 0700) holding the end's keys
and the pid file of its daemon, the daemon itself (openvpn or wireguard-go, whose
command line names the tunnel's device), the device (wso…/wsw…, gone with the daemon
unless it is the kernel's WireGuard), and for wireguard-go its socket
/var/run/wireguard/DEV.sock. Before any of them is made a row `tunnel:DEV` is journaled
with this record as its previous value. Restoring the row (at the end of the trial, on
Ctrl-C or SIGTERM, and after a SIGKILL by the next run's recovery) stops the daemon,
deletes the device and the socket and removes the directory; it is idempotent, so a
restore cut short is simply done again.

The undo is a POSIX sh script run with `sh -c` and its values as arguments (busybox sh
and applets are enough: an OpenWrt router has no bash). A journal row is input too (it
may have been edited), so the record is checked before it reaches `rm -rf`: the
directory must be exactly one that wirespeed names.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from wirespeed.tune.refused import RefusedError, check_interface

__all__ = [
    "TunnelEnd",
    "gone_argv",
    "removed_words",
    "tunnel_directory",
    "tunnel_target",
    "undo_argv",
]

_DIRECTORY = re.compile(r"/tmp/wirespeed-tunnel-[0-9a-f]{12}")
SOCKET_DIRECTORY = "/var/run/wireguard"  # wireguard-go's (tools/wireguard.py)

# Stop the daemons whose pid files are in the directory ($1), those only whose command
# line still names the device ($2: a pid reused since belongs to a stranger), TERM then,
# after 3 s, KILL (a busybox without fractional sleep waits whole seconds); then the
# device, the socket ($3) and the directory.
_UNDO = """\
d=$1 dev=$2 sock=$3 live=
for f in "$d"/*.pid; do
  [ -f "$f" ] || continue
  p=$(cat "$f" 2>/dev/null)
  case "$p" in ''|*[!0-9]*) continue ;; esac
  tr '\\0' ' ' < "/proc/$p/cmdline" 2>/dev/null | grep -qF -- "$dev" || continue
  kill -TERM "$p" 2>/dev/null && live="$live $p"
done
n=0
while [ -n "$live" ] && [ $n -lt 30 ]; do
  sleep 0.1 2>/dev/null || sleep 1
  still=
  for p in $live; do kill -0 "$p" 2>/dev/null && still="$still $p"; done
  live=$still
  n=$((n + 1))
done
for p in $live; do kill -KILL "$p" 2>/dev/null; done
if ip link show dev "$dev" >/dev/null 2>&1; then ip link del dev "$dev" || exit 1; fi
rm -f "$sock" && rm -rf "$d"
"""

_GONE = """\
[ ! -e "$1" ] && [ ! -e "$3" ] && ! ip link show dev "$2" >/dev/null 2>&1
"""


def tunnel_target(dev: str) -> str:
    return f"tunnel:{check_interface(dev)}"


def tunnel_directory(token: str) -> str:
    """The end's private directory for a token of 12 hex digits."""
    directory = f"/tmp/wirespeed-tunnel-{token}"
    if not _DIRECTORY.fullmatch(directory):
        raise ValueError(f"not a tunnel directory's token: {token!r}")
    return directory


@dataclass(frozen=True)
class TunnelEnd:
    """What one tunnel end leaves on its host: its device and its private directory."""

    dev: str
    directory: str

    @property
    def socket(self) -> str:
        return f"{SOCKET_DIRECTORY}/{self.dev}.sock"

    def to_json(self) -> str:
        return json.dumps({"dev": self.dev, "directory": self.directory}, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TunnelEnd:
        """A journal row's record; RefusedError for anything the undo must not touch."""
        try:
            data = json.loads(text)
            dev, directory = data["dev"], data["directory"]
            if not isinstance(dev, str) or not isinstance(directory, str):
                raise TypeError("dev and directory are strings")
        except (ValueError, KeyError, TypeError) as error:
            raise RefusedError(f"refused tunnel record {text[:120]!r}: {error}") from None
        if not _DIRECTORY.fullmatch(directory):
            raise RefusedError(f"refused tunnel directory {directory!r}")
        return cls(check_interface(dev), directory)


def removed_words(target: str, previous: str, host: str) -> str | None:
    """'tunnel wsw… on root@router removed: its daemon, device and keys' for a tunnel
    end's journal row; None for any other row."""
    if not target.startswith("tunnel:"):
        return None
    try:
        end = TunnelEnd.from_json(previous.strip())
    except RefusedError:
        return None
    return (
        f"tunnel {end.dev} on {host} removed: its daemon, device and key directory "
        f"{end.directory}, left by a run that died"
    )


def undo_argv(end: TunnelEnd) -> list[str]:
    return ["sh", "-c", _UNDO, "sh", end.directory, end.dev, end.socket]


def gone_argv(end: TunnelEnd) -> list[str]:
    """Exits 0 when nothing of the end is left: no directory, socket or device."""
    return ["sh", "-c", _GONE, "sh", end.directory, end.dev, end.socket]
