"""Findings: typed verdicts on a trial, each with a one-line hint of what to do.

A closed set of kinds, as hyperfine's warnings: a reader (or a test) can rely on the
kind; the message carries the numbers. This module judges what the iperf result and the
physical ceiling say; what the device was doing meanwhile (CPU, interrupts, clocks) adds
its own kinds from the monitor's summary.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from wirespeed.analysis.ceiling import Ceiling
from wirespeed.model import Flow, Proto, Result, TrialOutcome, TrialStatus, WarningKind

# A result this close to the ceiling is the link's limit, not the device's.
LINE_RATE_FRACTION = 0.97
# Above the ceiling by more than this is physically impossible: rounding and timing
# jitter of a few seconds' test stay well inside it.
IMPOSSIBLE_FRACTION = 1.01
# TCP delivers what it sends: a sender counting more than this over the receiver means the
# two ends measured different things (a cut test, a timing skew, the wrong server).
TCP_SENDER_EXCESS = 0.05


class FindingKind(enum.StrEnum):
    LINE_RATE = "line-rate"
    IMPOSSIBLE = "impossible"
    SUSPECT = "suspect"
    CPU_BOUND = "cpu-bound"
    IRQS_ON_ONE_CORE = "irqs-on-one-core"
    THROTTLED = "throttled"
    BACKGROUND_LOAD = "background-load"
    DROPS = "drops"
    KERNEL_EVENT = "kernel-event"


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
    FindingKind.BACKGROUND_LOAD: "stop the process during benchmarks, or account for it",
    FindingKind.DROPS: "the interface dropped or errored packets during the test",
    FindingKind.KERNEL_EVENT: "the kernel logged a device event during the test: "
    "check the link and driver",
}


@dataclass(frozen=True)
class Finding:
    kind: FindingKind
    message: str
    flow: Flow | None = None

    @property
    def hint(self) -> str:
        return HINTS[self.kind]


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
    findings.extend(_from_warnings(result))
    return findings


# Tool warnings that make a figure suspect; a doubled window is information, not doubt.
_SUSPECT_WARNINGS = {
    WarningKind.NO_SERVER_REPORT: "no server report: receiver-side numbers are unknown",
    WarningKind.ACK_OF_LAST_DATAGRAM: "the server did not acknowledge the last datagram",
    WarningKind.IMPLAUSIBLE_COUNTERS: "the tool's counters cannot be true",
    WarningKind.TRUNCATED: "the output ended before its final summary",
    WarningKind.LOSS_SATURATED: "loss of 99.5 % or more: almost nothing arrived",
}


def _from_warnings(result: Result) -> list[Finding]:
    seen: set[WarningKind] = set()
    findings = []
    for warning in result.warnings:
        if warning.kind in _SUSPECT_WARNINGS and warning.kind not in seen:
            seen.add(warning.kind)
            findings.append(Finding(FindingKind.SUSPECT, _SUSPECT_WARNINGS[warning.kind]))
    return findings
