"""Facts -> TunePlan: spread the NICs' interrupts over the fastest cores.

The seed's R4S recipe, generalised: each NIC gets a core of its own from the fastest
cores (the RK3399's Cortex-A72s, cpu4 and cpu5; the RK3588's Cortex-A76s, cpu4-7, which
sit in two clusters), its IRQs are pinned there (smp_affinity) and its receive and
transmit queues steered there too (rps_cpus, xps_cpus), so one packet's interrupt,
protocol work and completion stay on one warm cache. CPU0 comes last among equals: the
timer, storage and every IRQ nobody moved land there by default. With more NICs than fast
cores, NICs share fast cores rather than fall back to slow ones.

Only knobs whose current value could be read become changes: an unknown previous value
could not be restored exactly.
"""

from __future__ import annotations

from wirespeed.facts.model import Facts, Nic
from wirespeed.facts.render import ghz
from wirespeed.tune.model import Assignment, Change, TunePlan, cpus_text, mask_of, same_mask

IRQBALANCE_WARNING = (
    "irqbalance is running: it rewrites smp_affinity every few seconds and will undo this "
    "plan; stop it for the benchmark (systemctl stop irqbalance, or "
    "/etc/init.d/irqbalance stop on OpenWrt)"
)


def suggest(facts: Facts) -> TunePlan:
    candidates = candidate_cpus(facts)
    warnings: list[str] = []
    if facts.irqbalance:
        warnings.append(IRQBALANCE_WARNING)
    nics = sorted(facts.nics, key=lambda nic: nic.name)
    if len(candidates) < 2:
        warnings.append("one CPU only: there is nothing to spread")
        return TunePlan(facts.source, candidates, (), (), (), tuple(warnings))
    if not nics:
        warnings.append("no physical network interface found")
    assignments: list[Assignment] = []
    changes: list[Change] = []
    kept: list[Change] = []
    placed: dict[int, str] = {}  # IRQ -> the NIC that placed it
    for index, nic in enumerate(nics):
        cpu = candidates[index % len(candidates)]
        reason = _reason(facts, cpu, nic)
        shared = tuple(irq.number for irq in nic.irqs if irq.number in placed)
        for number in shared:
            warnings.append(
                f"{nic.name} and {placed[number]} share IRQ {number}: it stays with "
                f"{placed[number]}'s core"
            )
        assignments.append(Assignment(nic.name, cpu, tuple(i.number for i in nic.irqs), shared))
        for proposal in _proposals(nic, cpu, reason, shared):
            (kept if same_mask(proposal.old, proposal.new) else changes).append(proposal)
        for irq in nic.irqs:
            placed.setdefault(irq.number, nic.name)
        if not nic.irqs:
            warnings.append(f"{nic.name}: no IRQ found, only its queues are steered")
    return TunePlan(
        source=facts.source,
        candidates=candidates,
        assignments=tuple(assignments),
        changes=tuple(changes),
        kept=tuple(kept),
        warnings=tuple(warnings),
    )


def candidate_cpus(facts: Facts) -> tuple[int, ...]:
    """The fastest cores, over however many clusters hold them (all CPUs when they are
    alike), CPU0 last."""
    fastest = facts.fastest_clusters
    if fastest:
        cpus = tuple(sorted(cpu for cluster in fastest for cpu in cluster.cpus))
    elif facts.clusters:
        cpus = tuple(sorted(cpu for cluster in facts.clusters for cpu in cluster.cpus))
    else:
        cpus = facts.irq_cpus
    return tuple(sorted(cpus, key=lambda cpu: (cpu == 0, cpu)))


def _reason(facts: Facts, cpu: int, nic: Nic) -> str:
    cluster = next((c for c in facts.clusters if cpu in c.cpus), None)
    if cluster is None:
        return f"{nic.name} on its own core"
    core = cluster.core or "core"
    fastest = facts.fastest_clusters
    if cluster in fastest:
        among = "fastest cluster" if len(fastest) == 1 else "fastest cores"
        return f"{nic.name} on cpu {cpu}, a {core} at {ghz(cluster.max_khz)} ({among})"
    return f"{nic.name} on cpu {cpu}, kept apart from the other NICs and from cpu 0"


def _proposals(nic: Nic, cpu: int, reason: str, shared: tuple[int, ...]) -> list[Change]:
    mask = mask_of((cpu,))

    def onto_cpu(path: str, old: str, why: str, subject: str) -> Change:
        return Change(path=path, old=old, new=mask, why=why, subject=subject)

    out: list[Change] = []
    for irq in nic.irqs:
        if irq.number in shared or irq.smp_affinity is None:
            continue
        via = f", {irq.names[0]}" if irq.names and irq.names[0] != nic.name else ""
        out.append(
            onto_cpu(
                f"/proc/irq/{irq.number}/smp_affinity",
                irq.smp_affinity,
                f"interrupts of {reason}",
                f"IRQ {irq.number} ({nic.name}{via})",
            )
        )
    steering = (
        ("RPS", "rps_cpus", nic.rps, "receive packet steering with the IRQ"),
        ("XPS", "xps_cpus", nic.xps, "transmit queue chosen on the same core"),
    )
    for label, knob, queues, purpose in steering:
        for queue in queues:
            if queue.mask is not None:
                out.append(
                    onto_cpu(
                        f"/sys/class/net/{nic.name}/queues/{queue.queue}/{knob}",
                        queue.mask,
                        f"{purpose}: {reason}",
                        f"{label} {nic.name} {queue.queue}",
                    )
                )
    return out


def explain(change: Change) -> str:
    """ "IRQ 27 (eth0): 3f (cpus 0-5) → 10 (cpu 4)"."""
    subject = change.subject or change.path
    if change.path.endswith(("smp_affinity", "rps_cpus", "xps_cpus")):
        old = "?" if change.old is None else change.old
        return (
            f"{subject}: {old} ({cpus_text(change.old)}) → {change.new} ({cpus_text(change.new)})"
        )
    return f"{subject}: {change.old if change.old is not None else '?'} → {change.new}"


def render_plan(plan: TunePlan) -> str:
    out = [f"tuning plan for {plan.source}"]
    if plan.candidates:
        out.append(f"  cores to use  {', '.join(f'cpu {c}' for c in plan.candidates)}")
    for assignment in plan.assignments:
        irqs = ", ".join(f"IRQ {n}" for n in assignment.irqs) or "no IRQ found"
        out.append(f"  {assignment.nic:<8} → cpu {assignment.cpu}  ({irqs})")
    if plan.changes:
        out.append("  changes")
        for change in plan.changes:
            out.append(f"    {explain(change)}")
            out.append(f"      why: {change.why}")
    else:
        out.append("  nothing to change")
    if plan.kept:
        out.append("  already so")
        out.extend(f"    {explain(change)}" for change in plan.kept)
    out.extend(f"  warning: {warning}" for warning in plan.warnings)
    return "\n".join(out) + "\n"


def plan_document(plan: TunePlan) -> dict[str, object]:
    def change(c: Change) -> dict[str, object]:
        return {"path": c.path, "old": c.old, "new": c.new, "why": c.why, "subject": c.subject}

    return {
        "format": "wirespeed-tune-plan",
        "version": 1,
        "source": plan.source,
        "candidates": list(plan.candidates),
        "assignments": [
            {"nic": a.nic, "cpu": a.cpu, "irqs": list(a.irqs), "shared_irqs": list(a.shared_irqs)}
            for a in plan.assignments
        ],
        "changes": [change(c) for c in plan.changes],
        "kept": [change(c) for c in plan.kept],
        "warnings": list(plan.warnings),
    }
