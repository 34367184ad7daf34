"""Many iperf2 streams timed by the wire: is -P 64 ever read above the link again?

iperf2's server starts each stream's clock when it takes the connection; with many
streams on a busy machine it takes them late, while their bytes already arrive, and
reads above the link. The trial then times the flow by the receiving interface's
counters (run/wire_span.py). Here iperf2 -P N runs for `--duration` s, `--repeat` times,
through a bridge lab shaped to 1 Gbit/s (TCP ceiling 941.5 Mbit/s); each repetition
gives iperf2's own receiver figure (the server's output parsed alone: what wirespeed
reported before) and the trial's figure (now), and whether the wire timed it. With
`--held S` the server is held (SIGSTOP) for S s as the client starts: late every time.
Needs root.

    sudo .venv/bin/python -m benchmarks.wire_span [--streams 16 64] [--repeat 8] [--held 0]
"""

from __future__ import annotations

import argparse
import os
import signal
import threading

from benchmarks.common import emit, summary
from wirespeed.analysis.ceiling import ceiling
from wirespeed.hosts.base import Host, Process
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.model import (
    Flow,
    PathSpec,
    Proto,
    Role,
    Side,
    TestCase,
    TestSpec,
    Tool,
    Topology,
    Trial,
)
from wirespeed.run import trial as trial_module
from wirespeed.run.trial import Endpoints, run_trial
from wirespeed.tools import iperf2


def measure(lab: Lab, streams: int, duration: float) -> tuple[float, float, bool]:
    """(iperf2's own Mbit/s, the trial's Mbit/s, timed by the wire)."""
    test = TestCase(
        "t", f"iperf2 -P {streams}", Tool.IPERF2, TestSpec(duration=duration, parallel=streams)
    )
    path = PathSpec("gbe", Topology.BRIDGE, "client", "server", link=lab.spec.link)
    outcome = run_trial(
        Trial(test, path),
        Endpoints(lab.hosts[Role.CLIENT], lab.hosts[Role.SERVER], lab.server_address),
    )
    if outcome.result is None:
        raise RuntimeError(f"{test.name}: trial failed: {outcome.reason}")
    (server,) = [r for r in outcome.raw if r.side is Side.SERVER]
    alone = iperf2.parse(server.text, Side.SERVER).direction(Flow.UP)
    now = outcome.result.direction(Flow.UP)
    assert alone is not None and alone.goodput_bps is not None
    assert now is not None and now.goodput_bps is not None
    timed = any("interface received" in w.message for w in outcome.result.warnings)
    return alone.goodput_bps / 1e6, now.goodput_bps / 1e6, timed


def hold_server(seconds: float) -> None:
    """Every trial's server held for `seconds` once it listens, as the client starts."""
    listening = trial_module.wait_listening

    def then_held(host: Host, server: Process, port: int, protocol: Proto) -> None:
        listening(host, server, port, protocol)
        os.kill(server.pid, signal.SIGSTOP)
        threading.Timer(seconds, os.kill, (server.pid, signal.SIGCONT)).start()

    trial_module.wait_listening = then_held


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=float, default=2.0)
    parser.add_argument("--streams", type=int, nargs="+", default=[16, 64])
    parser.add_argument("--repeat", type=int, default=8)
    parser.add_argument("--held", type=float, default=0.0)
    args = parser.parse_args()
    if args.held > 0:
        hold_server(args.held)
    limit = ceiling(1_000_000_000, Proto.TCP).bits_per_second / 1e6
    spec = LabSpec(Topology.BRIDGE, parse_link("gbe"), name="bench-wire-span")
    runs: dict[str, dict[str, object]] = {}
    load_before = os.getloadavg()[0]
    with Lab.up(spec) as lab:
        for streams in args.streams:
            rows = [measure(lab, streams, args.duration) for _ in range(args.repeat)]
            runs[f"iperf2 -P {streams}"] = {
                "iperf2_alone_mbit": summary([r[0] for r in rows]),
                "trial_mbit": summary([r[1] for r in rows]),
                "above_ceiling_alone": sum(r[0] > limit * 1.001 for r in rows),
                "above_ceiling_trial": sum(r[1] > limit * 1.001 for r in rows),
                "timed_by_the_wire": sum(r[2] for r in rows),
                "each": [[round(a, 1), round(b, 1)] for a, b, _ in rows],
            }
    emit(
        "wire_span",
        {
            "duration": args.duration,
            "held": args.held,
            "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
            "ceiling_mbit": round(limit, 1),
            "runs": runs,
        },
    )


if __name__ == "__main__":
    main()
