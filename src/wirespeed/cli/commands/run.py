"""`wirespeed run PLAN`: the whole experiment."""

from __future__ import annotations

import argparse

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.measuring import (
    expectations_status,
    measure,
    settings_of,
    ssh_settings,
    watched_roles,
)
from wirespeed.cli.outputs import check_output, write_output
from wirespeed.errors import UsageError


def execute(args: argparse.Namespace, env: Environment) -> int:
    # Before anything runs: a Markdown file that cannot be written would only fail
    # after the whole run.
    markdown = check_output(args.markdown, "--markdown", "report.md") if args.markdown else None
    save_plan = (
        check_output(args.save_plan, "--save-plan", "plan.yaml")
        if args.save_plan is not None
        else None
    )
    if args.resume is not None:
        from wirespeed.cli.commands.adhoc import given_adhoc_options
        from wirespeed.cli.commands.resume import resume

        taken = given_adhoc_options(args) + ["-c"] * (args.adhoc_host is not None)
        taken += ["--save-plan"] * (save_plan is not None)
        taken += ["--label"] * bool(getattr(args, "label", None))
        if taken:
            raise UsageError(
                f"--resume takes the plan stored with the run: leave out {' '.join(taken)}",
                hint=f"wirespeed run --resume {args.resume}",
            )
        return resume(args, env, markdown)
    for flag, given in (("--retry-failed", args.retry_failed), ("--force", args.force)):
        if given:
            raise UsageError(
                f"{flag} goes with --resume RUN", hint=f"wirespeed run --resume RUN {flag}"
            )
    if args.duration is not None and args.duration <= 0:
        raise UsageError(f"--duration must be positive, got {args.duration}")
    if args.repeat is not None and args.repeat < 1:
        raise UsageError(f"--repeat must be at least 1, got {args.repeat}")
    if not 0.05 <= args.sample_interval <= 60:
        raise UsageError(f"--sample-interval must be 0.05..60 s, got {args.sample_interval}")
    watched_roles(args.watch)  # a bad one: exit 2 before anything is probed or run
    from wirespeed.cli.labels import parse_labels

    labels = parse_labels(getattr(args, "label", None))  # a bad one: exit 2 before the run
    from wirespeed.cli.commands.adhoc import plan_to_run
    from wirespeed.run.settings import trials_of, unused_duration

    plan = plan_to_run(args)
    for warning in plan.warnings:
        env.warn(str(warning))
    if save_plan is not None:
        write_output(save_plan, plan.text, "--save-plan")
        env.info(f"plan written to {save_plan}")
    settings = settings_of(args, labels=labels)
    trials = trials_of(plan, settings)
    unused = unused_duration(trials, settings)
    if unused is not None:
        env.warn(unused)

    from wirespeed.cli.finished_run import report_finished_run
    from wirespeed.run.preflight import preflight
    from wirespeed.store import Store

    preflight(plan, trials)  # root, tools, hosts: before anything is opened or built
    store = Store.open(args.db)
    try:
        from wirespeed.store.spool import kept_runs

        for kept_for, path in kept_runs(store.url).items():
            env.warn(
                f"run {kept_for} has trials kept in {path} while the store was away: "
                f"`wirespeed run --resume {kept_for}` commits them"
            )
        outcome = measure(
            env, store, plan, trials, settings, lab_name=args.lab_name,
            ssh=ssh_settings(args, env), argv=args.argv,
        )  # fmt: skip
        # A search's notes and bounds ("≥") come from its logs, which are raw outputs of
        # the trials' commands: loaded for those.
        searched = any(t.test.search is not None for t in trials)
        record = store.load_run(
            outcome.run_id, intervals=False, outputs=searched, commands=searched
        )
        store_url = store.url
    finally:
        store.close()
    report = report_finished_run(args, env, record, store_url, markdown)
    if report is None:
        return ExitStatus.FAILED
    below = expectations_status(report, env)
    if outcome.failed:
        env.error(f"{len(outcome.failed)} of {len(outcome.outcomes)} trials failed")
        return ExitStatus.FAILED
    return below
