"""`wirespeed run PLAN`: the whole experiment."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus, resume_noted
from wirespeed.cli.outputs import check_output, write_output
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from wirespeed.analysis.expectations import Judgement
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.report.model import Report
    from wirespeed.store import RunRecord


def ssh_settings(args: argparse.Namespace, env: Environment) -> SshSettings:
    """How to reach SSH hosts, from --accept-new-host-key and --ssh-config."""
    from wirespeed.hosts.ssh_connection import SshSettings

    config = getattr(args, "ssh_config", None)
    if config is not None and not Path(config).is_file():
        raise UsageError(f"--ssh-config {config}: no such file")
    return SshSettings(
        config_path=Path(config) if config is not None else None,
        accept_new=bool(getattr(args, "accept_new_host_key", False)),
        on_note=env.info,
    )


def expectations_status(report: Report, env: Environment) -> ExitStatus:
    """OK, or BELOW_EXPECTATION when a figure the plan expects was not reached (or not
    measured), said on stderr with expected and measured figures."""
    return judgements_status(report.judgements, env)


def judgements_status(judgements: Sequence[Judgement], env: Environment) -> ExitStatus:
    """expectations_status of judgements made (a run's, a soak's)."""
    from wirespeed.analysis.expectations import Verdict
    from wirespeed.expectations import item_text, value_text

    missed = [j for j in judgements if j.verdict is not Verdict.MET]
    if not missed:
        if judgements:
            env.info(f"all {len(judgements)} expectations met")
        return ExitStatus.OK
    shown = []
    for judgement in missed[:3]:
        expectation = judgement.expectation
        where = judgement.place or "a cell"
        measured = (
            "nothing measured"
            if judgement.measured is None
            else f"measured {value_text(expectation.unit, judgement.measured)}"
        ) + judgement.set_aside_text
        flow = judgement.flow
        if flow is not None:
            shown.append(f"{expectation.text} on {where} ({flow}), {measured}")
        else:
            cell = item_text(expectation.name, judgement.labels)
            shown.append(f"{expectation.text} on {where} ({cell}), {measured}")
    more = f"; and {len(missed) - 3} more" if len(missed) > 3 else ""
    env.error(
        f"{len(missed)} of {len(judgements)} expectations not met: " + "; ".join(shown) + more
    )
    return ExitStatus.BELOW_EXPECTATION


def watched_roles(text: str | None) -> list[str]:
    watch = [r.strip() for r in text.split(",") if r.strip()] if text else []
    unknown = sorted(set(watch) - {"dut", "client", "server"})
    if unknown:
        raise UsageError(f"--watch takes dut, client and server, not {', '.join(unknown)}")
    return watch


def show_run(
    args: argparse.Namespace, env: Environment, record: RunRecord, report: Report, store_url: str
) -> None:
    """A finished run on stdout: its table; with --json its JSON document instead; with
    -q only its id, so that `id=$(wirespeed run -q plan.yaml)` has it. Progress and
    notices stay on stderr."""
    if args.json:
        from wirespeed.cli.documents import run_document, write_json
        from wirespeed.report.json_export import expectations_summary

        document = run_document(
            record.id, record.status, record.outcomes, store_url, expectations_summary(report)
        )
        write_json(env, document)
    elif env.quiet:
        env.stdout.write(f"{record.id}\n")
    else:
        from wirespeed.report import render_terminal

        render_terminal(report, env.console())
    env.info(f"run {record.id} stored; `wirespeed report {record.id}` shows it again")


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
        return resume(args, env)
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
    watch = watched_roles(args.watch)
    from wirespeed.cli.labels import parse_labels

    labels = parse_labels(getattr(args, "label", None))  # a bad one: exit 2 before the run
    from wirespeed.cli.commands.adhoc import plan_to_run
    from wirespeed.plan import expand

    plan = plan_to_run(args)
    for warning in plan.warnings:
        env.warn(str(warning))
    if save_plan is not None:
        write_output(save_plan, plan.text, "--save-plan")
        env.info(f"plan written to {save_plan}")
    only = [part.strip() for part in args.only.split(",")] if args.only else None
    trials = expand(plan, duration=args.duration, repetitions=args.repeat, only=only)

    from wirespeed.cli.finished_run import report_finished_run
    from wirespeed.cli.progress import RichProgress
    from wirespeed.run.preflight import preflight
    from wirespeed.run.runner import NullProgress, Progress, Runner
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
        progress: Progress = (
            NullProgress()
            if env.quiet
            else RichProgress(env.progress_console(), in_lab=plan.lab is not None)
        )
        runner = Runner(
            plan,
            store,
            progress,
            lab_prefix=args.lab_name,
            watch=watch,
            sample_interval=args.sample_interval,
            lab_dut=args.lab_dut,
            ssh_settings=ssh_settings(args, env),
            notice=env.info,
            labels=labels,
        )
        with resume_noted(lambda: runner.run_id):
            outcome = runner.run(trials, argv=args.argv)
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
