"""A run shaped like the seeds' R4S tests, with 1-s intervals and the DUT's samples."""

from __future__ import annotations

import random

from support.samples import START, bridge_path, dual_tcp, udp_1000m, wan_path
from wirespeed.model import (
    DirectionResult,
    Flow,
    Interval,
    Proto,
    Result,
    StreamResult,
    TestCase,
    TestSpec,
    Tool,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
    UdpStats,
)
from wirespeed.report.html_monitor import CoreLoadSeries, DeviceSamples, IrqDistribution
from wirespeed.store.records import RunInfo, RunRecord, RunStatus

WAN = wan_path()
BR0 = bridge_path(name='Br0 "<b>lan</b>"')
DURATION = 30
TESTS = (
    (TestCase("#1", "TCP", Tool.IPERF2, TestSpec(duration=DURATION)), (941.0, 905.0)),
    (dual_tcp(duration=DURATION), (921.0, 690.0)),
    (udp_1000m(duration=DURATION), (956.0, 560.0)),
)
CPUS = (0, 1, 2, 3, 4, 5)


def _intervals(rng: random.Random, mbit: float, jitter: float) -> tuple[Interval, ...]:
    out = []
    for second in range(DURATION):
        value = max(mbit + rng.gauss(0, jitter), 0.0)
        out.append(
            Interval(
                start=float(second),
                end=float(second + 1),
                bytes=int(value * 125_000),
                bits_per_second=value * 1e6,
            )
        )
    return tuple(out)


def _direction(
    rng: random.Random, flow: Flow, mbit: float, streams: int, udp: bool
) -> DirectionResult:
    per_stream = [_intervals(rng, mbit / streams, mbit * 0.01) for _ in range(streams)]
    total = tuple(
        Interval(
            start=parts[0].start,
            end=parts[0].end,
            bytes=sum(p.bytes for p in parts),
            bits_per_second=sum(p.bits_per_second for p in parts),
        )
        for parts in zip(*per_stream, strict=True)
    )
    mean = sum(i.bits_per_second for i in total) / len(total)
    measure = Transfer(bytes=int(mean / 8 * DURATION), seconds=DURATION, bits_per_second=mean)
    return DirectionResult(
        flow=flow,
        sent=measure,
        received=measure,
        streams=tuple(
            StreamResult(id=3 + i, flow=flow, received=measure, intervals=series)
            for i, series in enumerate(per_stream)
        ),
        intervals=total,
        udp=UdpStats(jitter_ms=0.02, lost=120, packets=2_400_000) if udp else None,
    )


def sample_run() -> tuple[RunRecord, tuple[DeviceSamples, ...]]:
    rng = random.Random(7)
    outcomes: list[TrialOutcome] = []
    samples: list[DeviceSamples] = []
    at = START
    for test, (wan, br0) in TESTS:
        for path, mbit in ((WAN, wan), (BR0, br0)):
            for repetition in (1, 2, 3):
                trial = Trial(test=test, path=path, repetition=repetition)
                spec = test.spec
                flows = spec.flows
                directions = tuple(
                    _direction(
                        rng,
                        flow,
                        mbit * (0.97 if flow is Flow.DOWN else 1.0),
                        spec.parallel,
                        udp=spec.protocol is Proto.UDP,
                    )
                    for flow in flows
                )
                outcomes.append(
                    TrialOutcome(
                        trial=trial,
                        status=TrialStatus.OK,
                        started_at=at,
                        finished_at=at + DURATION + 1,
                        result=Result(
                            tool=test.tool,
                            protocol=spec.protocol,
                            directions=directions,
                            tool_version="2.0.13",
                        ),
                    )
                )
                samples.append(_device(rng, trial.key, bridge=path is BR0))
                at += DURATION + 5
    record = RunRecord(
        id=3,
        info=RunInfo(
            title="NanoPi R4S: WAN and bridge",
            started_at=START,
            argv=("wirespeed", "run", "r4s.yaml", "--repeat", "3"),
            plan_path="r4s.yaml",
            provenance={
                "hosts": {
                    "r4s": {
                        "role": "dut",
                        "os": "OpenWrt 19.07.4",
                        "kernel": "Linux 5.4.75 aarch64",
                        "machine": "FriendlyElec NanoPi R4S",
                        "iperf2": "2.0.13",
                    },
                    "workstation": {
                        "role": "server",
                        "os": "Ubuntu 18.04.5 LTS",
                        "kernel": "Linux 5.4.0-58-generic x86_64",
                        "iperf2": "2.0.13",
                    },
                },
                "labs": {"bridge": {"topology": "bridge", "link": "gbe", "mtu": 1500}},
            },
        ),
        status=RunStatus.COMPLETE,
        finished_at=at,
        outcomes=tuple(outcomes),
    )
    return record, tuple(samples)


def _device(rng: random.Random, key: str, bridge: bool) -> DeviceSamples:
    t = tuple(float(s) for s in range(1, DURATION + 1))
    cores = []
    for cpu in CPUS:
        hot = cpu == 0
        softirq = 92.0 if hot and bridge else 45.0 if hot else 3.0
        cores.append(
            CoreLoadSeries(
                cpu=cpu,
                user=tuple(max(rng.gauss(2.0, 0.8), 0) for _ in t),
                system=tuple(max(rng.gauss(6.0 if hot else 2.0, 1.0), 0) for _ in t),
                softirq=tuple(min(max(rng.gauss(softirq, 2.0), 0), 100 - 10) for _ in t),
            )
        )
    interrupts = (
        IrqDistribution("27", "eth0", (41_200.0, 0, 0, 0, 0, 0)),
        IrqDistribution("47", "eth1", (38_900.0 if bridge else 120.0, 0, 0, 0, 0, 0)),
        IrqDistribution("LOC", "Local timer interrupts", (250.0,) * 6),
        IrqDistribution("IPI0", "Rescheduling interrupts", (90.0, 40, 35, 30, 210, 180)),
        IrqDistribution("IPI1", "Function call interrupts", (12.0, 5, 6, 4, 60, 44)),
    )
    return DeviceSamples(
        trial=key, host="r4s", role="dut", cpus=CPUS, t=t, cores=tuple(cores), interrupts=interrupts
    )
