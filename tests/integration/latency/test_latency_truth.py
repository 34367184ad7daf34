"""Latency under load against the truth: a lab DUT whose queue holds 40 ms of data.

A TCP upload (cubic, which fills a queue; bbr would keep it short) of 4 streams through
a router lab of 100 Mbit/s with `queue: 40ms`: the probes' idle round trip is the
lab's own (a fraction of a millisecond), under load the queue adds up to 40 ms on the
way up and nothing on the way down, and the grade follows the increase (B: 30-60 ms).
cubic's sawtooth keeps the queue between about 70 % and 100 % full: the loaded median
sits a little below 40 ms (docs/benchmarks.md: 36-37 ms, three runs), the p99 at it.
The tolerances are loose on purpose: this machine is shared, and a busy core adds to a
round trip (the precise figures are in docs/benchmarks.md).

Where irtt is missing on the server's side (the lab's SSH DUT is a busybox device
without it), the run says so and measures round trips by ping.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.lab_trial import run_one_trial
from wirespeed.analysis.latency import grade
from wirespeed.model import FindingKind, Measurement, Side, TrialOutcome, TrialStatus

pytestmark = [pytest.mark.root, pytest.mark.slow]

QUEUE_MS = 40.0


def run_plan(
    tmp_path: Path, plan: str, label: str, topology: str, *extra: str
) -> tuple[TrialOutcome, str]:
    """Run a plan in a lab named latency-LABEL-PID-TOPOLOGY; its one outcome and what the
    run said."""
    return run_one_trial(tmp_path, plan, label, topology, *extra, kind="latency")


def figures(outcome: TrialOutcome) -> dict[str, Measurement]:
    assert outcome.status is TrialStatus.OK, outcome.reason
    assert outcome.result is not None
    return {m.item: m for m in outcome.result.measurements}


def test_a_40_ms_queue_adds_40_ms_under_an_upload_and_grades_b(tmp_path: Path) -> None:
    outcome, _ = run_plan(
        tmp_path,
        """
        lab: {link: 100mbit, queue: 40ms}
        paths: [{name: router, topology: router}]
        tests:
          - {id: up, tool: iperf3, duration: 8, parallel: 4, congestion: cubic, probes: irtt}
        """,
        "truth",
        "router",
    )
    found = figures(outcome)
    assert found["rtt idle, p50"].value < 1.0
    increase = found["latency increase round trip"].value
    # The queue's truth is its full size: cubic's sawtooth fills it at each peak, so the
    # loaded p90 reaches it, not beyond.
    p90, p99 = found["rtt loaded, p90"].value, found["rtt loaded, p99"].value
    assert QUEUE_MS * 0.85 < p90 < QUEUE_MS * 1.15
    # The p99 is the slowest 1 %: on a machine whose every core is busy with other work a
    # probe also waits for a CPU (54.5 ms seen once, with the fast tests on both cores),
    # which the run says as a finding. Only then may it lie further above the queue, and
    # never by more than half of it.
    saturated = [
        f for f in outcome.findings if f.kind is FindingKind.PROBES and "every core" in f.message
    ]
    assert p90 <= p99 < QUEUE_MS * (1.5 if saturated else 1.15), (p99, outcome.findings)
    # The max is one probe of hundreds and a stalled core adds to it whatever the stall
    # lasted (62.7 ms seen once): it is only checked to lie above the p99.
    assert found["rtt loaded, max"].value >= p99
    # The median: cubic's sawtooth below the full queue (loose: a busy machine).
    assert QUEUE_MS * 0.7 < increase < QUEUE_MS * 1.15
    # The queue is on the way up (the DUT's WAN port), the way down carries ACKs only.
    assert found["latency increase up"].value == pytest.approx(increase, abs=2.0)
    assert abs(found["latency increase down"].value) < 2.0
    grade_figure = found["bufferbloat grade"]
    assert grade_figure.unit == "grade" and grade_figure.value == increase
    assert grade(increase) == "B"
    probes = [raw for raw in outcome.raw if raw.side is Side.PROBE]
    assert [raw.argv[0] for raw in probes] == ["irtt", "irtt"]  # idle, then loaded
    assert not [f for f in outcome.findings if f.kind is FindingKind.PROBES and "ping" in f.message]


def test_without_irtt_on_the_server_the_run_falls_back_to_ping_and_says_so(
    tmp_path: Path,
) -> None:
    outcome, said = run_plan(
        tmp_path,
        """
        lab: {link: 100mbit, queue: 40ms}
        paths: [{name: wan, topology: endpoint}]
        tests:
          - {id: up, tool: iperf3, duration: 6, parallel: 4, congestion: cubic, probes: irtt}
        """,
        "ping",
        "endpoint",
        "--lab-dut",
        "ssh",
    )
    assert "irtt not found on" in said and "latency by ping" in said
    notes = [f.message for f in outcome.findings if f.kind is FindingKind.PROBES]
    assert any("latency by ping" in note for note in notes), notes
    found = figures(outcome)
    assert found["rtt idle, p50"].value < 2.0
    assert QUEUE_MS * 0.6 < found["latency increase round trip"].value < QUEUE_MS * 1.2
    assert "latency increase up" not in found  # ping has no one-way delays
    probes = [raw for raw in outcome.raw if raw.side is Side.PROBE]
    assert [raw.argv[0] for raw in probes] == ["ping", "ping"]
