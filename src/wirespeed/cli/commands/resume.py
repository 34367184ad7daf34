"""`wirespeed run --resume RUN`: finish a run that was interrupted or killed.

The plan and the settings come from the run as stored (its plan text and settings,
run/settings.py; a run stored before runs kept settings: its command line), not from
the plan file as it is now: the resumed trials must be the ones the run was
missing, measured the same way. Only --db, --quiet, --lab-name, --retry-failed, --force
and the SSH options are taken from the command line that resumes.

The run is taken over first (store/resume.py claim_run): a run still going in another
process is refused. Then the trials a store outage left in the spool are committed
(store/spool.py), and the missing trials run; with --retry-failed the failed ones too,
each new outcome replacing the failed one.
"""

from __future__ import annotations

import argparse
import contextlib
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.measuring import expectations_status, measure, ssh_settings
from wirespeed.errors import UsageError, WirespeedError

if TYPE_CHECKING:
    from wirespeed.store import RunRecord, Store


def resume(args: argparse.Namespace, env: Environment) -> int:
    if args.plan is not None:
        raise UsageError(
            "--resume takes the plan stored with the run: leave PLAN out",
            hint=f"wirespeed run --resume {args.resume}",
        )
    from wirespeed.cli.finished_run import report_finished_run
    from wirespeed.cli.stored_settings import stored_settings
    from wirespeed.model import TrialStatus
    from wirespeed.plan import parse_plan
    from wirespeed.run.preflight import preflight
    from wirespeed.run.runner import RunOutcome
    from wirespeed.run.settings import trials_of
    from wirespeed.store import Store
    from wirespeed.store.resume import claim_run, release_run, resumable_run
    from wirespeed.store.spool import commit_kept, spool_path

    store = Store.open(args.db)
    claim = None
    measuring = False
    outcome: RunOutcome | None = None  # None: nothing was left to resume
    try:
        resumable_run(store, args.resume)  # a run that is not there: said before anything
        claim = claim_run(store, args.resume, force=args.force)
        kept = commit_kept(store, args.resume)
        if kept:
            env.info(
                f"committed {kept} trial{'s' if kept != 1 else ''} of run {args.resume} "
                f"kept in {spool_path(store.url, args.resume)} while the store was away"
            )
        stored = resumable_run(store, args.resume)
        if stored.plan_text is None:
            raise UsageError(f"run {args.resume} has no stored plan (an import?): nothing to run")
        settings = stored_settings(stored)
        plan = parse_plan(stored.plan_text, source=stored.plan_path or f"run {args.resume}")
        trials = trials_of(plan, settings)
        retried = stored.failed_keys if args.retry_failed else frozenset()
        missing = [t for t in trials if t.key not in stored.done_keys or t.key in retried]
        if not missing:
            env.info(f"run {args.resume} already holds all {len(trials)} trials: nothing to resume")
            failed = stored.failed_keys & {t.key for t in trials}
            if failed:
                env.info(f"{len(failed)} of them failed; --retry-failed tries them again")
            store.finish_run(args.resume, "failed" if failed else "complete")
            claim = None  # finished: nothing to give back
            # The run's verdict all the same, as the run that measured it gave it: a script
            # that resumes until done must not read a missed expectation as a pass.
            searched = any(t.test.search is not None for t in trials)
            record = _load(store, args.resume, card=settings.card, searched=searched)
            store_url = store.url
        else:
            again = sum(1 for t in missing if t.key in retried)
            env.info(
                f"resuming run {args.resume}: {len(trials) - len(missing)} of "
                f"{len(trials)} trials are stored, {len(missing)} to go"
                + (f" ({again} failed, tried again)" if again else "")
            )
            preflight(plan, missing)
            ssh = ssh_settings(args, env)
            measuring = True
            outcome = measure(
                env, store, plan, missing, settings, lab_name=args.lab_name, ssh=ssh,
                argv=stored.argv, resume_run=args.resume, replacing=frozenset(retried),
            )  # fmt: skip
            record = _load(store, args.resume, card=settings.card, searched=False)
            store_url = store.url
    except BaseException:
        if claim is not None and not measuring:
            # Stopped before measuring (a plan this version refuses, a missing tool): the
            # run goes back to how it was.
            with contextlib.suppress(WirespeedError):
                release_run(store, claim)
        raise
    finally:
        store.close()
    if settings.card:  # shown as the card it is, as `wirespeed card` and `report` show it
        from wirespeed.cli.commands.card import show_card

        report = show_card(args, env, record, [])
        env.info(f"card stored as run {record.id}; `wirespeed report {record.id}` shows it again")
    else:
        shown = report_finished_run(args, env, record, store_url)
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


def _load(store: Store, run: int, *, card: bool, searched: bool) -> RunRecord:
    """The run for its report: a card's with what its sections draw (the searches' logs,
    the interval series), as `wirespeed card` loads it."""
    if card:
        return store.load_run(run, intervals="packed", outputs=True, commands=True)
    return store.load_run(run, intervals=False, outputs=searched, commands=False)
