"""Where facts come from: a live machine's /proc and /sys, or a captured copy of them.

Everything a reader asks is optional: a file that is missing, unreadable or refuses to be
read (sysfs answers EINVAL for `speed` of a link that is down, ENOENT for `xps_cpus` of a
single-queue device) reads as None, and the fact built from it is null.

sysfs is mostly symlinks: /sys/class/net/eth1 points into /sys/devices/..., and `device`,
`driver` and `subsystem` inside it point elsewhere again. A captured tree keeps those links
(relative, as the kernel makes them), so TreeSource resolves paths one component at a
time *inside* the tree: an absolute target is re-rooted, and `..` never climbs above the
tree's root. With root "/" that is plain realpath on this machine. A captured tree may hold
`.keep` files so that git keeps its empty directories (queues/tx-0, a driver's directory a
`driver` link points to); sysfs and procfs have no dot-files, so listings skip them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Protocol

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host

# More hops than any sysfs path needs; a loop in a broken capture stops here.
_MAX_LINK_HOPS = 40


class FactSource(Protocol):
    """Read-only access to one machine's /proc and /sys (paths as that machine sees them)."""

    @property
    def where(self) -> str:
        """Who is being described, for messages: "this machine", "tree DIR"."""
        ...

    def read(self, path: str) -> str | None:
        """The file's text, or None when it is missing or cannot be read."""
        ...

    def list_dir(self, path: str) -> tuple[str, ...] | None:
        """The directory's entries, sorted, or None when it is missing."""
        ...

    def resolve(self, path: str) -> str | None:
        """The canonical path (every symlink followed), or None when it does not exist."""
        ...


class TreeSource:
    """A directory holding proc/ and sys/ (a captured board, or "/" for this machine)."""

    def __init__(self, root: Path, where: str | None = None) -> None:
        self._root = root
        self._where = where or f"tree {root}"

    @property
    def where(self) -> str:
        return self._where

    def _on_disk(self, canonical: str) -> Path:
        return self._root / canonical.lstrip("/")

    def _canonical(self, path: str) -> str | None:
        pending = [part for part in path.split("/") if part]
        done: list[str] = []
        hops = 0
        while pending:
            part = pending.pop(0)
            if part == ".":
                continue
            if part == "..":
                if done:
                    done.pop()
                continue
            candidate = self._on_disk("/" + "/".join([*done, part]))
            if candidate.is_symlink():
                hops += 1
                if hops > _MAX_LINK_HOPS:
                    return None
                try:
                    target = os.readlink(candidate)
                except OSError:
                    return None
                if target.startswith("/"):
                    done = []
                pending = [p for p in target.split("/") if p] + pending
                continue
            done.append(part)
        return "/" + "/".join(done)

    def resolve(self, path: str) -> str | None:
        canonical = self._canonical(path)
        if canonical is None or not os.path.lexists(self._on_disk(canonical)):
            return None
        return canonical

    def read(self, path: str) -> str | None:
        canonical = self._canonical(path)
        if canonical is None:
            return None
        try:
            return self._on_disk(canonical).read_text(encoding="utf-8", errors="replace")
        except (OSError, ValueError):
            return None

    def list_dir(self, path: str) -> tuple[str, ...] | None:
        canonical = self._canonical(path)
        if canonical is None:
            return None
        try:
            entries = os.listdir(self._on_disk(canonical))
        except OSError:
            return None
        return tuple(sorted(e for e in entries if not e.startswith(".")))


class HostSource:
    """A Host's files (a network namespace, later an SSH device), through its own tools.

    Directories and links go through `ls`, `test` and `readlink -f`, which busybox has too.
    """

    def __init__(self, host: Host) -> None:
        self._host = host

    @property
    def where(self) -> str:
        return self._host.name

    def read(self, path: str) -> str | None:
        try:
            return self._host.read_file(path)
        except (OSError, WirespeedError):
            return None

    def _output(self, argv: list[str]) -> str | None:
        try:
            done = self._host.run(argv, timeout=10.0)
        except (OSError, TimeoutError, WirespeedError):
            return None
        return done.stdout if done.returncode == 0 else None

    def list_dir(self, path: str) -> tuple[str, ...] | None:
        text = self._output(["ls", "-1A", path])
        return None if text is None else tuple(sorted(text.split()))

    def resolve(self, path: str) -> str | None:
        # `readlink -f` names a missing last component too (GNU and busybox alike), so the
        # path must exist first; it travels as "$1", never inside the script text.
        text = self._output(["sh", "-c", 'test -e "$1" && readlink -f "$1"', "sh", path])
        if text is None or not text.strip():
            return None
        return text.strip()


def first_line(text: str | None) -> str | None:
    """A one-value sysfs/procfs file as a string: trimmed, device-tree NULs dropped."""
    if text is None:
        return None
    value = text.replace("\0", "").strip()
    return value.splitlines()[0].strip() if value else None


def read_value(source: FactSource, path: str) -> str | None:
    return first_line(source.read(path))


def read_int(source: FactSource, path: str) -> int | None:
    value = read_value(source, path)
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None
