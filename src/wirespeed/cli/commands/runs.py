"""`wirespeed runs`: the runs in the store, and which store that is."""

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
        where = store.where
        url = store.url
    finally:
        store.close()
    if args.json:
        from wirespeed.cli.documents import runs_document, write_json

        write_json(env, runs_document(runs, url))
        return ExitStatus.OK
    if not runs:
        env.info(
            f"no runs yet in {where}: `wirespeed run PLAN` or `wirespeed import FILE` makes one"
        )
        return ExitStatus.OK
    render_runs(runs, env.console())
    # Which store: --db, WIRESPEED_DB or the default (under sudo, the invoking user's).
    env.stdout.write(f"store: {where}\n")
    return ExitStatus.OK
