"""A variant's CPU knobs on a device: cores online, cpufreq governor, maximum frequency.

    changes = cpu_changes_for(variant, host)   # UsageError if the device cannot do it

Everything is read through Host.read_file, as the device sees its /sys, so a captured
tree stands in for a device in tests. The changes go through the tune journal like RPS
and offloads (tune/apply.py): each previous value is committed before its file is
written, and written back exactly when the variant ends, on Ctrl-C, or at the next start
after a crash.

Order matters to the kernel: a policy whose CPUs are all offline takes no governor, so
CPUs come online first, then the cpufreq knobs are set, then CPUs go offline. Restoring
runs newest first, which undoes them in the safe order too.
"""

from __future__ import annotations

from wirespeed.errors import UsageError, WirespeedError
from wirespeed.facts.cpus import parse_cpu_list
from wirespeed.hosts.base import Host
from wirespeed.plan.plan import ALL_POLICIES, Variant
from wirespeed.tune.model import Change

CPU_DIR = "/sys/devices/system/cpu"


def khz_text(khz: int) -> str:
    """1416000 -> "1.416 GHz", 800000 -> "800 MHz": for people."""
    for scale, unit in ((1_000_000, "GHz"), (1_000, "MHz")):
        if khz >= scale:
            return f"{khz / scale:g} {unit}"
    return f"{khz} kHz"


def _read(host: Host, path: str) -> str | None:
    try:
        return host.read_file(path)
    except (OSError, WirespeedError):
        return None


def present_cpus(host: Host) -> tuple[int, ...]:
    """The CPUs the kernel knows of, online or not (`present`; `online` if it has none)."""
    for name in ("present", "possible", "online"):
        cpus = parse_cpu_list(_read(host, f"{CPU_DIR}/{name}"))
        if cpus:
            return cpus
    raise UsageError(f"cannot read the CPUs of {host.name} ({CPU_DIR}/present)")


def policies(host: Host, cpus: tuple[int, ...]) -> dict[int, frozenset[int]]:
    """cpufreq policies by their first CPU (policy4 -> 4) -> the CPUs they govern.

    Found by reading policyN/related_cpus for each CPU N: a Host lists no directories,
    and cpufreq names each policy after its first CPU."""
    found: dict[int, frozenset[int]] = {}
    for cpu in cpus:
        base = f"{CPU_DIR}/cpufreq/policy{cpu}"
        related = parse_cpu_list(_read(host, f"{base}/related_cpus"))
        related = related or parse_cpu_list(_read(host, f"{base}/affected_cpus"))
        if related:
            found[cpu] = frozenset(related)
    return found


def cpu_changes_for(variant: Variant, host: Host) -> list[Change]:
    """The journaled changes that put a device's CPUs into the variant's state; only
    knobs whose value differs. UsageError (with a hint) for what the device cannot do."""
    if not variant.changes_cpus:
        return []
    why = f"variant {variant.name}"
    label = f"variant {variant.name!r} on {host.name}"
    present = present_cpus(host)
    online_after = set(present)
    coming_up: list[Change] = []
    going_down: list[Change] = []
    if variant.cpus_online is not None:
        absent = [cpu for cpu in variant.cpus_online if cpu not in present]
        if absent:
            raise UsageError(
                f"{label}: cpu{absent[0]} is not there (its CPUs are "
                f"{', '.join(f'cpu{c}' for c in present)})",
                hint="list only CPUs of the device in cpus_online",
            )
        online_after = set(variant.cpus_online)
        for cpu in present:
            if cpu == 0:
                continue
            wanted = "1" if cpu in online_after else "0"
            path = f"{CPU_DIR}/cpu{cpu}/online"
            now = _read(host, path)
            if now is None:
                if wanted == "1":
                    continue  # a CPU that cannot be hot-plugged is online
                raise UsageError(
                    f"{label}: cpu{cpu} cannot go offline: {path} is absent",
                    hint=f"keep cpu{cpu} in cpus_online (its kernel cannot unplug it)",
                )
            if now.strip() == wanted:
                continue
            state = "online" if wanted == "1" else "offline"
            change = Change(path, now, wanted, why, f"cpu{cpu} {state}")
            (coming_up if wanted == "1" else going_down).append(change)
    cpufreq = _cpufreq_changes(
        variant, host, present=present, online_after=online_after, label=label, why=why
    )
    return coming_up + cpufreq + going_down


