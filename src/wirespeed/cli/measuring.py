"""What the commands that measure share: SSH options, the run's settings from `run`'s
and `card`'s options, the measuring itself (one Runner, built from those settings), and
the exit status of expectations."""

from __future__ import annotations

import argparse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus, resume_noted
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.analysis.expectations import Judgement
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.model import Trial
    from wirespeed.plan import Plan
    from wirespeed.report.model import Report
    from wirespeed.run.runner import Progress, RunOutcome
    from wirespeed.run.settings import RunSettings
    from wirespeed.store import Store


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


def watched_roles(text: str | None) -> list[str]:
    watch = [r.strip() for r in text.split(",") if r.strip()] if text else []
    unknown = sorted(set(watch) - {"dut", "client", "server"})
    if unknown:
        raise UsageError(f"--watch takes dut, client and server, not {', '.join(unknown)}")
    return watch


def settings_of(
    args: argparse.Namespace, *, labels: Mapping[str, str] | None = None
) -> RunSettings:
    """The settings that `run`'s or `card`'s options give. A card's durations,
    repetitions and parts are in its plan already, and it samples as `run` does by
    default."""
    from wirespeed.run.settings import RunSettings

    watch = tuple(watched_roles(args.watch))
    if args.command == "card":
        return RunSettings(card=True, watch=watch, lab_dut=args.lab_dut)
    only = tuple(p.strip() for p in args.only.split(",")) if args.only else None
    return RunSettings(
        only=only, duration=args.duration, repetitions=args.repeat, watch=watch,
        sample_interval=args.sample_interval, lab_dut=args.lab_dut, labels=labels or {},
    )  # fmt: skip


def measure(
    env: Environment,
    store: Store,
    plan: Plan,
    trials: Sequence[Trial],
    settings: RunSettings,
    *,
    lab_name: str | None,
    ssh: SshSettings,
    argv: Sequence[str],
) -> RunOutcome:
    """The trials measured into the store as a new run with these settings (stored with
    it); progress on stderr unless --quiet. Stopped by Ctrl-C or SIGTERM: said with the
    run to resume. (A run resumed is measured by run/resume.py.)"""
    from wirespeed.run.settings import build_runner

    runner = build_runner(
        plan, store, settings, progress=progress_of(env, plan), lab_prefix=lab_name,
        ssh_settings=ssh, notice=env.info,
    )  # fmt: skip
    with resume_noted(lambda: runner.run_id):
        return runner.run(trials, argv=argv, settings=settings.to_json())


def progress_of(env: Environment, plan: Plan) -> Progress:
    """A run's progress on stderr, or none with --quiet."""
    from wirespeed.cli.progress import RichProgress
    from wirespeed.run.runner import NullProgress

    if env.quiet:
        return NullProgress()
    return RichProgress(env.progress_console(), in_lab=plan.lab is not None)


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
