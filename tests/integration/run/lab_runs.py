"""Helpers of the lab run tests: unique lab prefixes and what a lab left behind."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

_serial = itertools.count(1)
WIRESPEED = [sys.executable, "-m", "wirespeed.cli.app"]


def unique_prefix(label: str) -> str:
    return f"r{os.getpid()}-{next(_serial)}-{label}"


def namespaces_of(prefix: str) -> list[str]:
    listed = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=True)
    names = [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]
    return [n for n in names if n.startswith(f"wirespeed-{prefix}-")]


def pids_in(namespaces: list[str]) -> set[int]:
    pids: set[int] = set()
    for namespace in namespaces:
        listed = subprocess.run(
            ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
        )
        pids |= {int(p) for p in listed.stdout.split()}
    return pids


def alive(pid: int) -> bool:
    """Running, or able to run: a zombie (state Z) has ended and only waits to be reaped
    by whoever inherited it, which here may be a PID 1 that reaps lazily."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    state = stat.rsplit(")", 1)[1].split()[0]
    if state != "Z":
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
        print(f"still alive: {pid} state {state}: {cmdline!r}")
    return state != "Z"
