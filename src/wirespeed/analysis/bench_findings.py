"""Findings of a benchmark that runs on one host: the host was busy when it started, or
its CPU's top clock is below the one its SoC is sold at.

Both say what a figure measured besides the chip: the CPU time others left over, or a
kernel's clock limit. Neither makes a figure wrong; each tells a reader comparing it
with another board's what to check first. What the host did *during* the benchmark
(throttling, other processes) is the sampler's, judged by findings.judge_monitor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from wirespeed.facts.advertised import Advertised, advertised_clock, advertised_for
from wirespeed.facts.model import Cluster
from wirespeed.facts.render import cpu_span
from wirespeed.model import Finding, FindingKind
from wirespeed.sampling.before import BeforeStart, BusyProcess

# The machine counts as busy when others kept this share of all its CPUs busy over the
# window: a benchmark using every core then gets a tenth less, more than the spread of
# its repetitions (openssl speed and 7-zip repeat within a few %). A hog holding one core
# of a 2-core router (50 %) or of an 8-core RK3588 (12.5 %) is over it.
#
# The load average is reported, not judged: it is a decaying average over a minute and
# more, so the previous benchmark (or the previous repetition) leaves it high for minutes
# after the CPU went idle, and some router kernels hold it at 1 or more with threads
# sleeping uninterruptibly that use no CPU. What the CPU did in the window is now.
BUSY_MACHINE_PCT = 10.0
# A process is named from this share of one core, as findings.BACKGROUND_LOAD does.
NAMED_CORE_PCT = 10.0
NAMED_MAX = 5
# What wirespeed runs on a device besides the benchmark: the sampler's shell, awk and the
# kernel log reader, whose start-up (a scan of every process, the kernel log's history)
# can take a noticeable share of a slow core for a moment. The check's own script is
# left out by its pid. One of these names holding half a core or more is no sampler of
# ours but someone's loop, and is named.
_OWN_COMMS = ("sh", "ash", "dash", "bash", "awk", "mawk", "gawk", "busybox", "sleep", "cat")
OWN_MAX_CORE_PCT = 50.0


def _ours(process: BusyProcess, controller_pid: int | None) -> bool:
    if controller_pid is not None and process.pid == controller_pid:
        return True
    return process.comm in _OWN_COMMS and process.core_pct < OWN_MAX_CORE_PCT


def judge_before_start(
    before: BeforeStart, host_name: str, *, controller_pid: int | None = None
) -> list[Finding]:
    """BUSY_BEFORE_START when others kept the host busy just before the start, naming the
    busiest processes. `controller_pid` is this run's own process: on a lab's device
    (a namespace of this machine) it shows among the device's processes."""
    ours = [p for p in before.processes if _ours(p, controller_pid)]
    # Our own processes' share of the machine, taken out of what it was busy with.
    ours_pct = sum(p.core_pct for p in ours) / max(before.cpu_count, 1)
    others_pct = max(before.busy_pct - ours_pct, 0.0)
    if others_pct < BUSY_MACHINE_PCT:
        return []
    named = [p for p in before.processes if p not in ours and p.core_pct >= NAMED_CORE_PCT][
        :NAMED_MAX
    ]
    cpus = f"{before.cpu_count} CPU{'s' if before.cpu_count != 1 else ''}"
    message = (
        f"{host_name}: {before.busy_pct:.0f} % of its {cpus} busy in the "
        f"{before.window_s:.1f} s before the start (load {before.load1:.2f} "
        f"{before.load5:.2f} {before.load15:.2f})"
    )
    if named:
        first, *others = named
        message += (
            f"; busiest: {first.comm} (pid {first.pid}) {first.core_pct:.0f} % of a core"
            + "".join(f", {p.comm} (pid {p.pid}) {p.core_pct:.0f} %" for p in others)
        )
    else:
        message += "; no one process stood out"
    return [Finding(FindingKind.BUSY_BEFORE_START, message)]


# A top clock this far under the advertised one is a limit, not rounding: operating
# points sit on PLL steps (1512 MHz for "1.5 GHz", 716.8 MHz for "717 MHz"), a few per
# mille off, while the limits that matter are whole steps (1416 for 1.5 GHz: 6 % short).
CLOCK_TOLERANCE = 0.03


def _frequency(khz: int) -> str:
    """As clocks are sold: "1.5 GHz", "2.0 GHz", "1.296 GHz", "880 MHz"."""
    if khz < 1_000_000:
        return f"{khz / 1000:g} MHz"
    text = f"{khz / 1e6:g}"
    return f"{text if '.' in text else text + '.0'} GHz"


def judge_clock(
    clusters: Sequence[Cluster],
    compatible: str | Sequence[str],
    host_name: str,
    advertised_override: Mapping[str | None, int] | None = None,
) -> list[Finding]:
    """CLOCK_BELOW_ADVERTISED for each cluster whose cpufreq maximum (cpuinfo_max_freq)
    is more than CLOCK_TOLERANCE below the clock its SoC is sold at. `compatible` is the
    device tree's (facts.advertised.read_compatible); `advertised_override` (core type,
    or None for any, -> kHz) stands for the table where the user knows better. A cluster
    without cpufreq, or a SoC the table does not know, says nothing."""
    advertised: Advertised | None
    if advertised_override is not None:
        advertised = Advertised("", dict(advertised_override))
    else:
        advertised = advertised_for(compatible)
    if advertised is None:
        return []
    findings = []
    for cluster in clusters:
        top = advertised_clock(advertised.clocks, cluster.core)
        if cluster.max_khz is None or top is None:
            continue
        if cluster.max_khz >= top * (1 - CLOCK_TOLERANCE):
            continue
        core = f" ({cluster.core})" if cluster.core else ""
        sold = (
            f"the {advertised.name} is sold at {_frequency(top)}"
            if advertised.name
            else f"advertised: {_frequency(top)}"
        )
        findings.append(
            Finding(
                FindingKind.CLOCK_BELOW_ADVERTISED,
                f"{host_name}: {cpu_span(cluster.cpus)}{core} tops out at "
                f"{cluster.max_khz / 1000:.0f} MHz; {sold} "
                f"({100 * cluster.max_khz / top:.0f} %)",
            )
        )
    return findings
