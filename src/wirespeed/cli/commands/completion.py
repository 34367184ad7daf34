"""`wirespeed completion SHELL`: the shell's completion script, on stdout."""

from __future__ import annotations

import argparse

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.cli.completion import completion_script
    from wirespeed.cli.parser import build_parser

    env.stdout.write(completion_script(build_parser(), args.shell))
    return ExitStatus.OK
