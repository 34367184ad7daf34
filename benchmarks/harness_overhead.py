"""Harness overhead per test: wall time of a trial beyond the test's own duration.

It includes what any harness pays (start the server, wait until it listens, start the
client, collect, stop) and iperf's own connect and teardown; the same 1 s test run by hand
with `iperf3 -c` is measured in the same lab for comparison. Needs root (a lab).

    sudo .venv/bin/python -m benchmarks.harness_overhead [--trials 10]
"""

from __future__ import annotations

import argparse
import time

from benchmarks.common import emit, run_plan_text, summary
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.model import Role, Topology

PLAN = """
title: harness overhead
lab: {{link: gbe}}
paths: [{{name: Br0, topology: bridge}}]
repetitions: {repetitions}
tests:
  - {{id: tcp3, name: iperf3 TCP 1 s, tool: iperf3, duration: 1}}
  - {{id: tcp2, name: iperf2 TCP 1 s, tool: iperf2, duration: 1}}
  - {{id: udp2, name: iperf2 UDP 1 s, tool: iperf2, protocol: udp, rate: 500M, duration: 1}}
"""


def bare_iperf3(trials: int) -> list[float]:
    """The same 1 s iperf3 test by hand: server started once, client timed alone."""
    walls = []
    with Lab.up(LabSpec(Topology.BRIDGE, parse_link("gbe"), name="bench-bare")) as lab:
        server = lab.hosts[Role.SERVER].start(["iperf3", "-s", "-p", "5201"])
        try:
            time.sleep(0.5)  # bare use: people wait for the server by eye
            for _ in range(trials):
                start = time.monotonic()
                lab.hosts[Role.CLIENT].run(
                    ["iperf3", "-c", lab.server_address, "-t", "1", "-J"], timeout=30
                )
                walls.append(time.monotonic() - start - 1.0)
        finally:
            server.stop()
    return walls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=10, help="repetitions of each test")
    args = parser.parse_args()
    started = time.monotonic()
    _, outcome = run_plan_text(PLAN.format(repetitions=args.trials))
    wall = time.monotonic() - started
    per_tool: dict[str, list[float]] = {}
    for result in outcome.outcomes:
        spent = result.finished_at - result.started_at - result.trial.test.spec.duration
        per_tool.setdefault(result.trial.test.id, []).append(spent)
    durations = sum(o.trial.test.spec.duration for o in outcome.outcomes)
    emit(
        "harness_overhead",
        {
            "trials": len(outcome.outcomes),
            "failed": len(outcome.failed),
            "per_trial_seconds_beyond_duration": {k: summary(v) for k, v in per_tool.items()},
            "whole_run_seconds_beyond_durations_per_trial": (wall - durations)
            / len(outcome.outcomes),
            "bare_iperf3_client_seconds_beyond_duration": summary(bare_iperf3(args.trials)),
        },
    )


if __name__ == "__main__":
    main()
