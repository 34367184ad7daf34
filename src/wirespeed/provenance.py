"""What a run ran on: kernel, OS and iperf versions of every host, read at the start.

Everything here is best effort and fast: a host that cannot say its kernel still runs
trials, its provenance just says "unknown".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Completed, Host

_PRETTY_NAME = re.compile(r'^PRETTY_NAME="?(?P<name>[^"\n]*)"?', re.MULTILINE)


def host_facts(host: Host) -> dict[str, str | None]:
    """kernel, os, iperf2 and iperf3 versions of one host; its board and CPU governors
    where it says them (a benchmark's figures depend on both)."""
    facts = {
        "kernel": _first_line(host, ["uname", "-srm"]),
        "os": _os_name(host),
        "iperf2": _iperf2_version(host),
        "iperf3": _iperf3_version(host),
    }
    board = _board(host)
    if board is not None:
        facts["machine"] = board
    governors = _governors(host)
    if governors is not None:
        facts["governor"] = governors
    return facts


# Where a board says its name: the device tree's model (ARM boards), else the firmware's
# product name (x86, VMs).
_BOARD_FILES = ("/proc/device-tree/model", "/sys/class/dmi/id/product_name")
_CPUFREQ = "/sys/devices/system/cpu/cpufreq"


def _read(host: Host, path: str) -> str | None:
    try:
        text = host.read_file(path)
    except (OSError, ValueError, WirespeedError):
        return None
    text = text.replace("\x00", "").strip()
    return text or None


def _board(host: Host) -> str | None:
    for path in _BOARD_FILES:
        found = _read(host, path)
        if found is not None:
            return found.splitlines()[0]
    return None


def _governors(host: Host) -> str | None:
    """ "schedutil", or "policy0 schedutil, policy4 performance" when they differ."""
    try:
        done = host.run(["ls", _CPUFREQ], timeout=5.0)
    except (OSError, TimeoutError, ValueError, WirespeedError):
        return None
    policies = sorted(
        (p for p in done.stdout.split() if p.startswith("policy") and p[6:].isdigit()),
        key=lambda p: int(p[6:]),
    )
    found = {p: _read(host, f"{_CPUFREQ}/{p}/scaling_governor") for p in policies}
    said = {p: g for p, g in found.items() if g}
    if not said:
        return None
    if len(set(said.values())) == 1:
        return next(iter(said.values()))
    return ", ".join(f"{p} {g}" for p, g in said.items())


def collect(hosts: Mapping[str, Host]) -> dict[str, dict[str, str | None]]:
    return {name: host_facts(host) for name, host in hosts.items()}


def _first_line(host: Host, argv: list[str]) -> str | None:
    try:
        done = host.run(argv, timeout=5.0)
    except (OSError, TimeoutError, ValueError, WirespeedError):
        return None
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text and done.returncode == 0 else None


def _os_name(host: Host) -> str | None:
    try:
        text = host.read_file("/etc/os-release")
    except (OSError, ValueError, WirespeedError):  # HostError: the host could not say
        return None
    match = _PRETTY_NAME.search(text)
    return match["name"] if match else None


def _iperf2_version(host: Host) -> str | None:
    from wirespeed.tools.iperf2 import parse_version

    # iperf2 prints its version on stderr.
    return _tool_version(host, "iperf", lambda done: parse_version(done.stderr + done.stdout))


def _iperf3_version(host: Host) -> str | None:
    from wirespeed.tools.iperf3 import parse_version

    return _tool_version(host, "iperf3", lambda done: parse_version(done.stdout + done.stderr))


def _tool_version(host: Host, program: str, parse: Callable[[Completed], str | None]) -> str | None:
    """What `program -v` says its version is; None where it is not installed or says
    nothing that parses."""
    if _which(host, program) is None:
        return None
    try:
        done = host.run([program, "-v"], timeout=5.0)
    except (OSError, TimeoutError, WirespeedError):
        return None
    return parse(done)


def _which(host: Host, program: str) -> str | None:
    try:
        return host.which(program)
    except (OSError, TimeoutError, WirespeedError):  # an SSH device that went away
        return None
