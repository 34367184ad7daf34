"""Several iperf2 streams over a 100 Mbit/s link (tests/fixtures/capture_streams.sh): a
total within the ceiling is judged as such, one above it is flagged impossible."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from wirespeed.analysis.ceiling import ceiling
from wirespeed.analysis.findings import judge_result
from wirespeed.model import (
    FindingKind,
    Flow,
    PathSpec,
    Proto,
    Result,
    Side,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Transfer,
    Trial,
    TrialOutcome,
    TrialStatus,
)
from wirespeed.tools import iperf2

CAPTURES = Path(__file__).parents[2] / "fixtures" / "iperf2"
FE = ceiling(100_000_000, Proto.TCP)


def judged_kinds(result: Result) -> set[FindingKind]:
    test = TestCase(
        "1", "streams", Tool.IPERF2, TestSpec(protocol=result.protocol or Proto.TCP, parallel=32)
    )
    trial = Trial(test, PathSpec("fe", Topology.ENDPOINT, "client", "server"))
    outcome = TrialOutcome(trial, TrialStatus.OK, 0.0, 1.0, result=result)
    return {f.kind for f in judge_result(outcome, FE)}


@pytest.mark.parametrize("name", ["streams-tcp-p32.server", "streams-tcp-p128.server"])
def test_many_streams_on_a_shaped_link_are_not_above_its_ceiling(name: str) -> None:
    result = iperf2.parse((CAPTURES / f"{name}.txt").read_text(), Side.SERVER)
    assert FindingKind.IMPOSSIBLE not in judged_kinds(result)


def test_a_total_of_many_streams_above_the_ceiling_is_flagged() -> None:
    result = iperf2.parse((CAPTURES / "streams-tcp-p32.server.txt").read_text(), Side.SERVER)
    up = result.direction(Flow.UP)
    assert up is not None and up.received is not None
    # What adding the 32 streams' rates would say: 98.7 Mbit/s against 94.1.
    added = sum(s.received.bits_per_second for s in up.streams if s.received)
    inflated = replace(up, received=Transfer(up.received.bytes, 3.0, added))
    assert FindingKind.IMPOSSIBLE in judged_kinds(replace(result, directions=(inflated,)))
