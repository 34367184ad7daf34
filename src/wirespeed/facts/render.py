"""Facts for people (a short block of text) and for programs (versioned JSON).

JSON format history (docs/facts-format.md):
  1  first version.
"""

from __future__ import annotations

import json
from typing import Any

from wirespeed.facts.cpus import parse_cpu_list, parse_cpu_mask
from wirespeed.facts.model import Cluster, Facts, Irq, Nic, QueueMask

FORMAT_NAME = "wirespeed-facts"
FORMAT_VERSION = 1


def cpu_span(cpus: tuple[int, ...]) -> str:
    """(0, 1, 2, 3, 5) -> "cpu0-3,5"."""
    runs: list[str] = []
    start = prev = None
    for cpu in [*cpus, None]:
        if start is not None and (cpu is None or prev is None or cpu != prev + 1):
            runs.append(f"{start}-{prev}" if prev != start else f"{start}")
            start = None
        if cpu is not None and start is None:
            start = cpu
        prev = cpu
    return "cpu" + ",".join(runs) if runs else "none"


def ghz(khz: int | None) -> str:
    return f"{khz / 1e6:.1f} GHz" if khz else "max clock unknown"


def serving_cpus(irq: Irq, columns: tuple[int, ...]) -> tuple[int, ...]:
    """The CPUs that have handled this IRQ at all (counts since boot)."""
    return tuple(cpu for cpu, count in zip(columns, irq.counts, strict=False) if count)


# ---------------------------------------------------------------- text


def render_text(facts: Facts) -> str:
    out: list[str] = [f"facts of {facts.source}"]
    board = f"{facts.board} ({facts.board_from})" if facts.board else "unknown"
    out.append(f"  board       {board}")
    out.append(f"  kernel      {facts.kernel or 'unknown'}")
    out.append(f"  os          {facts.os or 'unknown'}")
    out.extend(_cpu_lines(facts))
    if facts.thermal:
        zones = ", ".join(
            f"{z.kind or z.zone} {z.celsius:.1f} °C" if z.celsius is not None else z.kind or z.zone
            for z in facts.thermal
        )
        out.append(f"  thermal     {zones}")
    elif facts.thermal is None:
        out.append("  thermal     not found (no /sys/class/thermal)")
    else:
        out.append("  thermal     no thermal zones")
    irqbalance = {True: "running", False: "not running", None: "unknown (no process list)"}
    out.append(f"  irqbalance  {irqbalance[facts.irqbalance]}")
    if facts.tools_checked:
        out.append(
            f"  iperf       iperf2 {facts.iperf2 or 'not installed'}, "
            f"iperf3 {facts.iperf3 or 'not installed'}"
        )
    out.append("  network" if facts.nics else "  network     no network interfaces with a device")
    for nic in facts.nics:
        out.extend(_nic_lines(nic, facts.irq_cpus))
    return "\n".join(out) + "\n"


def _cpu_lines(facts: Facts) -> list[str]:
    count = f"{facts.cpu_count} CPUs" if facts.cpu_count else "CPUs unknown"
    cpufreq = "" if facts.cpufreq else ", no cpufreq"
    clusters = len(facts.clusters)
    grouped = f"in {clusters} cluster{'s' if clusters != 1 else ''}"
    lines = [f"  cpus        {count} {grouped}{cpufreq}"]
    fastest = facts.fastest_clusters
    for cluster in facts.clusters:
        parts = [f"    {cpu_span(cluster.cpus):<10} {cluster.core or 'unknown core':<12}"]
        if facts.cpufreq:
            parts.append(ghz(cluster.max_khz))
        if cluster.capacity is not None:
            parts.append(f"capacity {cluster.capacity}")
        if cluster in fastest:
            parts.append("<- fastest")
        lines.append("  ".join(parts))
    return lines


def _nic_lines(nic: Nic, columns: tuple[int, ...]) -> list[str]:
    speed = f"{nic.speed_mbps} Mb/s" if nic.speed_mbps else "speed unknown"
    head = (
        f"    {nic.name:<8} {nic.bus.value:<8} {nic.driver or 'no driver':<14} {speed}, "
        f"MTU {nic.mtu if nic.mtu is not None else '?'}, {nic.operstate or 'state unknown'}, "
        f"{nic.rx_queues} rx / {nic.tx_queues} tx queue(s)"
    )
    lines = [head]
    if nic.irq_device:
        lines.append(f"             interrupts of {nic.irq_device}")
    if not nic.irqs and nic.device:
        lines.append("             no IRQ found")
    for irq in nic.irqs:
        lines.append(f"             {_irq_text(irq, columns)}")
    lines.extend(_mask_line("RPS", q) for q in nic.rps)
    lines.extend(_mask_line("XPS", q) for q in nic.xps if q.mask is not None)
    return lines


