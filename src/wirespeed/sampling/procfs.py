"""Pure parsers of /proc files: text in, counters out.

Each parser accepts the file as the kernel writes it, and as the sampler forwards it
(the sampler keeps only the cpu lines of /proc/stat and a few lines of /proc/meminfo;
the parsers do not care).
"""

from __future__ import annotations

import re

# /proc/interrupts has one parser, shared with the facts; the sampler calls it from here.
from wirespeed.procfs_interrupts import parse_interrupts
from wirespeed.sampling.model import (
    CpuTimes,
    NetDevCounters,
    SoftirqTable,
    SoftnetCounters,
)

__all__ = [
    "parse_interrupts",
    "parse_loadavg",
    "parse_meminfo",
    "parse_net_dev",
    "parse_pid_stat",
    "parse_softirqs",
    "parse_softnet_stat",
    "parse_stat",
    "parse_udp_snmp",
]

_CPU_COLUMN = re.compile(r"CPU(\d+)")


def parse_stat(text: str) -> tuple[CpuTimes | None, dict[int, CpuTimes]]:
    """/proc/stat: the machine-wide line and one line per online CPU.

    Old kernels print fewer than eight columns (no steal before 2.6.11): missing ones
    are zero. guest and guest_nice are already counted in user and nice.
    """
    total: CpuTimes | None = None
    cpus: dict[int, CpuTimes] = {}
    for line in text.splitlines():
        if not line.startswith("cpu"):
            continue
        label, *values = line.split()
        numbers = [int(value) for value in values[:8]]
        numbers += [0] * (8 - len(numbers))
        times = CpuTimes(*numbers)
        if label == "cpu":
            total = times
        else:
            cpus[int(label[3:])] = times
    return total, cpus


def _header_cpus(header: str) -> tuple[int, ...]:
    return tuple(int(number) for number in _CPU_COLUMN.findall(header))


def parse_softirqs(text: str) -> SoftirqTable:
    lines = text.splitlines()
    if not lines:
        return SoftirqTable((), {})
    cpus = _header_cpus(lines[0])
    counts: dict[str, tuple[int, ...]] = {}
    for line in lines[1:]:
        label, colon, rest = line.partition(":")
        if colon:
            counts[label.strip()] = tuple(int(value) for value in rest.split())
    return SoftirqTable(cpus, counts)


def parse_net_dev(text: str) -> dict[str, NetDevCounters]:
    """/proc/net/dev: two header lines, then `name: 8 receive and 8 transmit columns`.

    Old kernels print large byte counts glued to the colon ("eth0:1234"), so the name
    is split at the colon, not at whitespace.
    """
    interfaces: dict[str, NetDevCounters] = {}
    for line in text.splitlines():
        name, colon, rest = line.partition(":")
        values = rest.split()
        if not colon or "|" in line or len(values) < 16:
            continue
        numbers = [int(value) for value in values[:16]]
        interfaces[name.strip()] = NetDevCounters(
            rx_bytes=numbers[0],
            rx_packets=numbers[1],
            rx_errors=numbers[2],
            rx_dropped=numbers[3],
            tx_bytes=numbers[8],
            tx_packets=numbers[9],
            tx_errors=numbers[10],
            tx_dropped=numbers[11],
        )
    return interfaces


def parse_udp_snmp(text: str) -> dict[str, int]:
    """The Udp: counters of /proc/net/snmp (a header line of names, then one of values):
    {"InDatagrams": 3581732, "NoPorts": 5, "InErrors": 7921, "OutDatagrams": ...}.
    Empty when the file has no Udp: lines."""
    rows = [line.split()[1:] for line in text.splitlines() if line.startswith("Udp:")]
    if len(rows) < 2 or len(rows[0]) != len(rows[1]):
        return {}
    return {name: int(value) for name, value in zip(rows[0], rows[1], strict=True)}


def parse_softnet_stat(text: str) -> tuple[SoftnetCounters, ...]:
    """/proc/net/softnet_stat: one line of hex columns per online CPU.

    Since Linux 5.10 the 13th column is the CPU's number; before, lines are in CPU
    order and offline CPUs are skipped, so the line number is only a best guess.
    """
    result: list[SoftnetCounters] = []
    for index, line in enumerate(text.splitlines()):
        values = [int(value, 16) for value in line.split()]
        if len(values) < 3:
            continue
        cpu = values[12] if len(values) >= 13 else index
        result.append(SoftnetCounters(cpu, values[0], values[1], values[2]))
    return tuple(result)


def parse_meminfo(text: str) -> dict[str, int]:
    """/proc/meminfo in bytes (the kernel's "kB" is KiB)."""
    memory: dict[str, int] = {}
    for line in text.splitlines():
        key, colon, rest = line.partition(":")
        values = rest.split()
        if not colon or not values:
            continue
        number = int(values[0])
        memory[key.strip()] = number * 1024 if values[1:2] == ["kB"] else number
    return memory


def parse_loadavg(text: str) -> tuple[float, float, float] | None:
    values = text.split()
    if len(values) < 3:
        return None
    return float(values[0]), float(values[1]), float(values[2])


def parse_pid_stat(text: str) -> tuple[int, str, int, int]:
    """/proc/PID/stat: pid, comm, utime and stime in ticks.

    comm is in parentheses and may itself hold spaces and parentheses, so the fields
    after it are found from the *last* closing parenthesis.
    """
    pid_text, _, rest = text.partition(" (")
    comm, _, tail = rest.rpartition(") ")
    fields = tail.split()
    # tail starts at field 3 (state); utime and stime are fields 14 and 15.
    return int(pid_text), comm, int(fields[11]), int(fields[12])
