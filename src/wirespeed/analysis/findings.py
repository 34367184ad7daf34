"""Findings: typed verdicts on a trial, each with a one-line hint of what to do.

A closed set of kinds, as hyperfine's warnings: a reader (or a test) can rely on the
kind; the message carries the numbers. This module judges what the iperf result and the
physical ceiling say; what the device was doing meanwhile (CPU, interrupts, clocks) adds
its own kinds from the monitor's summary.

An emulated device (a lab's DUT: a namespace of this machine, or the lab's SSH device
running in one) shares this machine's cores with the endpoints and with whatever else
runs here: what limits it is the lab, so it is never advised to be tuned, and a machine
saturated by other work makes the trial lab-limited.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from wirespeed.analysis.ceiling import Ceiling
from wirespeed.lab.naming import parse_namespace
from wirespeed.model import (
    Finding,
    FindingKind,
    Flow,
    Proto,
    Result,
    TrialOutcome,
    TrialStatus,
    WarningKind,
)
from wirespeed.sampling.events import INJECTED_PREFIX
from wirespeed.sampling.summary import MonitorSummary

# A result this close to the ceiling is the link's limit, not the device's.
LINE_RATE_FRACTION = 0.97
# Above the ceiling by more than this is physically impossible: rounding and timing
# jitter of a few seconds' test stay well inside it.
IMPOSSIBLE_FRACTION = 1.01
# TCP delivers what it sends: a sender counting more than this over the receiver means the
# two ends measured different things (a cut test, a timing skew, the wrong server).
TCP_SENDER_EXCESS = 0.05


HINTS: dict[FindingKind, str] = {
    FindingKind.LINE_RATE: "the link is the limit: the device is at least this fast",
    FindingKind.IMPOSSIBLE: "faster than the wire allows: check the link rate in the plan, "
    "or distrust the figure",
    FindingKind.SUSPECT: "read the raw output (`wirespeed report --format json`) before "
    "trusting this figure",
    FindingKind.CPU_BOUND: "spread the NIC interrupts and RPS over other cores "
    "(`wirespeed tune suggest`)",
    FindingKind.IRQS_ON_ONE_CORE: "move some NIC interrupts to idle cores (smp_affinity)",
    FindingKind.THROTTLED: "cool the board or fix its clock; the result is not its best",
    FindingKind.UNDER_VOLTAGE: "use a stronger power supply or a shorter, thicker cable: "
    "an under-powered board is throttled and may drop its USB or Ethernet devices",
    FindingKind.BACKGROUND_LOAD: "stop the process during benchmarks, or account for it",
    FindingKind.DROPS: "the interface dropped or errored packets during the test",
    FindingKind.KERNEL_EVENT: "the kernel logged a device event during the test: "
    "check the link and driver",
    FindingKind.PARTIAL_SAMPLES: "the device's samples stop early: its figures cover part "
    "of the test only",
    FindingKind.STALLED: "a link went down or the device hung (see its kernel events): "
    "the figure averages the gap in",
    FindingKind.LAB_LIMITED: "the result is the lab's limit, not the device's: stop the "
    "other work (or use a quiet machine) and measure again",
    FindingKind.BUSY_BEFORE_START: "the benchmark shared the CPU with what was running: "
    "stop it (or wait until the device is idle) and measure again",
    FindingKind.CLOCK_BELOW_ADVERTISED: "the kernel caps the CPU below the clock its SoC is "
    "sold at (device tree, regulator, firmware): compare boards at the clocks they ran",
    FindingKind.GENERATOR_LIMITED: "the generator, not the device, set the limit: the "
    "device forwards at least this; measure above it with a faster generator host",
    FindingKind.SEARCH_UNFINISHED: "the bounds are wider than asked: raise max_trials, or "
    "widen width:, and search again",
    FindingKind.PROBES: "install irtt on both ends for one-way delays (Debian: irtt); "
    "on a busy machine the loaded round trips include waiting for a CPU",
    FindingKind.TUNNEL: "the tunnel's ceiling counts its per-packet overhead; OpenVPN without "
    "data channel offload encrypts in userspace (load the ovpn-dco module to compare)",
}
# What differs for an emulated device: its cores and interrupts are this machine's, so
# there is nothing on the device to tune.
EMULATED_HINTS: dict[FindingKind, str] = {
    FindingKind.CPU_BOUND: "an emulated device shares this machine's cores with the "
    "endpoints: the lab's limit, not a device's (nothing to tune)",
    FindingKind.IRQS_ON_ONE_CORE: "an emulated device's interrupts are this machine's: "
    "nothing to tune on the device",
}


# How each finding reads as a note in a report; the finding's own message (with its
# numbers) becomes the note's detail. IMPOSSIBLE and warning-based SUSPECT findings restate
# notes the report makes anyway ("above-ceiling", the tool's warnings): they have none.
LABELS: dict[FindingKind, str] = {
    FindingKind.LINE_RATE: "line rate reached",
    FindingKind.SUSPECT: "suspect measurement",
    FindingKind.CPU_BOUND: "CPU-bound",
    FindingKind.IRQS_ON_ONE_CORE: "interrupts all on one core",
    FindingKind.THROTTLED: "throttled",
    FindingKind.UNDER_VOLTAGE: "under-voltage",
    FindingKind.BACKGROUND_LOAD: "background load",
    FindingKind.DROPS: "drops or errors on an interface",
    FindingKind.KERNEL_EVENT: "kernel event during the trial",
    FindingKind.PARTIAL_SAMPLES: "device samples are partial",
    FindingKind.STALLED: "traffic stalled mid-test",
    FindingKind.LAB_LIMITED: "lab-limited",
    FindingKind.BUSY_BEFORE_START: "busy before the benchmark started",
    FindingKind.CLOCK_BELOW_ADVERTISED: "CPU clock below the advertised one",
    FindingKind.GENERATOR_LIMITED: "generator-limited",
    FindingKind.SEARCH_UNFINISHED: "search unfinished",
    FindingKind.PROBES: "latency probes",
    FindingKind.TUNNEL: "VPN tunnel",
}


def label_among(finding: Finding, findings: Sequence[Finding], flows: Sequence[Flow]) -> str:
    """A finding's label where a trial's flows are shown together (a cell of up and down,
    an RRUL test's two ways): a finding about one flow that not every flow shares says
    which it holds for, or the cell would seem to say it of all (RRUL up 15.6 and down
    93.0 Mbit/s under "line rate reached")."""
    label = LABELS[finding.kind]
    if finding.flow is None or len(flows) < 2:
        return label
    holding = {f.flow for f in findings if f.kind is finding.kind}
    if holding >= set(flows):
        return label
    return f"{label} ({finding.flow.value} flow only)"


def hint(kind: FindingKind, *, emulated: bool = False) -> str:
    """What to do about a finding; `emulated` for a trial in a lab (see in_lab)."""
    if emulated and kind in EMULATED_HINTS:
        return EMULATED_HINTS[kind]
    return HINTS[kind]


def emulated(host: str) -> bool:
    """Whether a sampled host is a lab's: its namespaces are named by lab/naming.py, and
    the lab's SSH device is named as the namespace it runs in."""
    return parse_namespace(host) is not None


def in_lab(outcome: TrialOutcome) -> bool:
    """Whether a trial's device was emulated, as its samplers' hosts say."""
    return any(emulated(monitor.host) for monitor in outcome.monitors)


# Findings about what limited a trial: moot when every flow reached line rate. Never
# under-voltage or throttling: they make every figure of the trial suspect, line rate
# or not.
LIMITS = frozenset({FindingKind.CPU_BOUND, FindingKind.LAB_LIMITED})


def judge_result(outcome: TrialOutcome, ceiling: Ceiling | None) -> list[Finding]:
    """What the iperf result itself says: line rate, impossible, suspect."""
    if outcome.status is TrialStatus.FAILED or outcome.result is None:
        return []
    result = outcome.result
    findings: list[Finding] = []
    for direction in result.directions:
        goodput = direction.goodput_bps
        if goodput is None:
            continue
        flow = direction.flow
        if ceiling is not None:
            fraction = goodput / ceiling.bits_per_second
            share = f"{goodput / 1e6:.1f} Mbit/s is {fraction:.1%} of the ceiling"
            if fraction > IMPOSSIBLE_FRACTION:
                findings.append(Finding(FindingKind.IMPOSSIBLE, share, flow))
            elif fraction >= LINE_RATE_FRACTION:
                findings.append(Finding(FindingKind.LINE_RATE, share, flow))
        if direction.received is None and result.protocol is Proto.UDP:
            # TCP delivers what it sends, so its sender's rate is a fair proxy; a UDP
            # sender's rate counts every datagram lost on the way.
            findings.append(
                Finding(
                    FindingKind.SUSPECT,
                    "no receiver-side figure: the goodput is the sender's rate",
                    flow,
                )
            )
        elif (
            result.protocol is Proto.TCP
            and direction.sent is not None
            and direction.received is not None
            and direction.received.bytes > 0
            and direction.sent.bytes > direction.received.bytes * (1 + TCP_SENDER_EXCESS)
        ):
            excess = direction.sent.bytes / direction.received.bytes - 1
            findings.append(
                Finding(
                    FindingKind.SUSPECT,
                    f"the TCP sender counted {excess:.0%} more bytes than the receiver",
                    flow,
                )
            )
    findings.extend(_stalls(result))
    findings.extend(_from_warnings(result))
    return findings


# An interval carrying under this share of the test's median rate carried nothing: the
# few bytes of a retransmission arriving just before the link came back do not count.
STALL_FRACTION = 0.01
# Gaps shorter than this are left alone: iperf2's last report may be an interval of
# milliseconds with nothing in it.
STALL_MIN_SECONDS = 1.0


def _seconds(seconds: float) -> str:
    return f"{round(seconds, 1):g}"


def _stalls(result: Result) -> list[Finding]:
    """Traffic that stopped mid-test (a link down, a NIC reset, a hung device): the
    average over the whole test hides it as a lower number."""
    findings = []
    for direction in result.directions:
        intervals = [i for i in direction.intervals if i.end > i.start]
        if len(intervals) < 3:
            continue
        # The median of the intervals that carried something: a link down for most of
        # the test still stands out against the rest.
        rates = sorted(i.bits_per_second for i in intervals if i.bytes > 0)
        if not rates:
            continue  # nothing at all: a failed test, not a stall
        floor = rates[len(rates) // 2] * STALL_FRACTION
        gaps: list[tuple[float, float]] = []
        for interval in intervals:
            if interval.bits_per_second >= floor:
                continue
            if gaps and abs(gaps[-1][1] - interval.start) < 1e-3:
                gaps[-1] = (gaps[-1][0], interval.end)
            else:
                gaps.append((interval.start, interval.end))
        gaps = [gap for gap in gaps if gap[1] - gap[0] >= STALL_MIN_SECONDS]
        if not gaps:
            continue
        total = sum(end - start for start, end in gaps)
        last = intervals[-1].end
        spans = ", ".join(
            f"from {_seconds(start)} s to "
            + ("the end" if abs(end - last) < 1e-3 else f"{_seconds(end)} s")
            for start, end in gaps
        )
        length = last - intervals[0].start
        findings.append(
            Finding(
                FindingKind.STALLED,
                f"no traffic for {_seconds(total)} s of {_seconds(length)} s ({spans})",
                direction.flow,
            )
        )
    return findings


# Tool warnings that make a figure suspect; a doubled window is information, not doubt.
_SUSPECT_WARNINGS = {
    WarningKind.NO_SERVER_REPORT: "no server report: receiver-side numbers are unknown",
    WarningKind.ACK_OF_LAST_DATAGRAM: "the server did not acknowledge the last datagram",
    WarningKind.IMPLAUSIBLE_COUNTERS: "the tool's counters cannot be true",
    WarningKind.TRUNCATED: "the output ended before its final summary",
    WarningKind.LOSS_SATURATED: "loss of 99.5 % or more: almost nothing arrived",
}


def restates_warning(finding: Finding) -> bool:
    """A SUSPECT finding that only repeats a tool warning (reports show those already)."""
    return finding.kind is FindingKind.SUSPECT and finding.message in _SUSPECT_WARNINGS.values()


def _from_warnings(result: Result) -> list[Finding]:
    seen: set[WarningKind] = set()
    findings = []
    for warning in result.warnings:
        if warning.kind in _SUSPECT_WARNINGS and warning.kind not in seen:
            seen.add(warning.kind)
            findings.append(Finding(FindingKind.SUSPECT, _SUSPECT_WARNINGS[warning.kind]))
    return findings


# A core this busy in its busiest sampled interval, and busy most of the test on
# average, is the bottleneck. (The average alone would miss a short test: the samples
# span the ramp-up before the traffic too.)
CPU_BOUND_PCT = 95.0
CPU_SUSTAINED_PCT = 80.0
# Other cores below this count as idle: the work could have gone there.
IDLE_PCT = 50.0
# A NIC's interrupts are "on one core" when this share lands there, at a rate that matters.
ONE_CORE_SHARE = 0.9
ONE_CORE_MIN_RATE = 1000.0  # interrupts/s
# A clock this far under its policy's maximum at any sample means the core was held back.
THROTTLE_FRACTION = 0.98
BUSY_IRQ_RATE = 100.0  # interrupts/s
# A process using this much of a core during the test competes with the packets.
BACKGROUND_PCT = 10.0
# What runs because of the test itself: the tools, the sampler, the kernel's packet work.
_OWN_PROCESSES = ("iperf", "iperf3", "sh", "awk", "mawk", "gawk", "busybox", "sleep", "cat")
_KERNEL_PACKET_THREADS = ("ksoftirqd/", "napi/", "irq/")


def judge_monitor(
    summary: MonitorSummary,
    *,
    controller_pid: int | None = None,
    workload: Collection[str] | None = None,
) -> list[Finding]:
    """What the device was doing during the trial: CPU, interrupts, clocks, load, drops.
    `controller_pid` is this run's own process: in a lab it runs on the same machine.

    `workload`, for a benchmark: the programs it runs (openssl, 7zz), whose CPU is the
    point and never background load; a busy core is then no finding either. An empty
    one says the benchmark spawns programs it cannot name (UnixBench): no process is then
    named as background load or as the lab's competitor."""
    findings: list[Finding] = []
    benchmark = workload is not None
    own = (*_OWN_PROCESSES, *(workload or ()), "taskset")
    if summary.partial:
        findings.append(Finding(FindingKind.PARTIAL_SAMPLES, f"{summary.host}: {summary.reason}"))
    lab_limited = None
    if emulated(summary.host) and not (benchmark and not workload):
        lab_limited = _lab_limited(summary, controller_pid, own)
    if lab_limited is not None:
        # The machine, not the device, was short of CPU: a busy core says nothing of it.
        finding, named = lab_limited
        findings.append(finding)
    else:
        named = set()
        if not benchmark:  # a benchmark keeps its cores busy by design
            findings += _cpu_bound(summary)
    findings += _stolen(summary)
    findings += _irqs_on_one_core(summary)
    findings += _throttled(summary)
    for process in summary.processes if not (benchmark and not workload) else ():
        comm = process.comm
        if process.core_pct < BACKGROUND_PCT or comm in own:
            continue
        if comm.startswith(_KERNEL_PACKET_THREADS) or process.pid in named:
            continue
        findings.append(
            Finding(
                FindingKind.BACKGROUND_LOAD,
                f"{summary.host}: {comm} (pid {process.pid}) used "
                f"{process.core_pct:.0f} % of a core",
            )
        )
    for interface in summary.interfaces:
        counts = {
            "rx dropped": interface.rx_dropped,
            "tx dropped": interface.tx_dropped,
            "rx errors": interface.rx_errors,
            "tx errors": interface.tx_errors,
        }
        said = ", ".join(f"{n} {what}" for what, n in counts.items() if n > 0)
        if said:
            findings.append(Finding(FindingKind.DROPS, f"{summary.host} {interface.name}: {said}"))
    backlog = sum(s.dropped for s in summary.softnet)
    if backlog > 0:
        findings.append(
            Finding(
                FindingKind.DROPS,
                f"{summary.host}: {backlog} packets dropped at the CPU backlog (softnet_stat)",
            )
        )
    for event in summary.events:
        # A lab's namespaces share this machine's kernel log: a line a soak's fault
        # injection wrote there (`wirespeed-lab[NAME]: ...`) is another lab's, never this
        # trial's device's (a run injects no faults).
        if event.event is not None and not event.message.startswith(INJECTED_PREFIX):
            findings.append(
                Finding(FindingKind.KERNEL_EVENT, f"{summary.host}: {event.message.strip()}")
            )
    return findings


# A core whose hypervisor ran something else for this share of the trial (/proc/stat's
# steal time) gave the test that much less of itself, whatever the test's own load.
STOLEN_PCT = 5.0


def _stolen(summary: MonitorSummary) -> list[Finding]:
    """Time the hypervisor took from a virtual machine's cores: in a lab it is the lab's
    limit (a busy or throttled VM host), on a device a virtual router's host's share."""
    stolen = [core for core in summary.cores if core.steal_pct >= STOLEN_PCT]
    if not stolen:
        return []
    cores = ", ".join(f"{core.steal_pct:.0f} % of cpu{core.cpu}" for core in stolen)
    if emulated(summary.host):
        return [
            Finding(
                FindingKind.LAB_LIMITED,
                f"{summary.host}: the hypervisor took {cores} (steal time): the result "
                "is the lab's limit, not the device's",
            )
        ]
    return [
        Finding(
            FindingKind.BACKGROUND_LOAD,
            f"{summary.host}: its hypervisor took {cores} (steal time): a virtual device "
            "shares its host's cores",
        )
    ]


def _cpu_bound(summary: MonitorSummary) -> list[Finding]:
    busiest = summary.busiest
    if busiest is None:
        return []
    core = next((c for c in summary.cores if c.cpu == busiest.cpu), None)
    peak = core.peak_busy_pct if core is not None else busiest.busy_pct
    if peak < CPU_BOUND_PCT or busiest.busy_pct < CPU_SUSTAINED_PCT:
        return []
    others = [c.busy_pct for c in summary.cores if c.cpu != busiest.cpu]
    message = (
        f"{summary.host}: cpu{busiest.cpu} {busiest.busy_pct:.0f} % busy (peak {peak:.0f} %), "
        f"mostly {busiest.dominant} ({busiest.dominant_pct:.0f} %)"
    )
    # Only IRQs that fire often enough to matter (a timer's or a stats IRQ's few per
    # second would only distract from the NIC's thousands).
    busy_irqs = [i for i in busiest.irqs if i.per_s >= BUSY_IRQ_RATE][:3]
    if busy_irqs:
        irqs = ", ".join(f"IRQ {i.irq} {i.name} ({i.per_s:.0f}/s)" for i in busy_irqs)
        message += f"; on it: {irqs}"
    if others and max(others) < IDLE_PCT:
        message += f"; the other cores idle (at most {max(others):.0f} %)"
    elif others:
        message += f"; every core busy (the least {min(others):.0f} %)"
    return [Finding(FindingKind.CPU_BOUND, message)]


# Every core at least this busy over the trial: the machine had no CPU to spare.
SATURATED_PCT = 90.0
# Processes outside the lab taking this share of the machine's CPU (all its cores) took
# what the lab would have used; each one named from BACKGROUND_PCT of a core.
OUTSIDE_SHARE = 0.10
OUTSIDE_NAMED = 5
# What runs for the lab besides the test's own processes: its SSH device's server, the
# `ip netns exec` that starts programs in it, and the kernel's workers (whose work may be
# anyone's, so they are not named).
_LAB_PROCESSES = (*_OWN_PROCESSES, "dropbear", "ip")
_KERNEL_THREADS = (*_KERNEL_PACKET_THREADS, "kworker/")


def judge_probes(
    choice_notice: str | None,
    problems: Sequence[str],
    summaries: Sequence[MonitorSummary],
    measured: bool,
) -> list[Finding]:
    """What qualifies a trial's latency figures: the prober that ran instead of irtt, the
    probes that failed, and a machine whose every core was busy while they ran (in a lab
    the probes, the load and the emulated device share its cores: a probe waits for a
    CPU as well as in the queue)."""
    findings = [Finding(FindingKind.PROBES, text) for text in (choice_notice, *problems) if text]
    if not measured:
        return findings
    for summary in summaries:
        if not summary.cores or not emulated(summary.host):
            continue
        least = min(core.busy_pct for core in summary.cores)
        if least >= SATURATED_PCT:
            findings.append(
                Finding(
                    FindingKind.PROBES,
                    f"{summary.host}: every core at least {least:.0f} % busy: the probes and "
                    "the load shared this machine's cores, and the loaded round trips "
                    "include time waiting for a CPU",
                )
            )
            break
    return findings


def _lab_limited(
    summary: MonitorSummary, controller_pid: int | None, own: Collection[str] = ()
) -> tuple[Finding, set[int]] | None:
    """An emulated device on a machine whose every core was busy while processes outside
    the lab took a notable share: the finding, and the pids it names."""
    if not summary.cores:
        return None
    least = min(core.busy_pct for core in summary.cores)
    if least < SATURATED_PCT:
        return None
    outside = [
        process
        for process in summary.processes
        if process.comm not in _LAB_PROCESSES
        and process.comm not in own
        and not process.comm.startswith(_KERNEL_THREADS)
        and process.pid != controller_pid
    ]
    total = sum(process.core_pct for process in outside)
    if total < OUTSIDE_SHARE * 100.0 * len(summary.cores):
        return None
    named = [p for p in outside if p.core_pct >= BACKGROUND_PCT]
    named = sorted(named, key=lambda p: -p.core_pct)[:OUTSIDE_NAMED]
    if not named:
        return None  # many small ones: nobody to name, and none of them the cause
    first, *others = named
    took = f"{first.comm} (pid {first.pid}) took {first.core_pct:.0f} % of a core"
    took += "".join(f", {p.comm} (pid {p.pid}) {p.core_pct:.0f} %" for p in others)
    cores = f"every core at least {least:.0f} % busy"
    busiest = summary.busiest
    if busiest is not None and round(busiest.busy_pct) > round(least):
        cores = f"cpu{busiest.cpu} {busiest.busy_pct:.0f} % busy, {cores}"
    elif busiest is not None:  # named, without saying one figure twice
        cores = f"{cores}, cpu{busiest.cpu} the busiest"
    message = (
        f"{summary.host}: this machine's CPUs were saturated ({cores}); outside the lab, "
        f"{took}: the result is the lab's limit, not the device's"
    )
    return Finding(FindingKind.LAB_LIMITED, message), {p.pid for p in named}


def _irqs_on_one_core(summary: MonitorSummary) -> list[Finding]:
    if len(summary.cpus) < 2:
        return []
    findings = []
    for nic in summary.nics:
        total = sum(nic.per_cpu_per_s)
        if total < ONE_CORE_MIN_RATE:
            continue
        top = max(range(len(nic.per_cpu_per_s)), key=lambda i: nic.per_cpu_per_s[i])
        share = nic.per_cpu_per_s[top] / total
        if share >= ONE_CORE_SHARE:
            findings.append(
                Finding(
                    FindingKind.IRQS_ON_ONE_CORE,
                    f"{summary.host} {nic.interface}: {share:.0%} of its {total:.0f} "
                    f"interrupts/s on cpu{summary.cpus[top]}",
                )
            )
    return findings


# A cluster whose cores were this busy at most sat mostly idle: its governor (ondemand,
# schedutil) kept it at a low clock by choice, not by throttling. (A benchmark pinned to
# the big cores leaves the LITTLE ones at 408 MHz.)
THROTTLE_BUSY_PCT = 50.0


def _throttled(summary: MonitorSummary) -> list[Finding]:
    findings = []
    busy = {core.cpu: core.busy_pct for core in summary.cores}
    for clock in summary.clocks:
        top = clock.hardware_max_khz
        if busy and max((busy.get(cpu, 0.0) for cpu in clock.cpus), default=0.0) < (
            THROTTLE_BUSY_PCT
        ):
            continue
        if top and clock.min_khz < top * THROTTLE_FRACTION:
            cpus = ",".join(str(c) for c in clock.cpus)
            findings.append(
                Finding(
                    FindingKind.THROTTLED,
                    f"{summary.host} {clock.policy} (cpus {cpus}) ran as low as "
                    f"{clock.min_khz / 1000:.0f} MHz of {top / 1000:.0f} MHz",
                )
            )
    # The Raspberry Pi firmware's own word (vcgencmd get_throttled) during the trial.
    if "under-voltage" in summary.throttled:
        findings.append(
            Finding(
                FindingKind.UNDER_VOLTAGE,
                f"{summary.host}: the firmware reported under-voltage during the trial",
            )
        )
    capped = [name for name in summary.throttled if name != "under-voltage"]
    if capped:
        findings.append(
            Finding(
                FindingKind.THROTTLED,
                f"{summary.host}: the firmware reported {', '.join(capped)} during the trial",
            )
        )
    for zone in summary.thermal:
        if zone.first_trip_c is not None and zone.max_c >= zone.first_trip_c:
            findings.append(
                Finding(
                    FindingKind.THROTTLED,
                    f"{summary.host} {zone.type}: {zone.max_c:.0f} °C reached its trip "
                    f"point {zone.first_trip_c:.0f} °C",
                )
            )
    return findings
