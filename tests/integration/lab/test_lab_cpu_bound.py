"""A lab DUT limited to N packets/s behaves as a CPU-bound router (lab/limits.py).

Through a gigabit router whose DUT forwards 20,000 packets/s, both directions together:
- TCP carries what its packets carry: at least 80 % of N x 2/3 x MSS (a data packet
  and, delayed ACKs, half an ACK each share the budget), never more than N x MSS. A
  policer that drops at once carried 3-6 % of it.
- With a queue, the queue sits at the bottleneck the packet rate is: a loaded round trip
  rises by the queue given, within 15 %.
- A tunnel that ends at the DUT counts its packets against the same budget: its TCP
  stays within N x the tunnel's MSS.

Each figure below its truth is measured once more: the machine is shared, and a run
beside other work may lose throughput (the floors stay).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from support.lab_trial import run_one_trial
from wirespeed.model import Measurement, TrialOutcome, TrialStatus

pytestmark = [pytest.mark.root, pytest.mark.slow]

PPS = 20_000
MSS = 1448  # MTU 1500 with TCP timestamps
TCP_TRUTH = PPS * 2 / 3 * MSS * 8  # 154.5 Mbit/s
TCP_MOST = PPS * MSS * 8  # every packet a full data segment: 231.7 Mbit/s
WIREGUARD_MSS = 1420 - 52
QUEUE_MS = 40.0
TOLERANCE = 0.15
LAB = f"lab: {{link: gbe, dut: {{forward_pps: {PPS}}}}}"
TOPOLOGY = "router-20kpps"  # the run's lab: its topology and limit


def run_plan(tmp_path: Path, plan: str, label: str) -> TrialOutcome:
    outcome, _ = run_one_trial(tmp_path, plan, label, TOPOLOGY, kind="cpu")
    assert outcome.status is TrialStatus.OK, outcome.reason
    return outcome


def figures(outcome: TrialOutcome) -> dict[str, Measurement]:
    assert outcome.result is not None
    return {m.item: m for m in outcome.result.measured()}


def test_tcp_through_a_cpu_bound_dut_runs_at_its_packet_rate(tmp_path: Path) -> None:
    plan = f"""
        {LAB}
        paths: [{{name: router, topology: router}}]
        tests: [{{id: up, tool: iperf3, duration: 4}}]
    """
    goodput = figures(run_plan(tmp_path, plan, "tcp"))["goodput up"].value
    if goodput < 0.8 * TCP_TRUTH:
        goodput = figures(run_plan(tmp_path, plan, "tcp-again"))["goodput up"].value
    assert 0.8 * TCP_TRUTH <= goodput <= TCP_MOST, goodput / 1e6


def test_the_queue_sits_at_the_packet_rate_when_it_is_the_bottleneck(tmp_path: Path) -> None:
    plan = f"""
        lab: {{link: gbe, queue: 40ms, dut: {{forward_pps: {PPS}}}}}
        paths: [{{name: router, topology: router}}]
        tests:
          - {{id: up, tool: iperf3, duration: 6, parallel: 4, congestion: cubic, probes: irtt}}
    """

    def full(found: dict[str, Measurement]) -> bool:
        return abs(found["rtt loaded, p99"].value - QUEUE_MS) <= QUEUE_MS * TOLERANCE

    found = figures(run_plan(tmp_path, plan, "queue"))
    if not full(found):
        found = figures(run_plan(tmp_path, plan, "queue-again"))
    # As at the line rate (latency/test_latency_truth.py): the queue's truth is its full
    # size, which the loaded p99 reaches and not beyond; the median is cubic's sawtooth
    # below it (measured 33.0 ms of 40).
    assert full(found), found["rtt loaded, p99"]
    increase = found["latency increase round trip"].value
    assert QUEUE_MS * 0.7 < increase < QUEUE_MS * (1 + TOLERANCE), increase
    # One ring for both directions: the upload's data and its ACKs fill it alike, and a
    # probe waits in it each way (measured 16.5 and 16.6 ms), unlike a line rate's queue,
    # which holds the upload's way only.
    for way in ("up", "down"):
        assert 0.3 * increase < found[f"latency increase {way}"].value < 0.7 * increase, way


def test_a_tunnel_to_the_limited_dut_stays_within_its_packet_budget(tmp_path: Path) -> None:
    plan = f"""
        {LAB}
        paths: [{{name: wg, topology: router, tunnel: {{kind: wireguard, ends: dut}}}}]
        tests: [{{id: up, tool: iperf3, duration: 3}}]
    """
    goodput = figures(run_plan(tmp_path, plan, "tunnel"))["goodput up"].value
    # The tunnel's data and ACKs share the budget as plain TCP's do: at most every
    # packet a full inner segment, and at least half of the plain figure's floor (its
    # packets are encrypted twice in userspace on this machine's two cores).
    assert 0.4 * PPS * 2 / 3 * WIREGUARD_MSS * 8 <= goodput <= PPS * WIREGUARD_MSS * 8, goodput
