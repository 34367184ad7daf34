"""`wirespeed runs`: the runs in the store."""

from __future__ import annotations

import argparse

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.report import render_runs
    from wirespeed.store import Store

    store = Store.open(args.db, read_only=True)
    try:
        runs = store.list_runs()
    finally:
        store.close()
    if not runs:
        env.info("no runs yet: `wirespeed run PLAN` or `wirespeed import FILE` makes one")
        return ExitStatus.OK
    render_runs(runs, env.console())
    return ExitStatus.OK
