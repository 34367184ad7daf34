"""`wirespeed run --resume RUN`: finish a run that was interrupted or killed.

The run is taken up by run/resume.py, from its plan and settings as stored. Only --db,
--quiet, --lab-name, --retry-failed, --force, --markdown and the SSH options are taken
from the command line that resumes; here they are read, and the run's report shown (and
written to --markdown's file: the run's report, or the card a card's run makes).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus, resume_noted
from wirespeed.cli.measuring import expectations_status, progress_of, ssh_settings
from wirespeed.errors import UsageError


def resume(args: argparse.Namespace, env: Environment, markdown: Path | None = None) -> int:
    if args.plan is not None:
        raise UsageError(
            "--resume takes the plan stored with the run: leave PLAN out",
            hint=f"wirespeed run --resume {args.resume}",
        )
    from wirespeed.cli.finished_run import report_finished_run
    from wirespeed.cli.stored_settings import settings_from_command_line
    from wirespeed.model import TrialStatus
    from wirespeed.run.resume import resume_run
    from wirespeed.store import Store

    store = Store.open(args.db)
    try:
        resumed = resume_run(
            store, args.resume, force=args.force, retry_failed=args.retry_failed,
            lab_prefix=args.lab_name, ssh=lambda: ssh_settings(args, env),
            progress=lambda plan: progress_of(env, plan),
            command_line=settings_from_command_line, notice=env.info,
            measuring=lambda: resume_noted(lambda: args.resume),
        )  # fmt: skip
        store_url = store.url
    finally:
        store.close()
    record, outcome = resumed.record, resumed.outcome
    if resumed.settings.card:  # shown as the card it is, as `wirespeed card` and `report` show it
        from wirespeed.cli.commands.card import show_card
        from wirespeed.cli.outputs import OutputTarget

        targets = [OutputTarget(markdown, "markdown")] if markdown is not None else []
        report = show_card(args, env, record, targets)
        env.info(f"card stored as run {record.id}; `wirespeed report {record.id}` shows it again")
    else:
        shown = report_finished_run(args, env, record, store_url, markdown)
        if shown is None:
            return ExitStatus.FAILED
        report = shown
    below = expectations_status(report, env)
    if outcome is None:  # nothing resumed: the run's own failures decide, as they did
        failed_trials = [o for o in record.outcomes if o.status is TrialStatus.FAILED]
        if failed_trials:
            env.error(f"{len(failed_trials)} of {len(record.outcomes)} trials failed")
            return ExitStatus.FAILED
    elif outcome.failed:
        env.error(f"{len(outcome.failed)} of {len(outcome.outcomes)} resumed trials failed")
        return ExitStatus.FAILED
    return below
