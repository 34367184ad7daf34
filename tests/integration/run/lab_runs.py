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
    return Path(f"/proc/{pid}").exists()
