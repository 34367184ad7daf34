"""`wirespeed plans [NAME]`: the plans built into wirespeed, or one's YAML."""

from __future__ import annotations

import argparse

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.trial_kinds import count_trials, trial_kinds


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.plan import expand
    from wirespeed.plan.sources import builtin_names, builtin_text, load_builtin

    out = env.stdout
    if args.name is not None:
        out.write(builtin_text(args.name))  # an unknown name: the list of known ones
        return ExitStatus.OK
    names = builtin_names()
    width = max(map(len, names))
    for name in names:
        plan = load_builtin(name)
        trials = expand(plan)
        said = [
            count_trials(trials),
            *trial_kinds(trials, duration=_duration, in_lab=plan.lab is not None),
        ]
        out.write(f"{name:<{width}}  {plan.title or name}  ({', '.join(said)})\n")
    example = "seed-matrix" if "seed-matrix" in names else names[0]
    out.write(
        f"\n`wirespeed run NAME` runs one (wirespeed run {example} --duration 2: a quick "
        "look); `wirespeed plans NAME` prints its YAML to start a plan of your own\n"
    )
    return ExitStatus.OK


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    return f"{seconds / 60:.0f} min"
