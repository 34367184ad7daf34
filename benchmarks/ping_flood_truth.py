"""The ping flood (tool: ping-flood) against its truth: one echo request in flight at a
time, so where the link's rate holds it back the flood runs at the link's frame rate for
the request's size, rate / (8 x (data + 28 of ICMP and IP + 14 of Ethernet + 24 of
framing)). Through the lab's router, for link rates and sizes where the link is the
limit, each flood repeated; the answered rate against that truth. Needs root.

    sudo .venv/bin/python -m benchmarks.ping_flood_truth [--duration 3] [--repeat 3]
"""

from __future__ import annotations

import argparse

from benchmarks.common import emit, run_plan_text, summary
from wirespeed.search.frames import MAC_HEADER_AND_FCS, frames_per_second
from wirespeed.tools.ping_flood import IP_AND_ICMP_HEADERS

LINKS = {"10mbit": 10_000_000, "fe": 100_000_000}
SIZES = (1400, 512)

PLAN = """
title: ping flood truth {link}
lab: {{link: {link}}}
paths: [{{name: router, topology: router}}]
tests:
{tests}
"""
TEST = "  - {{id: s{size}, tool: ping-flood, options: {{duration: {duration}, size: {size}}}}}"


def frame_rate(rate_bps: int, size: int) -> float:
    return frames_per_second(rate_bps, size + IP_AND_ICMP_HEADERS + MAC_HEADER_AND_FCS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--duration", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rows = []
    for link, rate_bps in LINKS.items():
        tests = "\n".join(TEST.format(size=size, duration=args.duration) for size in SIZES)
        _, outcome = run_plan_text(PLAN.format(link=link, tests=tests), repetitions=args.repeat)
        for size in SIZES:
            truth = frame_rate(rate_bps, size)
            rates, losses = [], []
            for trial in outcome.outcomes:
                if trial.trial.test.id != f"s{size}" or trial.result is None:
                    continue
                figures = {m.item: m.value for m in trial.result.measurements}
                rates.append(figures["flood rate"])
                losses.append(figures["flood loss"])
            rows.append(
                {
                    "link": link,
                    "size": size,
                    "truth_pps": round(truth, 1),
                    "rate_pps": summary(rates) if rates else None,
                    "ratio_median": round(summary(rates)["median"] / truth, 4) if rates else None,
                    "loss_max_percent": max(losses) if losses else None,
                    "failed": [t.reason for t in outcome.outcomes if t.reason],
                }
            )
    emit("ping_flood_truth", {"duration": args.duration, "repeat": args.repeat, "rows": rows})


if __name__ == "__main__":
    main()
