"""RRUL against its truth: four TCP streams each way at once through a router lab of
100 Mbit/s whose DUT queues 40 ms on each port, probed by irtt (3 s idle, then every
10 ms from 1 s into the load until 0.5 s before its end).

The truth: the loaded round trip rises by 40 ms ± 15 %, the idle one stays below 1 ms,
the grade is B, and each way's goodput is near the link's TCP ceiling (94.1 Mbit/s).
Each repetition is a run of its own (a fresh lab), as a user would repeat it.

    sudo .venv/bin/python -m benchmarks.rrul_truth [--repeat 3] [--duration 10]
        [--congestion cubic] [--until-stable]

--until-stable runs RRUL's RPM-like ramp (streams added until the goodput is stable)
and adds its responsiveness (round trips per minute) and streams to each run's figures.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from benchmarks.common import emit, summary
from wirespeed.analysis.latency import grade
from wirespeed.model import Side
from wirespeed.plan import expand, parse_plan
from wirespeed.run.runner import Runner
from wirespeed.store import Store

TRUTH_MS = 40.0
TOLERANCE = 0.15
TCP_CEILING_MBIT = 94.1  # LIMITS.md: TCP at 100 Mbit/s, MTU 1500


def plan_text(duration: float, congestion: str, until_stable: bool) -> str:
    ramp = ", until_stable: true" if until_stable else ""
    return f"""
lab: {{link: 100mbit, queue: 40ms}}
paths: [{{name: router, topology: router}}]
tests:
  - {{id: rrul, tool: rrul, duration: {duration:g}, congestion: {congestion}{ramp}}}
"""


def one_run(
    duration: float, congestion: str, repetition: int, until_stable: bool = False
) -> dict[str, float | str]:
    plan = parse_plan(plan_text(duration, congestion, until_stable), source="<benchmark>")
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        try:
            prefix = f"rrul-bench-{os.getpid()}-{repetition}"
            run = Runner(plan, store, lab_prefix=prefix).run(expand(plan), argv=sys.argv)
            (outcome,) = store.load_run(run.run_id, intervals=False).outcomes
        finally:
            store.close()
    if outcome.result is None:
        raise SystemExit(f"repetition {repetition} failed: {outcome.reason}")
    found = {m.item: m.value for m in outcome.result.measured()}
    increase = found["latency increase round trip"]
    ramp: dict[str, float | str] = {}
    if until_stable:
        clients = [raw for raw in outcome.raw if raw.side is Side.CLIENT]
        notes = [f.message for f in outcome.findings if f.message.startswith("RPM-like")]
        ramp = {
            "rpm": round(found["responsiveness RPM-like"]),
            "streams_each_way": len(clients) // 2 * 4,
            "ramp": notes[0].split(";")[0] if notes else "",
        }
    return ramp | {
        "idle_p50_ms": round(found["rtt idle, p50"], 2),
        "loaded_p50_ms": round(found["rtt loaded, p50"], 2),
        "loaded_p99_ms": round(found["rtt loaded, p99"], 2),
        "loaded_max_ms": round(found["rtt loaded, max"], 2),
        "increase_ms": round(increase, 2),
        "increase_up_ms": round(found.get("latency increase up", float("nan")), 2),
        "increase_down_ms": round(found.get("latency increase down", float("nan")), 2),
        "probe_loss_loaded_pct": round(found["probe loss loaded"], 2),
        "grade": grade(increase),
        "goodput_up_mbit": round(found["goodput up"] / 1e6, 1),
        "goodput_down_mbit": round(found["goodput down"] / 1e6, 1),
        "error_pct": round((increase - TRUTH_MS) / TRUTH_MS * 100, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--duration", type=float, default=10.0)
    parser.add_argument("--congestion", default="cubic")
    parser.add_argument("--until-stable", action="store_true")
    args = parser.parse_args()
    runs = [
        one_run(args.duration, args.congestion, k + 1, args.until_stable)
        for k in range(args.repeat)
    ]
    for k, figures in enumerate(runs, 1):
        print(f"repetition {k}: {figures}")
    increases = [float(r["increase_ms"]) for r in runs]
    within = all(abs(float(r["error_pct"])) <= TOLERANCE * 100 for r in runs)
    emit(
        "rrul_truth",
        {
            "congestion": args.congestion,
            "until_stable": args.until_stable,
            "duration_s": args.duration,
            "truth_ms": TRUTH_MS,
            "increase_ms": summary(increases),
            "goodput_up_mbit": summary([float(r["goodput_up_mbit"]) for r in runs]),
            "goodput_down_mbit": summary([float(r["goodput_down_mbit"]) for r in runs]),
            "grades": sorted({str(r["grade"]) for r in runs}),
            "every_repetition_within_15_pct": within,
            "runs": runs,
        },
    )
    return 0 if within or args.congestion != "cubic" else 1


if __name__ == "__main__":
    sys.exit(main())
