"""Lab fidelity: the lab's shaped links against Ethernet's physical limits (LIMITS.md),
measured through wirespeed on the bridge path: gbe and fe, TCP and UDP (1470-byte
datagrams at a rate above the link), receiver side. Needs root.

    sudo .venv/bin/python -m benchmarks.lab_fidelity [--duration 10]
"""

from __future__ import annotations

import argparse

from benchmarks.common import emit, run_plan_text
from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.model import Flow

PLAN = """
title: lab fidelity {link}
lab: {{link: {link}}}
paths: [{{name: {link}, topology: bridge}}]
tests:
  - {{id: tcp, name: TCP, tool: iperf3}}
  - {{id: udp, name: UDP 1470 B above the link, tool: iperf2, protocol: udp,
      rate: {rate}, length: 1470}}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=float, default=10.0)
    args = parser.parse_args()
    rows = []
    for link, rate in (("gbe", "1200M"), ("fe", "150M")):
        _, outcome = run_plan_text(PLAN.format(link=link, rate=rate), duration=args.duration)
        for trial_outcome in outcome.outcomes:
            ceiling = ceiling_for(trial_outcome.trial)
            result = trial_outcome.result
            up = result.direction(Flow.UP) if result else None
            goodput = up.goodput_bps if up else None
            rows.append(
                {
                    "link": link,
                    "test": trial_outcome.trial.test.name,
                    "mbit": None if goodput is None else round(goodput / 1e6, 2),
                    "ceiling_mbit": None
                    if ceiling is None
                    else round(ceiling.bits_per_second / 1e6, 2),
                    "ratio": None
                    if goodput is None or ceiling is None
                    else round(goodput / ceiling.bits_per_second, 4),
                    "reason": trial_outcome.reason,
                }
            )
    emit("lab_fidelity", {"duration": args.duration, "rows": rows})


if __name__ == "__main__":
    main()
