"""A run taken up again where it stopped (`wirespeed run --resume RUN`).

The plan and the settings come from the run as stored (its plan text and settings,
run/settings.py; a run stored before runs kept settings: its command line, read by the
caller's reader), not from the plan file as it is now: the resumed trials must be the
ones the run was missing, measured the same way.

The run is taken over first (store/resume.py claim_run): a run still going in another
process is refused. Then the trials a store outage left in the spool are committed
(store/spool.py), and the missing trials run; with retry_failed the failed ones too,
each new outcome replacing the failed one. Stopped before it measures anything (a plan
this version refuses, a missing tool, a bad SSH option), the run goes back to how it
was.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from wirespeed.errors import UsageError, WirespeedError
from wirespeed.run.settings import RunSettings, SettingsError, build_runner, trials_of

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.plan import Plan
    from wirespeed.run.runner import Progress, RunOutcome
    from wirespeed.store import RunRecord, Store
    from wirespeed.store.resume import ResumableRun

# The settings of a run stored before runs kept them, read from its stored command line
# (run id, argv) as the version that measured it read it.
CommandLineReader = Callable[[int, Sequence[str]], RunSettings]


@dataclass(frozen=True)
class Resumed:
    """A resumed run as it now stands in the store."""

    record: RunRecord  # loaded for its report (a card's with what its sections draw)
    settings: RunSettings
    # What the trials measured now came to; None: nothing was left to measure, the run
    # was finished as it stood.
    outcome: RunOutcome | None


def resume_run(
    store: Store,
    run_id: int,
    *,
    force: bool = False,
    retry_failed: bool = False,
    lab_prefix: str | None,
    ssh: Callable[[], SshSettings],
    progress: Callable[[Plan], Progress],
    command_line: CommandLineReader,
    notice: Callable[[str], None],
    measuring: Callable[[], AbstractContextManager[object]] = contextlib.nullcontext,
) -> Resumed:
    """Take run `run_id` over, commit its spooled trials and measure the ones it lacks
    into it. `ssh` and `progress` are asked for only when there is something to measure;
    `measuring` is the context the measuring itself runs in (where the caller says what
    a Ctrl-C leaves); `notice` says what is done."""
    from wirespeed.plan import parse_plan
    from wirespeed.run.preflight import preflight
    from wirespeed.store.resume import claim_run, release_run, resumable_run
    from wirespeed.store.spool import commit_kept, spool_path

    claim = None
    started = False  # measuring: from here on the run is this process's, come what may
    try:
        resumable_run(store, run_id)  # a run that is not there: said before anything
        claim = claim_run(store, run_id, force=force)
        kept = commit_kept(store, run_id)
        if kept:
            notice(
                f"committed {kept} trial{'s' if kept != 1 else ''} of run {run_id} "
                f"kept in {spool_path(store.url, run_id)} while the store was away"
            )
        stored = resumable_run(store, run_id)
        if stored.plan_text is None:
            raise UsageError(f"run {run_id} has no stored plan (an import?): nothing to run")
        settings = settings_of_run(stored, command_line)
        plan = parse_plan(stored.plan_text, source=stored.plan_path or f"run {run_id}")
        trials = trials_of(plan, settings)
        retried = stored.failed_keys if retry_failed else frozenset()
        missing = [t for t in trials if t.key not in stored.done_keys or t.key in retried]
        if not missing:
            notice(f"run {run_id} already holds all {len(trials)} trials: nothing to resume")
            failed = stored.failed_keys & {t.key for t in trials}
            if failed:
                notice(f"{len(failed)} of them failed; --retry-failed tries them again")
            store.finish_run(run_id, "failed" if failed else "complete")
            claim = None  # finished: nothing to give back
            # The run's verdict all the same, as the run that measured it gave it: a script
            # that resumes until done must not read a missed expectation as a pass.
            searched = any(t.test.search is not None for t in trials)
            record = _load(store, run_id, card=settings.card, searched=searched)
            return Resumed(record, settings, None)
        again = sum(1 for t in missing if t.key in retried)
        notice(
            f"resuming run {run_id}: {len(trials) - len(missing)} of "
            f"{len(trials)} trials are stored, {len(missing)} to go"
            + (f" ({again} failed, tried again)" if again else "")
        )
        preflight(plan, missing)
        reach = ssh()
        started = True
        runner = build_runner(
            plan, store, settings, progress=progress(plan), lab_prefix=lab_prefix,
            ssh_settings=reach, notice=notice,
        )  # fmt: skip
        with measuring():
            outcome = runner.run(
                missing,
                argv=stored.argv,
                settings=settings.to_json(),
                resume_run=run_id,
                replacing=frozenset(retried),
            )
        record = _load(store, run_id, card=settings.card, searched=False)
        return Resumed(record, settings, outcome)
    except BaseException:
        if claim is not None and not started:
            with contextlib.suppress(WirespeedError):
                release_run(store, claim)
        raise


def settings_of_run(stored: ResumableRun, command_line: CommandLineReader) -> RunSettings:
    """The run's settings as it stored them; for a run stored before runs kept them
    (schema version 6 and earlier, or imported), read from its command line."""
    if stored.settings is None:
        return command_line(stored.run_id, stored.argv)
    try:
        return RunSettings.from_json(stored.settings)
    except SettingsError as error:
        raise UsageError(
            f"the settings stored with run {stored.run_id} cannot be read by this version "
            f"of wirespeed ({error})"
        ) from None


def _load(store: Store, run: int, *, card: bool, searched: bool) -> RunRecord:
    """The run for its report: a card's with what its sections draw (the searches' logs,
    the interval series), as `wirespeed card` loads it."""
    if card:
        return store.load_run(run, intervals="packed", outputs=True, commands=True)
    return store.load_run(run, intervals=False, outputs=searched, commands=False)