def _irq_text(irq: Irq, columns: tuple[int, ...]) -> str:
    names = ", ".join(irq.names) or "not in /proc/interrupts"
    controller = f" ({irq.controller})" if irq.controller else ""
    affinity = irq.smp_affinity or "?"
    if irq.smp_affinity_list:
        affinity += f" = cpus {irq.smp_affinity_list}"
    if irq.effective_affinity_list:
        affinity += f", effective {irq.effective_affinity_list}"
    served = serving_cpus(irq, columns)
    if not irq.counts:
        handled = "no counts"
    elif not served:
        handled = "no interrupts yet"
    else:
        handled = "handled on " + cpu_span(served).replace("cpu", "CPU", 1)
        handled += f" ({irq.total} total)"
    found_by = irq.link.value
    return f"IRQ {irq.number} {names}{controller} [{found_by}]: affinity {affinity}; {handled}"


def _mask_line(kind: str, queue: QueueMask) -> str:
    cpus = parse_cpu_mask(queue.mask)
    if queue.mask is None:
        meaning = "unreadable"
    elif not cpus:
        meaning = "off"
    else:
        meaning = cpu_span(cpus)
    return f"             {kind} {queue.queue}: {queue.mask} ({meaning})"


# ---------------------------------------------------------------- JSON


def to_document(facts: Facts) -> dict[str, Any]:
    fastest = facts.fastest_clusters
    return {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "source": facts.source,
        "board": {"model": facts.board, "from": facts.board_from},
        "kernel": {"release": facts.kernel, "version": facts.kernel_version},
        "os": facts.os,
        "cpus": {
            "count": facts.cpu_count,
            "cpufreq": facts.cpufreq,
            "clusters": [_cluster(c, c in fastest) for c in facts.clusters],
        },
        "thermal": (
            None
            if facts.thermal is None
            else [{"zone": z.zone, "type": z.kind, "celsius": z.celsius} for z in facts.thermal]
        ),
        "irqbalance": facts.irqbalance,
        "interrupt_cpus": list(facts.irq_cpus),
        "nics": [_nic(n, facts.irq_cpus) for n in facts.nics],
        "tools": (
            {"iperf2": facts.iperf2, "iperf3": facts.iperf3} if facts.tools_checked else None
        ),
    }


def to_json(facts: Facts) -> str:
    return json.dumps(to_document(facts), indent=2, ensure_ascii=False)


def _cluster(cluster: Cluster, fastest: bool) -> dict[str, Any]:
    return {
        "cpus": list(cluster.cpus),
        "core": cluster.core,
        "part": cluster.part,
        "max_khz": cluster.max_khz,
        "capacity": cluster.capacity,
        "cpufreq_policy": cluster.policy,
        "fastest": fastest,
    }


def _nic(nic: Nic, columns: tuple[int, ...]) -> dict[str, Any]:
    return {
        "name": nic.name,
        "bus": nic.bus.value,
        "driver": nic.driver,
        "device": nic.device,
        "irq_device": nic.irq_device,
        "speed_mbps": nic.speed_mbps,
        "mtu": nic.mtu,
        "operstate": nic.operstate,
        "rx_queues": nic.rx_queues,
        "tx_queues": nic.tx_queues,
        "irqs": [_irq(irq, columns) for irq in nic.irqs],
        "rps": [_mask(q) for q in nic.rps],
        "xps": [_mask(q) for q in nic.xps],
    }


def _irq(irq: Irq, columns: tuple[int, ...]) -> dict[str, Any]:
    return {
        "irq": irq.number,
        "names": list(irq.names),
        "controller": irq.controller,
        "found_by": irq.link.value,
        "smp_affinity": irq.smp_affinity,
        "smp_affinity_list": irq.smp_affinity_list,
        "affinity_cpus": _list_or_none(parse_cpu_list(irq.smp_affinity_list)),
        "effective_affinity_list": irq.effective_affinity_list,
        "counts": {str(cpu): count for cpu, count in zip(columns, irq.counts, strict=False)},
        "handled_on": list(serving_cpus(irq, columns)),
    }


def _mask(queue: QueueMask) -> dict[str, Any]:
    return {
        "queue": queue.queue,
        "mask": queue.mask,
        "cpus": _list_or_none(parse_cpu_mask(queue.mask)),
    }


def _list_or_none(values: tuple[int, ...] | None) -> list[int] | None:
    return None if values is None else list(values)
