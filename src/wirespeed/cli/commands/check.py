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
    from wirespeed.plan.load import SoakPlanGiven


def _expected(plan: Plan, trial: Trial) -> str:
    """'  expect goodput >= 300.0 Mbit/s': what the plan's `expect:` asks of the trial."""
    expected = plan.expectations_for(trial.test.id, trial.path.name, trial.variant)
    return f"  expect {', '.join(e.text for e in expected)}" if expected else ""


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.plan import expand
    from wirespeed.plan.load import SoakPlanGiven
    from wirespeed.plan.sources import plan_from_argument

    if args.json:
        return _as_json(args, env)
    try:
        plan = plan_from_argument(args.plan, sys.stdin.buffer)
    except SoakPlanGiven as given:
        return _check_soak(given, env)
    for warning in plan.warnings:
        env.warn(str(warning))
    trials = expand(plan)
    said = [
        count_trials(trials),
        *trial_kinds(trials, traffic_when_empty=True, in_lab=plan.lab is not None),
    ]
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
            if trial.test.yields_flows
            else "a search"
            if trial.test.search is not None
            else "on the device"
            if not trial.test.tool.moves_traffic
            else "across the path"
        )
        out.write(
            f"  {trial.path.name:<10} {variant}#{trial.test.id:<4} {trial.test.tool:<6} "
            f"{what}  {trial.test.name}{repetition}{_expected(plan, trial)}\n"
        )
    return ExitStatus.OK


def _check_soak(given: SoakPlanGiven, env: Environment) -> int:
    """A soak plan checked as `wirespeed soak` reads it (a PlanError if it is not valid)."""
    from wirespeed.soak.plan import parse_soak_plan

    plan = parse_soak_plan(given.text, given.source)
    settings = plan.soak
    path = plan.path
    where = (
        f"from {path.client} to {path.server}"
        if path.client is not None
        else f"through a lab {path.topology}"
    )
    said = [
        f"a soak of {settings.duration:g} s, a probe every {settings.interval * 1000:g} ms {where}"
    ]
    if settings.faults:
        count = len(settings.faults)
        said.append(f"{count} injected fault{'s' if count != 1 else ''}")
    if plan.variants:
        said.append(f"{len(plan.variants)} variants, one soak each")
    env.stdout.write(f"{given.source}: ok — {', '.join(said)}\n")
    expected = plan.expectations
    if expected:
        env.stdout.write(f"  expect {', '.join(e.text for e in expected)}\n")
    return ExitStatus.OK


def _as_json(args: argparse.Namespace, env: Environment) -> int:
    """The problems as JSON, not as messages: a plan with errors is still one document
    on stdout (exit status 2), so an editor or CI can place each at its line."""
    from wirespeed.cli.documents import check_document, write_json
    from wirespeed.plan import expand
    from wirespeed.plan.load import SoakPlanGiven
    from wirespeed.plan.problems import PlanError
    from wirespeed.plan.sources import plan_from_argument

    try:
        plan = plan_from_argument(args.plan, sys.stdin.buffer)
    except SoakPlanGiven as given:
        return _soak_as_json(given, env)
    except PlanError as error:
        source = error.problems[0].source
        write_json(env, check_document(source, error.problems, [], []))
        return ExitStatus.USAGE
    write_json(env, check_document(plan.source, [], plan.warnings, expand(plan)))
    return ExitStatus.OK


def _soak_as_json(given: SoakPlanGiven, env: Environment) -> int:
    from wirespeed.cli.documents import check_document, write_json
    from wirespeed.plan.problems import PlanError
    from wirespeed.soak.plan import parse_soak_plan

    try:
        parse_soak_plan(given.text, given.source)
    except PlanError as error:
        write_json(env, check_document(given.source, error.problems, [], []))
        return ExitStatus.USAGE
    write_json(env, check_document(given.source, [], [], []))
    return ExitStatus.OK
