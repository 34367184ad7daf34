"""The seed matrix on the user's own bench, beside the lab, in the same run: the R4S
post's six iperf2 tests (the builtin plan `seed-matrix`, scripts/demo.sh) through the
foreign bench's router (tests/support/foreign_bench.py: NAT, gigabit veths, dropbear +
busybox) between this machine's two ports (hosts with `port:`, moved into namespaces by
wirespeed), and through the lab's gigabit NAT path, in the variants stock, RPS on one
core (on the router over SSH / on the lab's links) and MTU 512 (on the router and both
ports / on the lab's links). Each figure against Ethernet's limits (LIMITS.md). Both
paths masquerade, so the post's `-d` (the server connecting back) is iperf2's
`--full-duplex` here (`direction: bidir`), as LIMITS.md says. Root.

    sudo .venv/bin/python -m benchmarks.bench_seed_matrix [--duration 10] [--repetitions 1]
        [--only 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from benchmarks.common import emit, summary
from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.hosts.ssh_connection import SshSettings
from wirespeed.plan import expand, parse_plan
from wirespeed.run.runner import Runner
from wirespeed.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.foreign_bench import ROUTER_LAN, ROUTER_WAN, ForeignBench

PLAN = """
title: the seed matrix on one PC's two ports through a router, beside the lab
lab: {{link: gbe}}
hosts:
  lan-side: {{port: {a}, address: 192.168.7.60/24, gateway: 192.168.7.1}}
  wan-side: {{port: {b}, address: 198.51.100.4/24, gateway: {wan}}}
  router: {{address: {wan}, ssh: root@{lan}}}
paths:
  - {{name: bench, topology: nat, client: lan-side, server: wan-side, dut: router,
     link: gbe}}
  - {{name: lab, topology: nat}}
defaults: {{tool: iperf2}}
tests:
  - {{id: 1, name: "TCP, default window"}}
  - {{id: 2, name: "TCP, 64 KByte window", window: 64K}}
  - {{id: 3, name: "TCP, 128 KByte window", window: 128K}}
  - {{id: 4, name: "TCP, 2 streams, both directions", direction: bidir, parallel: 2}}
  - {{id: 5, name: UDP 1000M, protocol: udp, rate: 1000M}}
  - {{id: 6, name: "UDP 1000M, both directions", protocol: udp, rate: 1000M,
     direction: bidir}}
variants:
  - {{name: stock}}
  - {{name: rps-cpu1, rps: "2"}}
  - {{name: mtu512, mtu: 512}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--repetitions", type=int, default=1)
    parser.add_argument("--only", help="test ids, comma-separated (1: TCP, default window)")
    args = parser.parse_args()
    figures: dict[tuple[str, str, str, str], list[float]] = {}
    ceilings: dict[tuple[str, str, str, str], float] = {}
    failed: list[str] = []
    bench = ForeignBench.build(root_ports=True, cpu_board="r4s")
    try:
        text = PLAN.format(a=bench.port_a, b=bench.port_b, wan=ROUTER_WAN, lan=ROUTER_LAN)
        plan = parse_plan(text, source="<benchmark>")
        only = args.only.split(",") if args.only else None
        trials = expand(plan, duration=args.duration, repetitions=args.repetitions, only=only)
        with tempfile.TemporaryDirectory() as tmp:
            store = Store.open(Path(tmp) / "bench.db")
            try:
                runner = Runner(
                    plan,
                    store,
                    lab_prefix="var-bench",
                    ssh_settings=SshSettings(config_path=bench.ssh_config),
                )
                outcome = runner.run(trials, argv=sys.argv)
            finally:
                store.close()
    finally:
        bench.down()
    for trial_outcome in outcome.outcomes:
        trial, result = trial_outcome.trial, trial_outcome.result
        if result is None:
            failed.append(f"{trial.key}: {trial_outcome.reason}")
            continue
        ceiling = ceiling_for(trial)
        for direction in result.directions:
            if direction.goodput_bps is None:
                continue
            key = (trial.variant, trial.test.name, direction.flow.value, trial.path.name)
            figures.setdefault(key, []).append(direction.goodput_bps / 1e6)
            if ceiling is not None:
                ceilings[key] = ceiling.bits_per_second / 1e6
    rows = []
    for key, values in figures.items():
        variant, test, flow, path = key
        median = summary(values)["median"]
        rows.append(
            {
                "variant": variant,
                "test": test,
                "flow": flow,
                "path": path,
                "median_mbit": round(median, 1),
                "min": round(min(values), 1),
                "max": round(max(values), 1),
                "ceiling_mbit": round(ceilings[key], 1) if key in ceilings else None,
                "ratio": round(median / ceilings[key], 4) if key in ceilings else None,
            }
        )
    emit(
        "bench_seed_matrix",
        {
            "duration": args.duration,
            "repetitions": args.repetitions,
            "rows": rows,
            "failed": failed,
        },
    )


if __name__ == "__main__":
    main()
