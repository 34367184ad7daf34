"""`wirespeed manpage`: wirespeed(1) in roff, on stdout."""

from __future__ import annotations

import argparse

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.cli.manpage import manpage
    from wirespeed.cli.parser import build_parser

    env.stdout.write(manpage(build_parser()))
    return ExitStatus.OK
