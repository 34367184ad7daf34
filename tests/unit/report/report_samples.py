"""A run like the seeds' R4S table: TCP, a dual TCP test, UDP with loss, a failure."""

from __future__ import annotations

from support.samples import (
    START,
    UDP_1000M,
    bridge_path,
    dual_tcp,
    measured,
    udp_1000m,
    wan_path,
)
from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    PathSpec,
    Proto,
    RawOutput,
    Result,
    Side,
    StreamResult,
    TestCase,
    TestSpec,
    Tool,
    ToolWarning,
    Trial,
    TrialOutcome,
    TrialStatus,
    UdpStats,
    WarningKind,
)
from wirespeed.store.records import RunInfo, RunRecord, RunStatus

WAN = wan_path()
BR0 = bridge_path()
TCP = TestCase(id="#1", name="TCP", tool=Tool.IPERF2, spec=TestSpec(duration=120))
DUAL = dual_tcp()
UDP = udp_1000m()
UDP_512 = TestCase(
    id="#7",
    name="UDP 1000M, MTU 512",
    tool=Tool.IPERF2,
    spec=TestSpec(protocol=Proto.UDP, duration=120, rate=UDP_1000M, mtu=512),
)
RAW = (RawOutput(host="workstation", side=Side.CLIENT, argv=("iperf",), format="text", text="."),)


def tcp_direction(flow: Flow, mbit: float) -> DirectionResult:
    return DirectionResult(
        flow=flow,
        sent=measured(mbit),
        received=measured(mbit),
        streams=(StreamResult(id=3, flow=flow, received=measured(mbit)),),
        intervals=(
            Interval(start=0.0, end=1.0, bytes=int(mbit * 125_000), bits_per_second=mbit * 1e6),
        ),
    )


def ok(
    test: TestCase,
    path: PathSpec,
    *directions: DirectionResult,
    repetition: int = 1,
    warnings: tuple[ToolWarning, ...] = (),
) -> TrialOutcome:
    return TrialOutcome(
        trial=Trial(test=test, path=path, repetition=repetition),
        status=TrialStatus.OK,
        started_at=START + 200 * repetition,
        finished_at=START + 200 * repetition + 121,
        result=Result(
            tool=test.tool,
            protocol=test.spec.protocol,
            directions=directions,
            warnings=warnings,
            tool_version="2.0.13",
        ),
        raw=RAW,
    )


def sample_outcomes() -> tuple[TrialOutcome, ...]:
    heavy_loss = UdpStats(jitter_ms=0.0, lost=2_137_748_578, packets=2_138_402_602, out_of_order=1)
    return (
        ok(TCP, WAN, tcp_direction(Flow.UP, 941.2), repetition=1),
        ok(TCP, WAN, tcp_direction(Flow.UP, 941.6), repetition=2),
        ok(TCP, WAN, tcp_direction(Flow.UP, 939.0), repetition=3),
        ok(TCP, BR0, tcp_direction(Flow.UP, 940.0)),
        ok(DUAL, WAN, tcp_direction(Flow.UP, 922.4), tcp_direction(Flow.DOWN, 915.3)),
        TrialOutcome(
            trial=Trial(test=DUAL, path=BR0),
            status=TrialStatus.FAILED,
            started_at=START + 900,
            finished_at=START + 905,
            reason="the reverse connection never arrived (iperf2 -d)",
            raw=RAW,
        ),
        ok(
            UDP,
            WAN,
            DirectionResult(
                flow=Flow.UP,
                sent=measured(1045.0),
                received=measured(957.0),
                udp=UdpStats(jitter_ms=0.012, lost=1_000, packets=9_766_000),
            ),
        ),
        ok(
            UDP,
            BR0,
            DirectionResult(
                flow=Flow.UP, sent=measured(890.0), received=measured(64.0), udp=heavy_loss
            ),
        ),
        ok(
            UDP_512,
            WAN,
            DirectionResult(flow=Flow.UP, sent=measured(854.0)),
            warnings=(
                ToolWarning(
                    kind=WarningKind.NO_SERVER_REPORT,
                    message="WARNING: did not receive ack of last datagram after 10 tries.",
                ),
            ),
        ),
    )


def sample_record() -> RunRecord:
    return RunRecord(
        id=7,
        info=RunInfo(
            title="Nanopi-R4S",
            started_at=START,
            argv=("wirespeed", "run", "r4s.yaml"),
            provenance={
                "hosts": {
                    "r4s": {
                        "role": "dut",
                        "os": "OpenWrt 19.07.4",
                        "kernel": "5.4.75",
                        "iperf2": "2.0.13",
                        "iperf3": None,
                    },
                    "workstation": {"role": "server", "os": "Ubuntu 18.04.5 LTS"},
                },
                "labs": {"bridge": {"topology": "bridge", "link": "gbe", "mtu": 1500}},
            },
        ),
        status=RunStatus.COMPLETE,
        finished_at=START + 2000,
        outcomes=sample_outcomes(),
    )
