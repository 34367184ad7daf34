"""Forwarding-rate searches against their truth: does `wirespeed run` find the limit a
lab DUT was given, at every RFC 2544 frame size?

Three labs, each searched as the plan's defaults do it (MLRsearch, 1 s trials first,
10 s ones for the answer, 1 % width), direction up:

  - gbe, a DUT that forwards at most 15,000 packets/s: NDR = 15,000 at every size;
  - fe, the same DUT: NDR = min(15,000, fe's frame rate): 11,973 at 1024 B, 9,615 at
    1280 B, 8,127 at 1518 B;
  - gbe, no limit, 1518 B: NDR = gigabit's frame rate, 81,274.

The goal is every NDR within 2 % of its truth. Needs root, ~12 minutes.

    sudo .venv/bin/python -m benchmarks.forwarding_truth [--frames 64,1518] [--final 10]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from benchmarks.common import emit, run_plan_text
from wirespeed.model import RawOutput
from wirespeed.search.frames import frames_per_second
from wirespeed.search.log import SEARCH_ARGV0, from_json

LIMIT = 15_000
RFC2544 = "64,128,256,512,1024,1280,1518"
GOAL = 2.0  # % either way
RATES = {"gbe": 1_000_000_000, "fe": 100_000_000}


def plan_text(link: str, limit: int | None, frames: str, final: float) -> str:
    dut = f", dut: {{forward_pps: {limit}}}" if limit else ""
    return f"""
lab: {{link: {link}{dut}}}
paths: [{{name: R, topology: router}}]
tests:
  - id: fwd
    tool: forwarding
    options: {{frame_sizes: [{frames}], goals: [{{name: NDR, loss: 0}}],
               final_duration: {final}}}
"""


def _show_trials(raw: Sequence[RawOutput], frame: int) -> None:
    """Every trial of a cell that missed its truth, to see why."""
    for output in raw:
        if output.argv[:1] != (SEARCH_ARGV0,):
            continue
        log = from_json(output.text)
        if log.frame != frame:
            continue
        pairs = zip(log.result.trials, log.counters, strict=True)
        for number, (one, counted) in enumerate(pairs, 1):
            print(
                f"  trial {number}: {one.intended:,.0f} pps {one.duration:g} s, offered "
                f"{one.offered:,.0f}, lost {one.sent - one.received} of {one.sent} "
                f"({'generator-limited, ' if one.generator_limited else ''}counters {counted})"
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", default=RFC2544)
    parser.add_argument("--final", type=float, default=10.0, help="full-length trial, s")
    args = parser.parse_args()
    cases = [("gbe", LIMIT, args.frames), ("fe", LIMIT, args.frames), ("gbe", None, "1518")]
    worst = 0.0
    for link, limit, frames in cases:
        _, outcome = run_plan_text(plan_text(link, limit, frames, args.final))
        (trial,) = outcome.outcomes
        assert trial.result is not None, trial.reason
        measured = {(m.name, dict(m.labels)["frame"]): m.value for m in trial.result.measurements}
        for frame in (int(f) for f in frames.split(",")):
            ceiling = frames_per_second(RATES[link], frame)
            truth = ceiling if limit is None else min(limit, ceiling)
            ndr = measured.get(("NDR", f"{frame} B"))
            error = None if ndr is None else 100 * (ndr - truth) / truth
            worst = max(worst, 100.0 if error is None else abs(error))
            if error is None or abs(error) > GOAL:
                _show_trials(trial.raw, frame)
            emit(
                "forwarding_truth",
                {
                    "link": link,
                    "limit_pps": limit,
                    "frame": frame,
                    "truth_pps": round(truth),
                    "ndr_pps": None if ndr is None else round(ndr),
                    "error_percent": None if error is None else round(error, 2),
                    "trials": measured.get(("search trials", f"{frame} B")),
                    "traffic_s": measured.get(("search time", f"{frame} B")),
                    "findings": [f.message for f in trial.findings],
                },
            )
            sys.stdout.flush()
    print(f"worst error {worst:.2f} % (goal: within {GOAL} %)")
    return 0 if worst <= GOAL else 1


if __name__ == "__main__":
    sys.exit(main())
