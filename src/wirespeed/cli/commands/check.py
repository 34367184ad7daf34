"""`wirespeed check PLAN`: validate a plan and show the trials it would run."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.trial_kinds import count_trials, trial_kinds

if TYPE_CHECKING:
    from wirespeed.model import Trial
    from wirespeed.plan import Plan


def _expected(plan: Plan, trial: Trial) -> str:
    """'  expect goodput >= 300.0 Mbit/s': what the plan's `expect:` asks of the trial."""
    expected = plan.expectations_for(trial.test.id, trial.path.name, trial.variant)
    return f"  expect {', '.join(e.text for e in expected)}" if expected else ""


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.plan import expand
    from wirespeed.plan.sources import plan_from_argument

    if args.json:
        return _as_json(args, env)
    plan = plan_from_argument(args.plan, sys.stdin.buffer)
    for warning in plan.warnings:
        env.warn(str(warning))
    trials = expand(plan)
    said = [count_trials(trials), *trial_kinds(trials, traffic_when_empty=True)]
    out = env.stdout
    # plan.source, not args.plan: a file name that is not UTF-8 cannot be printed as given.
    out.write(f"{plan.source}: ok — {', '.join(said)}\n")
    several_variants = len({t.variant for t in trials}) > 1
    for trial in trials:
        spec = trial.test.spec
        variant = f"{trial.variant:<12} " if several_variants else ""
        repetition = f" (rep {trial.repetition})" if trial.repetition > 1 else ""
        what = (
            f"{spec.protocol.value} {spec.direction.value:<5} {spec.duration:g} s"
            if trial.test.is_iperf
            else "a search"
            if trial.test.search is not None
            else "on the device"
        )
        out.write(
            f"  {trial.path.name:<10} {variant}#{trial.test.id:<4} {trial.test.tool.value:<6} "
            f"{what}  {trial.test.name}{repetition}{_expected(plan, trial)}\n"
        )
    return ExitStatus.OK


def _as_json(args: argparse.Namespace, env: Environment) -> int:
    """The problems as JSON, not as messages: a plan with errors is still one document
    on stdout (exit status 2), so an editor or CI can place each at its line."""
    from wirespeed.cli.documents import check_document, write_json
    from wirespeed.plan import expand
    from wirespeed.plan.problems import PlanError
    from wirespeed.plan.sources import plan_from_argument

    try:
        plan = plan_from_argument(args.plan, sys.stdin.buffer)
    except PlanError as error:
        source = error.problems[0].source
        write_json(env, check_document(source, error.problems, [], []))
        return ExitStatus.USAGE
    write_json(env, check_document(plan.source, [], plan.warnings, expand(plan)))
    return ExitStatus.OK
