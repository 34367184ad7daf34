"""Search cost, simulated: how many trials and seconds of traffic each forwarding-rate
search takes to find a device's capacity, and how far below it its answer lands.

The device (tests/support/simulated_device.py) forwards at most C packets/s, with mild
noise: its capacity varies by 0.2 % from trial to trial and 2 % of trials lose a few
packets. The load may go up to 64-byte gigabit line rate (1,488,095 pps). Each search
runs over SEEDS seeds; the table gives the mean trials and seconds of traffic, and the
mean and worst error of the NDR (lower bound) against C. No network, no root:

    .venv/bin/python -m benchmarks.search_cost_simulated [--seeds 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

from benchmarks.common import emit
from wirespeed.search.binary import rfc2544_binary
from wirespeed.search.mlrsearch import mlrsearch
from wirespeed.search.model import Goal, Measurer, SearchLimits, SearchResult
from wirespeed.search.ndr_bench import ndr_bench

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.simulated_device import SimulatedDevice

LIMITS = SearchLimits(max_load=1_488_095.0, min_load=1000.0)
CAPACITIES = (15_000.0, 81_274.0, 250_000.0, 1_000_000.0)
Search = Callable[[Measurer], SearchResult]

SEARCHES: dict[str, Search] = {
    "MLRsearch, final 10 s": lambda device: mlrsearch(
        device, [Goal("NDR", final_duration=10.0)], LIMITS
    ),
    "MLRsearch, final 10 s x3, exceed 0.5": lambda device: mlrsearch(
        device, [Goal("NDR", final_duration=10.0, duration_sum=30.0)], LIMITS
    ),
    "MLRsearch, final 60 s": lambda device: mlrsearch(
        device, [Goal("NDR", final_duration=60.0)], LIMITS
    ),
    "RFC 2544 binary, 60 s": lambda device: rfc2544_binary(device, LIMITS, duration=60.0),
    "ndr_bench defaults (20 s)": lambda device: ndr_bench(device, LIMITS),
}


def measure(search: Search, capacity: float, seeds: int) -> dict[str, float]:
    trials, seconds, errors = [], [], []
    for seed in range(seeds):
        device = SimulatedDevice(capacity=capacity, noise=0.002, spike_probability=0.02, seed=seed)
        result = search(device)
        lower = result.goals[0].lower
        trials.append(len(result.trials))
        seconds.append(result.seconds_of_traffic)
        errors.append(100.0 if lower is None else 100 * (capacity - lower) / capacity)
    return {
        "trials": round(statistics.fmean(trials), 1),
        "seconds": round(statistics.fmean(seconds), 1),
        "error_mean_pct": round(statistics.fmean(errors), 2),
        "error_worst_pct": round(max(errors), 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=10)
    args = parser.parse_args()
    rows: dict[str, dict[str, dict[str, float]]] = {}
    print(
        f"{'C (pps)':>10}  {'search':<38}{'trials':>7}{'traffic s':>11}{'error %':>9}{'worst %':>9}"
    )
    for capacity in CAPACITIES:
        for name, search in SEARCHES.items():
            row = measure(search, capacity, args.seeds)
            rows.setdefault(f"{capacity:.0f}", {})[name] = row
            print(
                f"{capacity:>10,.0f}  {name:<38}{row['trials']:>7}{row['seconds']:>11}"
                f"{row['error_mean_pct']:>9}{row['error_worst_pct']:>9}"
            )
    emit("search_cost_simulated", {"seeds": args.seeds, "max_load": LIMITS.max_load, "runs": rows})


if __name__ == "__main__":
    main()
