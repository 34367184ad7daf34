"""Transparency: does wirespeed cost throughput? iperf3 driven by wirespeed vs bare
iperf3, alternating in one unshaped lab (veth as fast as the CPU goes, so any overhead
of the harness would show). Ratio of medians; the goal is >= 0.97. Needs root.

    sudo .venv/bin/python -m benchmarks.transparency [--pairs 5] [--duration 5]
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics

from benchmarks.common import emit, summary
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.model import Flow, PathSpec, Role, TestCase, TestSpec, Tool, Topology, Trial
from wirespeed.run.trial import Endpoints, run_trial


def bare(lab: Lab, duration: float) -> float:
    # The same port as wirespeed's: on an unshaped lab the CPU that handles a flow
    # depends on the hash of its ports (RPS), so both sides must draw from the same dice.
    server = lab.hosts[Role.SERVER].start(["iperf3", "-s", "-1", "-p", "5201"])
    try:
        for _ in range(500):  # until it listens; bare use would just wait a moment
            done = lab.hosts[Role.CLIENT].run(
                ["iperf3", "-c", lab.server_address, "-p", "5201", "-t", str(duration), "-J"],
                timeout=duration + 30,
            )
            data = json.loads(done.stdout)
            if "error" not in data:
                return float(data["end"]["sum_received"]["bits_per_second"])
        raise RuntimeError("bare iperf3 never connected")
    finally:
        server.stop()


def driven(lab: Lab, duration: float) -> float:
    test = TestCase("t", "iperf3 TCP", Tool.IPERF3, TestSpec(duration=duration))
    path = PathSpec("unshaped", Topology.BRIDGE, "client", "server")
    outcome = run_trial(
        Trial(test, path),
        Endpoints(lab.hosts[Role.CLIENT], lab.hosts[Role.SERVER], lab.server_address),
    )
    if outcome.result is None:
        raise RuntimeError(f"trial failed: {outcome.reason}")
    direction = outcome.result.direction(Flow.UP)
    assert direction is not None and direction.goodput_bps is not None
    return direction.goodput_bps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", type=int, default=10)
    parser.add_argument("--duration", type=float, default=5.0)
    args = parser.parse_args()
    spec = LabSpec(Topology.BRIDGE, parse_link("unshaped"), name="bench-transparency")
    bare_runs: list[float] = []
    driven_runs: list[float] = []
    harness_cpu = 0.0  # CPU seconds of wirespeed's own process during its trials
    with Lab.up(spec) as lab:
        for pair in range(args.pairs):
            # Alternate who goes first, so drift (heat, other load) cannot favour one side.
            if pair % 2:
                bare_runs.append(bare(lab, args.duration))
            before = resource.getrusage(resource.RUSAGE_SELF)
            driven_runs.append(driven(lab, args.duration))
            after = resource.getrusage(resource.RUSAGE_SELF)
            harness_cpu += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            if not pair % 2:
                bare_runs.append(bare(lab, args.duration))
    emit(
        "transparency",
        {
            "duration": args.duration,
            "wirespeed_mbit": summary([v / 1e6 for v in driven_runs]),
            "bare_mbit": summary([v / 1e6 for v in bare_runs]),
            "ratio_of_medians": statistics.median(driven_runs) / statistics.median(bare_runs),
            "ratio_of_means": statistics.fmean(driven_runs) / statistics.fmean(bare_runs),
            # The harness's own share of one core while a trial runs (iperf's CPU is not in
            # it: iperf runs as a child process, counted apart).
            "harness_cpu_share_of_a_core": harness_cpu / (args.pairs * args.duration),
        },
    )


if __name__ == "__main__":
    main()
