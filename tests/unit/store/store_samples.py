"""Sample outcomes for the store's tests, and a writer that the concurrency test runs in
another process."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from support.samples import bridge_path, dual_tcp, udp_1000m, wan_path
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
    Tool,
    ToolWarning,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
    UdpStats,
    WarningKind,
)
from wirespeed.store import RunInfo, RunStatus, Store

WAN = wan_path(client="ws")
BR0 = bridge_path(server="ws")
DUAL_TCP = dual_tcp("TCP dual, 2 streams")
UDP = udp_1000m(length=1470)


def stream_result(stream_id: int, flow: Flow, mbit: float) -> StreamResult:
    return StreamResult(
        id=stream_id,
        flow=flow,
        sent=Transfer(bytes=int(mbit * 15e6), seconds=120.0, bits_per_second=mbit * 1e6),
        received=Transfer(bytes=int(mbit * 15e6), seconds=120.2, bits_per_second=mbit * 1e6),
        intervals=(
            Interval(start=0.0, end=1.0, bytes=int(mbit * 125e3), bits_per_second=mbit * 1e6),
            Interval(start=1.0, end=2.0, bytes=int(mbit * 125e3), bits_per_second=mbit * 1e6),
        ),
    )


def dual_outcome(path: PathSpec = WAN, repetition: int = 1) -> TrialOutcome:
    directions = tuple(
        DirectionResult(
            flow=flow,
            sent=Transfer(bytes=13_800_000_000, seconds=120.0, bits_per_second=920.4e6),
            received=Transfer(bytes=13_790_000_000, seconds=120.01, bits_per_second=919.3e6),
            retransmits=None,
            streams=(stream_result(3 + i, flow, 460.1), stream_result(5 + i, flow, 459.2)),
            intervals=(
                Interval(start=0.0, end=1.0, bytes=115_000_000, bits_per_second=920e6),
                Interval(start=1.0, end=2.0, bytes=114_900_000, bits_per_second=919.2e6),
            ),
        )
        for i, flow in enumerate((Flow.UP, Flow.DOWN))
    )
    return TrialOutcome(
        trial=Trial(test=DUAL_TCP, path=path, repetition=repetition),
        status=TrialStatus.OK,
        started_at=1607544000.25,
        finished_at=1607544121.5,
        result=Result(
            tool=Tool.IPERF2,
            protocol=Proto.TCP,
            directions=directions,
            tool_version="2.0.13",
        ),
        raw=(
            RawOutput(
                host="ws",
                side=Side.CLIENT,
                argv=("iperf", "-c", "192.168.0.62", "-t", "120", "-d", "-P", "2"),
                format="text",
                text="(client output)",
                exit_status=0,
            ),
            RawOutput(
                host="r4s", side=Side.SERVER, argv=("iperf", "-s"), format="text", text="(server)"
            ),
        ),
    )


def udp_outcome_with_loss() -> TrialOutcome:
    udp = UdpStats(jitter_ms=0.0, lost=2_137_748_578, packets=2_138_402_602, out_of_order=1)
    up = DirectionResult(
        flow=Flow.UP,
        sent=Transfer(bytes=13_314_398_208, seconds=120.0, bits_per_second=890e6),
        received=Transfer(bytes=961_544_192, seconds=120.2, bits_per_second=64.0e6),
        udp=udp,
        streams=(StreamResult(id=3, flow=Flow.UP, udp=udp),),
        intervals=(
            Interval(
                start=0.0,
                end=1.0,
                bytes=8_000_000,
                bits_per_second=64e6,
                jitter_ms=0.01,
                lost=17_000_000,
                packets=17_800_000,
            ),
        ),
    )
    return TrialOutcome(
        trial=Trial(test=UDP, path=BR0),
        status=TrialStatus.OK,
        started_at=1607545000.0,
        finished_at=1607545121.0,
        result=Result(
            tool=Tool.IPERF2,
            protocol=Proto.UDP,
            directions=(up,),
            warnings=(ToolWarning(kind=WarningKind.LOSS_SATURATED, message="(1e+02%)"),),
        ),
        raw=(RawOutput(host="laptop", side=Side.CLIENT, argv=("iperf",), format="csv", text="x"),),
    )


def failed_outcome() -> TrialOutcome:
    return TrialOutcome(
        trial=Trial(test=DUAL_TCP, path=BR0),
        status=TrialStatus.FAILED,
        started_at=1607546000.0,
        finished_at=1607546003.0,
        reason="the server did not listen within 5 s",
    )


INFO = RunInfo(
    title="Nanopi-R4S",
    started_at=1607543999.5,
    argv=("wirespeed", "run", "r4s.yaml"),
    plan_path="r4s.yaml",
    plan_text="tests: []\n",
    provenance={
        "hosts": {
            "r4s": {
                "kernel": "Linux 5.4.75 aarch64",
                "os": "OpenWrt 19.07.4",
                "iperf2": "2.0.13",
                "iperf3": None,
            }
        },
        "labs": {},
    },
)


def write_run(db: str, title: str, trials: int, go: Path) -> None:
    """One run of `trials` outcomes, begun once `go` exists so that two writers overlap."""
    store = Store.open(db)
    while not go.exists():
        time.sleep(0.005)
    run_id = store.begin_run(RunInfo(title=title, started_at=time.time()))
    for repetition in range(1, trials + 1):
        store.add_outcome(run_id, dual_outcome(WAN, repetition=repetition))
    store.finish_run(run_id, RunStatus.COMPLETE)
    store.close()


if __name__ == "__main__":
    write_run(sys.argv[1], sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]))
