"""How far below its ceiling a tunnel's short trial lands on this machine: the spread
behind tests/integration/run/test_tunnel_combinations.py's bounds.

Every tunnel the plan accepts on a router lab (OpenVPN over UDP and TCP, WireGuard; the
tunnel ending at the DUT and crossing it) on the Fast Ethernet link, each carrying the
test's three shapes (iperf3 TCP up, iperf3 UDP down at 100M of 1372-byte datagrams,
iperf2 TCP both ways), 2 s trials as the test runs them, repeated. Per shape: each
flow's goodput as a share of the tunnel's ceiling (the link's less each packet's
encapsulation), lowest, median and highest, and the worst trial.

--busy runs one more job beside it that takes a whole core (`nice -n 19 sh -c 'while
:; do :; done'`), as the suite must pass with; it is stopped at the end. Needs root,
~20 s a tunnel and repetition.

    sudo .venv/bin/python -m benchmarks.tunnel_spread [--repeat 3] [--busy]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time

from benchmarks.common import emit, run_plan_text
from wirespeed.analysis.ceiling import ceiling_for

TUNNELS = (
    "{kind: openvpn, ends: through}",
    "{kind: openvpn, ends: through, proto: tcp}",
    "{kind: openvpn, ends: dut}",
    "{kind: openvpn, ends: dut, proto: tcp}",
    "{kind: wireguard, ends: through}",
    "{kind: wireguard, ends: dut}",
)
SHAPES = {
    "tcp-up": "tool: iperf3, protocol: tcp, direction: up",
    "udp-down": "tool: iperf3, protocol: udp, direction: down, rate: 100M, length: 1372",
    "tcp-both-ways": "tool: iperf2, protocol: tcp, direction: bidir",
}
DURATION = 2


def plan_text(repeat: int) -> str:
    paths = "\n".join(
        f"  - {{name: t{index}, topology: router, tunnel: {tunnel}}}"
        for index, tunnel in enumerate(TUNNELS)
    )
    tests = "\n".join(f"  - {{id: {name}, {shape}}}" for name, shape in SHAPES.items())
    return (
        f"lab: {{link: fe}}\npaths:\n{paths}\nrepetitions: {repeat}\n"
        f"defaults: {{duration: {DURATION}}}\ntests:\n{tests}\n"
    )


def busy_core() -> subprocess.Popen[bytes]:
    return subprocess.Popen(["nice", "-n", "19", "sh", "-c", "while :; do :; done"])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--busy", action="store_true", help="one more job taking a whole core")
    args = parser.parse_args()
    loop = busy_core() if args.busy else None
    started = time.monotonic()
    loads = [os.getloadavg()[0]]
    try:
        _, outcome = run_plan_text(plan_text(args.repeat))
    finally:
        if loop is not None:
            loop.kill()
            loop.wait()
    loads.append(os.getloadavg()[0])
    shares: dict[str, list[tuple[float, str]]] = {name: [] for name in SHAPES}
    # Per repetition, the one-way flows of every tunnel: what one run of the test sees.
    one_way: dict[int, list[float]] = {}
    both_ways: list[float] = []  # a two-way trial's two directions together, of twice the ceiling
    failed = []
    for trial in outcome.outcomes:
        shape = trial.trial.test.id
        ceiling = ceiling_for(trial.trial)
        if trial.result is None or ceiling is None:
            failed.append(f"{trial.trial.key}: {trial.reason}")
            continue
        together = []
        for direction in trial.result.directions:
            if direction.goodput_bps is not None:
                share = direction.goodput_bps / ceiling.bits_per_second
                shares[shape].append((share, f"{trial.trial.key} {direction.flow.value}"))
                together.append(share)
        if shape == "tcp-both-ways":
            both_ways.append(sum(together) / 2)
        else:
            one_way.setdefault(trial.trial.repetition, []).extend(together)
    for shape, found in shares.items():
        if not found:
            continue
        values = sorted(share for share, _ in found)
        emit(
            "tunnel_spread",
            {
                "shape": shape,
                "busy_core": args.busy,
                "flows": len(values),
                "lowest_pct": round(100 * values[0], 1),
                "second_lowest_pct": round(100 * values[1], 1) if len(values) > 1 else None,
                "median_pct": round(100 * statistics.median(values), 1),
                "highest_pct": round(100 * values[-1], 1),
                "worst": min(found)[1],
            },
        )
    emit(
        "tunnel_spread_run",
        {
            "one_way_median_pct_per_repetition": [
                round(100 * statistics.median(values), 1) for values in one_way.values()
            ],
            "two_way_together_pct": sorted(round(100 * value, 1) for value in both_ways),
            "all_shares_pct": {
                shape: sorted(round(100 * share, 1) for share, _ in found)
                for shape, found in shares.items()
            },
            "failed": failed,
            "seconds": round(time.monotonic() - started),
            "load_average_start_end": [round(load, 2) for load in loads],
            "machine": f"{os.cpu_count()} cores, {platform.release()}",
        },
    )
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
