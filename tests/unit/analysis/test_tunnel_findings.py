"""A trial through a tunnel: its daemons' CPU is the tunnel's work, said with where each
ran, never background load; other busy processes stay background load."""

from __future__ import annotations

import dataclasses

from test_monitor_findings import R4S

from wirespeed.analysis.findings import judge_monitor
from wirespeed.analysis.tunnel_findings import with_tunnel_findings
from wirespeed.model import (
    Finding,
    FindingKind,
    MonitorRecord,
    PathSpec,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.sampling import codec
from wirespeed.sampling.summary import ProcessLoad

BUSY = dataclasses.replace(
    R4S,
    host="wirespeed-vpn-endpoint-dut",
    processes=(
        ProcessLoad(4242, "openvpn", 71.0),
        ProcessLoad(4243, "openvpn", 64.0),
        ProcessLoad(777, "dockerd", 35.0),
    ),
)


def outcome_with(findings: list[Finding]) -> TrialOutcome:
    trial = Trial(
        TestCase("tcp", "tcp", Tool.IPERF3, TestSpec()),
        PathSpec("OpenVPN", Topology.ENDPOINT, "client", "dut", "dut"),
    )
    monitor = MonitorRecord(BUSY.host, "dut", 1.0, raw="", summary=codec.dumps(BUSY))
    return TrialOutcome(
        trial, TrialStatus.FAILED, 0.0, 1.0, reason="no result needed here",
        monitors=(monitor,), findings=tuple(findings),
    )  # fmt: skip


def test_the_daemons_are_the_tunnels_work_and_dockerd_stays_background_load() -> None:
    judged = judge_monitor(BUSY)
    background = [f.message for f in judged if f.kind is FindingKind.BACKGROUND_LOAD]
    assert any("openvpn (pid 4242)" in m for m in background)  # as judge_monitor sees it
    mtu = Finding(FindingKind.TUNNEL, "OpenVPN tunnel client to DUT: inner MTU 1500")
    daemons = {4242: "openvpn on the DUT", 4243: "openvpn on the client"}
    done = with_tunnel_findings(outcome_with(judged), [mtu], daemons)
    said = [f.message for f in done.findings if f.kind is FindingKind.TUNNEL]
    assert said == [
        "OpenVPN tunnel client to DUT: inner MTU 1500",
        "openvpn on the DUT (pid 4242) used 71 % of a core",
        "openvpn on the client (pid 4243) used 64 % of a core",
    ]
    left = [f.message for f in done.findings if f.kind is FindingKind.BACKGROUND_LOAD]
    assert left == ["wirespeed-vpn-endpoint-dut: dockerd (pid 777) used 35 % of a core"]
