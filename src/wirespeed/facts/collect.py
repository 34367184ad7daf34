"""All facts about one machine, from a FactSource (and its Host, for tool versions)."""

from __future__ import annotations

import re

from wirespeed.errors import WirespeedError
from wirespeed.facts.cpus import read_clusters
from wirespeed.facts.interrupts import parse_interrupts
from wirespeed.facts.model import Facts, ThermalZone
from wirespeed.facts.nics import read_nics
from wirespeed.facts.read import FactSource, read_int, read_value
from wirespeed.hosts.base import Host

_PRETTY_NAME = re.compile(r'^PRETTY_NAME=["\']?(?P<name>[^"\'\n]*)', re.MULTILINE)
_THERMAL_DIR = "/sys/class/thermal"


def collect(source: FactSource, host: Host | None = None, include_virtual: bool = False) -> Facts:
    """Read everything; host (when given) runs iperf -v and iperf3 -v."""
    clusters, cpu_count, cpufreq = read_clusters(source)
    interrupts = source.read("/proc/interrupts")
    table = parse_interrupts(interrupts) if interrupts else None
    board, board_from = read_board(source)
    iperf2, iperf3 = tool_versions(host) if host is not None else (None, None)
    return Facts(
        source=source.where,
        board=board,
        board_from=board_from,
        kernel=read_value(source, "/proc/sys/kernel/osrelease"),
        kernel_version=read_value(source, "/proc/version"),
        os=read_os(source),
        cpu_count=cpu_count,
        clusters=clusters,
        cpufreq=cpufreq,
        thermal=read_thermal(source),
        irq_cpus=table.cpus if table else (),
        nics=read_nics(source, table, include_virtual),
        irqbalance=irqbalance_runs(source),
        iperf2=iperf2,
        iperf3=iperf3,
        tools_checked=host is not None,
    )


def read_board(source: FactSource) -> tuple[str | None, str | None]:
    # /proc/device-tree is a link to /sys/firmware/devicetree/base; either may be absent
    # (no procfs link on some kernels, no /sys/firmware in a container). DMI is x86's.
    for path in ("/proc/device-tree/model", "/sys/firmware/devicetree/base/model"):
        model = read_value(source, path)
        if model:
            return model, "device-tree"
    vendor = read_value(source, "/sys/class/dmi/id/sys_vendor")
    product = read_value(source, "/sys/class/dmi/id/product_name")
    dmi = " ".join(part for part in (vendor, product) if part)
    return (dmi, "dmi") if dmi else (None, None)


def read_os(source: FactSource) -> str | None:
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        text = source.read(path)
        match = _PRETTY_NAME.search(text or "")
        if match and match["name"]:
            return match["name"]
    return None


def read_thermal(source: FactSource) -> tuple[ThermalZone, ...] | None:
    entries = source.list_dir(_THERMAL_DIR)
    if entries is None:
        return None
    zones = []
    for zone in entries:
        if not zone.startswith("thermal_zone"):
            continue
        millidegrees = read_int(source, f"{_THERMAL_DIR}/{zone}/temp")
        zones.append(
            ThermalZone(
                zone=zone,
                kind=read_value(source, f"{_THERMAL_DIR}/{zone}/type"),
                celsius=millidegrees / 1000 if millidegrees is not None else None,
            )
        )
    return tuple(zones)


def irqbalance_runs(source: FactSource) -> bool | None:
    """Whether an irqbalance process exists; None when /proc lists no processes at all
    (a captured tree), because then nobody looked."""
    pids = [entry for entry in source.list_dir("/proc") or () if entry.isdigit()]
    if not pids:
        return None
    return any(read_value(source, f"/proc/{pid}/comm") == "irqbalance" for pid in pids)


def tool_versions(host: Host) -> tuple[str | None, str | None]:
    from wirespeed.tools import iperf2, iperf3

    def version(program: str) -> str | None:
        if host.which(program) is None:
            return None
        try:
            done = host.run([program, "-v"], timeout=5.0)
        except (OSError, TimeoutError, WirespeedError):
            return None
        # iperf2 prints its version on stderr, iperf3 on stdout.
        parse = iperf2.parse_version if program == "iperf" else iperf3.parse_version
        return parse(done.stderr + done.stdout)

    return version("iperf"), version("iperf3")
