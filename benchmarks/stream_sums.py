"""Stream sums: is a goodput of many parallel streams the bytes that crossed the link?

iperf2 times each stream from its own start, so adding the streams' rates overstates
what the link carried (it once gave 1126 Mbit/s on gigabit with -P 128). Here each tool
runs at -P 1, 8, 32 and 128 through a bridge lab shaped to 1 Gbit/s, whose TCP ceiling
is 941.5 Mbit/s: a figure above it is impossible, and one a few % below it is the
link's truth (the shaper holds the link at its rate while any stream has data). Needs
root.

    sudo .venv/bin/python -m benchmarks.stream_sums [--duration 5] [--streams 1 8 32 128]
"""

from __future__ import annotations

import argparse

from benchmarks.common import emit
from wirespeed.analysis.ceiling import ceiling
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.model import Flow, PathSpec, Proto, Role, TestCase, TestSpec, Tool, Topology, Trial
from wirespeed.run.trial import Endpoints, run_trial


def measure(lab: Lab, tool: Tool, streams: int, duration: float) -> dict[str, float]:
    spec = TestSpec(duration=duration, parallel=streams)
    test = TestCase("t", f"{tool} -P {streams}", tool, spec)
    path = PathSpec("gbe", Topology.BRIDGE, "client", "server", link=lab.spec.link)
    server = lab.hosts[Role.SERVER]
    outcome = run_trial(
        Trial(test, path), Endpoints(lab.hosts[Role.CLIENT], server, lab.server_address)
    )
    if outcome.result is None:
        raise RuntimeError(f"{test.name}: trial failed: {outcome.reason}")
    direction = outcome.result.direction(Flow.UP)
    assert direction is not None and direction.goodput_bps is not None
    return {"wirespeed_mbit": round(direction.goodput_bps / 1e6, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--streams", type=int, nargs="+", default=[1, 8, 32, 128])
    args = parser.parse_args()
    link = parse_link("gbe")
    limit = ceiling(1_000_000_000, Proto.TCP).bits_per_second / 1e6
    spec = LabSpec(Topology.BRIDGE, link, name="bench-stream-sums")
    rows: dict[str, dict[str, float]] = {}
    with Lab.up(spec) as lab:
        for tool in (Tool.IPERF2, Tool.IPERF3):
            for streams in args.streams:
                row = measure(lab, tool, streams, args.duration)
                row["of_the_ceiling"] = round(row["wirespeed_mbit"] / limit, 3)
                rows[f"{tool} -P {streams}"] = row
    emit(
        "stream_sums",
        {"duration": args.duration, "ceiling_mbit": round(limit, 1), "runs": rows},
    )


if __name__ == "__main__":
    main()
