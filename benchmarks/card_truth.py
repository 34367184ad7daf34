"""`wirespeed card lab --quick` against the lab's truths, timed as a user runs it.

The lab DUT forwards at most LIMIT packets/s and its ports queue 40 ms at 100 Mbit/s
(`card lab:nat:fe --forward-pps LIMIT --queue 40ms`). Its truths:

  - forwarding: NDR = min(LIMIT, the link's frame rate) at each frame size, each way
    (64 B: LIMIT; 512 B: 23,496; 1518 B: 8,127 at 100 Mbit/s), within 2 %;
  - latency: RRUL's round trip rises by the queue, 40 ms, within 15 %
    (docs/benchmarks.md, "RRUL against the truth");
  - the whole quick card within 10 minutes.

Needs root; a quick card takes about 5 minutes.

    sudo .venv/bin/python -m benchmarks.card_truth [--limit 40000] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import emit
from wirespeed.search.frames import frames_per_second

FE = 100_000_000
QUEUE_MS = 40.0
FORWARDING_GOAL = 0.02
LATENCY_GOAL = 0.15
BUDGET_S = 600.0
WIRESPEED = Path(sys.executable).with_name("wirespeed")


def card_once(limit: int, extra: list[str]) -> tuple[float, dict[str, Any], str]:
    with tempfile.TemporaryDirectory() as scratch:
        document = Path(scratch) / "card.json"
        argv = [
            str(WIRESPEED), "card", "lab:nat:fe", "--forward-pps", str(limit),
            "--queue", "40ms", "--db", str(Path(scratch) / "runs.db"),
            "--lab-name", f"card{os.getpid()}", "-o", str(document), "-q", *extra,
        ]  # fmt: skip
        started = time.monotonic()
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        took = time.monotonic() - started
        if done.returncode != 0:
            raise SystemExit(f"card failed ({done.returncode}): {done.stderr}")
        return took, json.loads(document.read_text())["card"], done.stderr


def judge(limit: int, card: dict[str, Any]) -> dict[str, Any]:
    figures = {
        (part["key"], figure["label"]): figure["value"]
        for part in card["parts"]
        for figure in part["figures"]
    }
    forwarding = {}
    for frame in (64, 512, 1518):
        truth = min(limit, frames_per_second(FE, frame))
        for direction in ("in", "out"):
            found = figures.get(("forwarding", f"NDR {frame} B {direction}"))
            error = None if found is None else (found - truth) / truth
            forwarding[f"{frame} B {direction}"] = {
                "ndr": found,
                "truth": round(truth),
                "error_pct": None if error is None else round(error * 100, 2),
                "within_goal": error is not None and abs(error) <= FORWARDING_GOAL,
            }
    increase = figures.get(("latency", "latency increase (round trip)"))
    latency_error = None if increase is None else (increase - QUEUE_MS) / QUEUE_MS
    return {
        "summary": card["summary"],
        "seconds_by_part": {part["key"]: part["seconds"] for part in card["parts"]},
        "forwarding": forwarding,
        "latency_increase_ms": increase,
        "latency_error_pct": None if latency_error is None else round(latency_error * 100, 1),
        "latency_within_goal": latency_error is not None and abs(latency_error) <= LATENCY_GOAL,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--limit", type=int, default=40_000, help="the DUT's packets/s")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("extra", nargs="*", help="more options for `wirespeed card`")
    args = parser.parse_args()
    for index in range(args.repeat):
        took, card, said = card_once(args.limit, args.extra)
        result = judge(args.limit, card)
        emit(
            "card_truth",
            {
                "run": index + 1,
                "limit_pps": args.limit,
                "wall_s": round(took, 1),
                "within_budget": took <= BUDGET_S,
                **result,
                "skipped": [line for line in said.splitlines() if "skipped" in line],
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
