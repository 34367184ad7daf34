"""tcpreplay's frame file on a sending host, as the tune journal keeps it: what to remove.

A forwarding-rate search sent by tcpreplay (run/search_generators.py) writes the one
frame it replays as a pcap file, /tmp/wirespeed-frame-<12 hex>.pcap, on each sending
host: this machine, a namespace of it, or a device over SSH. Before the file is written
a row `frame:<12 hex>` is journaled, its previous value `absent`. Restoring the row (when
the search's frame size is done, on Ctrl-C or SIGTERM, and after a SIGKILL by the next
run's recovery) removes the file; it is idempotent.

The path is made from the token alone, checked to be 12 hex digits: a journal row is
input too (it may have been edited), and nothing but a file that wirespeed names can
reach `rm -f`.
"""

from __future__ import annotations

import re

__all__ = [
    "ABSENT",
    "frame_path",
    "frame_target",
    "gone_argv",
    "path_of_target",
    "remove_argv",
    "removed_words",
]

ABSENT = "absent"  # the row's previous value: before the search, no file was there
_TOKEN = re.compile(r"[0-9a-f]{12}")
_TARGET = re.compile(r"frame:(?P<token>[0-9a-f]{12})")


def frame_path(token: str) -> str:
    """The frame file of a token of 12 hex digits."""
    if not _TOKEN.fullmatch(token):
        raise ValueError(f"not a frame file's token: {token!r}")
    return f"/tmp/wirespeed-frame-{token}.pcap"


def frame_target(token: str) -> str:
    frame_path(token)  # checked
    return f"frame:{token}"


def path_of_target(target: str) -> str | None:
    """The file a `frame:TOKEN` row stands for; None for any other row."""
    found = _TARGET.fullmatch(target)
    return None if found is None else frame_path(found["token"])


def remove_argv(path: str) -> list[str]:
    return ["rm", "-f", path]


def gone_argv(path: str) -> list[str]:
    """Exits 0 when the file is not there (busybox sh's `[` is enough)."""
    return ["sh", "-c", '[ ! -e "$1" ]', "sh", path]


def removed_words(target: str, host: str) -> str | None:
    """'frame file /tmp/wirespeed-frame-….pcap on root@pc removed' for a frame file's
    journal row; None for any other row."""
    path = path_of_target(target)
    if path is None:
        return None
    return f"removed tcpreplay's frame file {path} on {host}, left by a run that died"
