"""What a trial through a VPN tunnel adds to its findings: the tunnel's own (MTUs, data
channel offload, lab/tunnel.py) and the CPU its daemons took.

The daemons are the work a tunnel trial measures, not background load: each one the
DUT's sampler saw busy (in the lab it sees the whole machine, so the client's and the
server's daemons too) is said as the tunnel's, with where it ran, and the background-load
finding that would have named it is dropped.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from wirespeed.model import Finding, FindingKind, TrialOutcome
from wirespeed.sampling import codec
from wirespeed.sampling.summary import MonitorSummary

__all__ = ["with_tunnel_findings"]


def with_tunnel_findings(
    outcome: TrialOutcome, tunnel: Sequence[Finding], daemons: Mapping[int, str]
) -> TrialOutcome:
    """The outcome with the tunnel's findings; daemons: pid -> "openvpn on the DUT"."""
    busy: list[Finding] = []
    seen: set[int] = set()
    for monitor in outcome.monitors:
        if monitor.role != "dut" or not monitor.summary:
            continue
        try:
            summary = codec.loads(MonitorSummary, monitor.summary)
        except (ValueError, KeyError, TypeError):
            continue
        for process in summary.processes:
            if process.pid in daemons and process.pid not in seen:
                seen.add(process.pid)
                busy.append(
                    Finding(
                        FindingKind.TUNNEL,
                        f"{daemons[process.pid]} (pid {process.pid}) used "
                        f"{process.core_pct:.0f} % of a core",
                    )
                )
    kept = [
        finding
        for finding in outcome.findings
        if not (
            finding.kind is FindingKind.BACKGROUND_LOAD
            and any(f"(pid {pid})" in finding.message for pid in daemons)
        )
    ]
    return dataclasses.replace(outcome, findings=(*kept, *tunnel, *busy))
