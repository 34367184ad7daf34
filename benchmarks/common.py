"""Shared bits of the benchmarks: a throwaway store, plans from text, timing, output."""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wirespeed.kinds import wire_hooks
from wirespeed.plan import Plan, expand, parse_plan
from wirespeed.run.runner import Runner, RunOutcome
from wirespeed.store import Store

# The plan and the runner find each kind's hooks, as when the command line starts.
wire_hooks()


def run_plan_text(text: str, **expand_args: Any) -> tuple[Plan, RunOutcome]:
    plan = parse_plan(text, source="<benchmark>")
    trials = expand(plan, **expand_args)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        try:
            outcome = Runner(plan, store).run(trials, argv=sys.argv)
        finally:
            store.close()
    return plan, outcome


def summary(values: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(values),
        "median": statistics.median(values),
        "mean": statistics.fmean(values),
        "min": min(values),
        "max": max(values),
    }


def emit(name: str, data: dict[str, Any]) -> None:
    """Print one JSON line per benchmark, to paste into docs/benchmarks.md."""
    print(json.dumps({"benchmark": name, **data}, indent=2))