def _cpufreq_changes(
    variant: Variant,
    host: Host,
    *,
    present: tuple[int, ...],
    online_after: set[int],
    label: str,
    why: str,
) -> list[Change]:
    if variant.governor is None and not variant.max_freq:
        return []
    known = policies(host, present)
    if not known:
        raise UsageError(
            f"{label}: no cpufreq ({CPU_DIR}/cpufreq/policyN is absent)",
            hint="leave governor and max_freq out for a device without frequency scaling",
        )
    active = {first: cpus for first, cpus in known.items() if cpus & online_after}
    per_policy = dict(variant.max_freq)
    for first in per_policy:
        if first == ALL_POLICIES:
            continue
        if first not in known:
            raise UsageError(
                f"{label}: no cpufreq policy{first}",
                hint=f"its policies are {', '.join(f'policy{p}' for p in sorted(known))}",
            )
        if first not in active:
            raise UsageError(
                f"{label}: every CPU of policy{first} is offline in this variant, "
                "so its max_freq cannot be set",
                hint="drop that policy's max_freq, or keep one of its CPUs online",
            )
    changes: list[Change] = []
    for first in sorted(active):
        base = f"{CPU_DIR}/cpufreq/policy{first}"
        if variant.governor is not None:
            changes += _governor_change(variant.governor, host, base, label, why)
        khz = per_policy.get(first, per_policy.get(ALL_POLICIES))
        if khz is not None:
            changes += _max_freq_change(khz, host, base, label, why)
    return changes


def _governor_change(governor: str, host: Host, base: str, label: str, why: str) -> list[Change]:
    policy = base.rsplit("/", 1)[1]
    offered = _read(host, f"{base}/scaling_available_governors")
    now = _read(host, f"{base}/scaling_governor")
    if offered is None or now is None:
        raise UsageError(
            f"{label}: {policy} has no scaling_governor or scaling_available_governors",
            hint="leave governor out for this device",
        )
    if governor not in offered.split():
        raise UsageError(
            f"{label}: {policy} has no governor {governor!r}",
            hint=f"its kernel offers {', '.join(offered.split())}",
        )
    if now.strip() == governor:
        return []
    return [Change(f"{base}/scaling_governor", now, governor, why, f"{policy} governor")]


def _max_freq_change(khz: int, host: Host, base: str, label: str, why: str) -> list[Change]:
    policy = base.rsplit("/", 1)[1]
    now = _read(host, f"{base}/scaling_max_freq")
    if now is None:
        raise UsageError(
            f"{label}: {policy} has no scaling_max_freq", hint="leave max_freq out for it"
        )
    lowest = _khz(_read(host, f"{base}/cpuinfo_min_freq"))
    highest = _khz(_read(host, f"{base}/cpuinfo_max_freq"))
    if (lowest is not None and khz < lowest) or (highest is not None and khz > highest):
        span = f"{khz_text(lowest) if lowest else '?'} to {khz_text(highest) if highest else '?'}"
        raise UsageError(
            f"{label}: {khz_text(khz)} is outside {policy}'s range, {span}",
            hint="choose a max_freq within the range (per policy: {policyN: FREQ})",
        )
    steps = _read(host, f"{base}/scaling_available_frequencies")
    offered = sorted({k for k in map(_khz, (steps or "").split()) if k is not None})
    if offered and khz not in offered:
        raise UsageError(
            f"{label}: {policy} cannot run at {khz_text(khz)}",
            hint=f"its frequencies are {', '.join(khz_text(k) for k in offered)}",
        )
    if now.strip() == str(khz):
        return []
    return [Change(f"{base}/scaling_max_freq", now, str(khz), why, f"{policy} max frequency")]


def _khz(text: str | None) -> int | None:
    value = (text or "").strip()
    return int(value) if value.isascii() and value.isdigit() else None
