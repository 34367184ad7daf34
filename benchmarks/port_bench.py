"""Ports of this machine as hosts, against the lab, for the same tests: two veth "ports"
through a router namespace built with plain `ip` (tests/support/port_bench.py: each side
shaped as gigabit Ethernet, offloads off), and the lab's own gigabit router path, each
against Ethernet's limits (LIMITS.md). Needs root.

    sudo .venv/bin/python -m benchmarks.port_bench [--duration 10] [--repetitions 3]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from benchmarks.common import emit, summary
from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.model import Flow
from wirespeed.plan import expand, parse_plan
from wirespeed.run.runner import Runner
from wirespeed.store import Store

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from support.port_bench import port_bench

PLAN = """
title: ports of this machine against the lab
lab: {{link: gbe}}
hosts:
  lan-side: {{port: {a}, address: 192.168.71.50/24, gateway: 192.168.71.1}}
  wan-side: {{port: {b}, address: 10.71.0.2/24, gateway: 10.71.0.1}}
paths:
  - {{name: ports, topology: router, client: lan-side, server: wan-side, link: gbe}}
  - {{name: lab, topology: router}}
tests:
  - {{id: tcp, name: TCP, tool: iperf2, protocol: tcp}}
  - {{id: udp, name: UDP 1470 B above the link, tool: iperf2, protocol: udp, rate: 1200M,
      length: 1470}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--repetitions", type=int, default=3)
    args = parser.parse_args()
    figures: dict[tuple[str, str], list[float]] = {}
    ceilings: dict[tuple[str, str], float] = {}
    with port_bench() as bench, tempfile.TemporaryDirectory() as tmp:
        plan = parse_plan(PLAN.format(a=bench.port_a, b=bench.port_b), source="<benchmark>")
        trials = expand(plan, duration=args.duration, repetitions=args.repetitions)
        store = Store.open(Path(tmp) / "bench.db")
        try:
            outcome = Runner(plan, store, lab_prefix="pt-bench").run(trials, argv=sys.argv)
        finally:
            store.close()
        for trial_outcome in outcome.outcomes:
            trial, result = trial_outcome.trial, trial_outcome.result
            up = result.direction(Flow.UP) if result else None
            if up is None or up.goodput_bps is None:
                raise SystemExit(f"{trial.key}: no goodput ({trial_outcome.reason})")
            key = (trial.path.name, trial.test.name)
            figures.setdefault(key, []).append(up.goodput_bps / 1e6)
            ceiling = ceiling_for(trial)
            if ceiling is not None:
                ceilings[key] = ceiling.bits_per_second / 1e6
    rows = [
        {
            "path": path,
            "test": test,
            **{k: round(v, 2) for k, v in summary(values).items()},
            "ceiling_mbit": round(ceilings[(path, test)], 2),
            "median_ratio": round(summary(values)["median"] / ceilings[(path, test)], 4),
        }
        for (path, test), values in figures.items()
    ]
    emit(
        "port_bench",
        {"duration": args.duration, "repetitions": args.repetitions, "rows": rows},
    )


if __name__ == "__main__":
    main()
