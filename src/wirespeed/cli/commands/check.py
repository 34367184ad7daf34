"""`wirespeed check PLAN`: validate a plan and show the trials it would run."""

from __future__ import annotations

import argparse
import sys

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.plan import expand
    from wirespeed.plan.sources import plan_from_argument

    plan = plan_from_argument(args.plan, sys.stdin.buffer)
    for warning in plan.warnings:
        env.warn(str(warning))
    trials = expand(plan)
    seconds = sum(t.test.spec.duration for t in trials)
    out = env.stdout
    # plan.source, not args.plan: a file name that is not UTF-8 cannot be printed as given.
    out.write(f"{plan.source}: ok — {len(trials)} trials, {seconds:.0f} s of traffic\n")
    several_variants = len({t.variant for t in trials}) > 1
    for trial in trials:
        spec = trial.test.spec
        variant = f"{trial.variant:<12} " if several_variants else ""
        repetition = f" (rep {trial.repetition})" if trial.repetition > 1 else ""
        out.write(
            f"  {trial.path.name:<10} {variant}#{trial.test.id:<4} {trial.test.tool.value:<6} "
            f"{spec.protocol.value} {spec.direction.value:<5} {spec.duration:g} s  "
            f"{trial.test.name}{repetition}\n"
        )
    return ExitStatus.OK
