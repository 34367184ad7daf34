"""Who a row in the store belongs to: the wirespeed process that wrote it, named so that
another process (later, or on another machine sharing the store) can tell whether it
still runs.

An owner is "hostname/boot_id/pid/starttime": a pid alone may be reused, and a pid with
its start time (in clock ticks since boot, /proc/PID/stat field 22) names one process of
one boot. Used by the tuning journal and by runs (a run whose owner lives is not resumed).
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

BOOT_ID = "/proc/sys/kernel/random/boot_id"


def _boot_id() -> str:
    try:
        return Path(BOOT_ID).read_text().strip()
    except OSError:
        return "unknown"


def _start_time(pid: int, *, running: bool = False) -> str | None:
    """The process's start time in clock ticks since boot (/proc/PID/stat field 22): with
    the pid, it names one process; a reused pid has another start time. running: None
    for a process that has ended and only waits to be reaped (a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()
    if len(fields) <= 19 or (running and fields[0] in ("Z", "X")):
        return None
    return fields[19]


def process_owner(pid: int | None = None) -> str:
    pid = os.getpid() if pid is None else pid
    return f"{socket.gethostname()}/{_boot_id()}/{pid}/{_start_time(pid)}"


def owner_alive(owner: str) -> bool | None:
    """Whether the process named by `owner` still runs; None when it ran on another
    machine (a shared store), where this one cannot tell."""
    hostname, _, rest = owner.partition("/")
    boot, _, rest = rest.partition("/")
    pid, _, started = rest.partition("/")
    if hostname != socket.gethostname():
        return None
    if boot != _boot_id() or not pid.isdigit():
        return False
    return _start_time(int(pid), running=True) == started


def describe_owner(owner: str) -> str:
    """'process 1234 on host lab1', for messages."""
    hostname, _, rest = owner.partition("/")
    pid = rest.partition("/")[2].partition("/")[0]
    return f"process {pid} on {hostname}"
