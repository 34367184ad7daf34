"""Search cost on a real lab DUT: trials, seconds of traffic and wall time each
forwarding-rate search takes, and how close its NDR lands to the truth.

The DUT is a lab nat path whose forward hook passes at most 15,000 packets/s (an
nftables limit); the generator is iperf2 at a packet rate, the loss is counted by the
namespaces' UDP counters, exactly as `wirespeed run` does it (run/search_trial.py).
Side by side, on the same lab and the same frame sizes ("out": client to server):

  - MLRsearch as wirespeed runs it: 1 s trials first, 10 s ones for the answer, 1 % width;
  - RFC 2544's plain binary search: every trial 60 s, 1 % resolution;
  - TRex ndr_bench's defaults, simulated: 20 s trials, 1 % error (of the maximum rate),
    at most 10 iterations.

The truth is min(limit, the link's frame-rate ceiling). Needs root; the binary search
alone takes ~15 min per frame size, so `--quick` leaves it out.

    sudo .venv/bin/python -m benchmarks.search_cost [--frames 64,1518] [--quick]
    sudo .venv/bin/python -m benchmarks.search_cost --unlimited --link gbe --frames 1518
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from benchmarks.common import emit
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.model import ForwardingLimit, Topology
from wirespeed.run.search_legs import lab_legs
from wirespeed.run.search_load import measurer_for
from wirespeed.search.binary import rfc2544_binary
from wirespeed.search.frames import frames_per_second
from wirespeed.search.mlrsearch import mlrsearch
from wirespeed.search.model import Goal, Measurer, SearchLimits, SearchResult
from wirespeed.search.ndr_bench import ndr_bench

LIMIT_PPS = 15_000
Search = Callable[[Measurer, SearchLimits], SearchResult]

SEARCHES: dict[str, Search] = {
    "MLRsearch 1 s -> 10 s, 1 %": lambda measure, limits: mlrsearch(
        measure, [Goal("NDR", final_duration=10.0, width=0.01)], limits
    ),
    "ndr_bench defaults (20 s, 1 %)": ndr_bench,
    "RFC 2544 binary, 60 s, 1 %": lambda measure, limits: rfc2544_binary(
        measure, limits, duration=60.0, width=0.01
    ),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", default="64,1518", help="frame sizes with FCS")
    parser.add_argument("--link", default="gbe")
    parser.add_argument("--unlimited", action="store_true", help="no forwarding limit")
    parser.add_argument("--quick", action="store_true", help="leave out the 60 s binary search")
    parser.add_argument("--lab-name", default="bench-search")
    args = parser.parse_args()
    link = parse_link(args.link)
    limit = None if args.unlimited else ForwardingLimit(pps=LIMIT_PPS)
    topology = Topology.NAT
    searches = {
        name: search for name, search in SEARCHES.items() if not (args.quick and "60 s" in name)
    }
    lab = Lab.up(LabSpec(topology, link, name=args.lab_name, limit=limit), owned=True)
    try:
        legs = lab_legs(lab)["out"]
        for frame in (int(f) for f in args.frames.split(",")):
            assert link.rate_bps is not None
            ceiling = frames_per_second(link.rate_bps, frame)
            truth = ceiling if limit is None else min(LIMIT_PPS, ceiling)
            limits = SearchLimits(max_load=ceiling, min_load=100.0, initial_duration=1.0)
            for name, search in searches.items():
                started = time.monotonic()
                result = search(measurer_for(legs, frame), limits)
                wall = time.monotonic() - started
                ndr = result.goals[0]
                lower = ndr.lower or 0.0
                emit(
                    "search_cost",
                    {
                        "frame": frame,
                        "link": link.name,
                        "search": name,
                        "truth_pps": round(truth),
                        "ndr_pps": round(lower),
                        "upper_pps": None if ndr.upper is None else round(ndr.upper),
                        "error_percent": round(100 * (lower - truth) / truth, 2),
                        "width_percent": None if ndr.width is None else round(100 * ndr.width, 2),
                        "trials": len(result.trials),
                        "traffic_s": round(result.seconds_of_traffic, 1),
                        "wall_s": round(wall, 1),
                        "generator_ceiling": result.generator_ceiling
                        and round(result.generator_ceiling),
                        "stopped": result.stopped,
                    },
                )
                sys.stdout.flush()
    finally:
        lab.down()
    return 0


if __name__ == "__main__":
    sys.exit(main())
