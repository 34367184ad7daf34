"""`wirespeed check PLAN`: validate a plan and show the trials it would run."""

from __future__ import annotations

import argparse
from pathlib import Path

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.plan import expand, load_plan

    plan = load_plan(Path(args.plan))
    for warning in plan.warnings:
        env.warn(str(warning))
    trials = expand(plan)
    seconds = sum(t.test.spec.duration for t in trials)
    out = env.stdout
    out.write(f"{args.plan}: ok — {len(trials)} trials, {seconds:.0f} s of traffic\n")
    for trial in trials:
        spec = trial.test.spec
        out.write(
            f"  {trial.path.name:<10} #{trial.test.id:<4} {trial.test.tool.value:<6} "
            f"{spec.protocol.value} {spec.direction.value:<5} {spec.duration:g} s  "
            f"{trial.test.name}\n"
        )
    return ExitStatus.OK
