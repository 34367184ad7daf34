"""`wirespeed tune suggest|apply|restore [HOST] [--root DIR] [--force]`: IRQ, RPS and XPS
placement from a machine's facts, applied journaled and restored exactly; `tune keep` (its
own module, tune_keep.py) makes it a boot script.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.measuring import ssh_settings
from wirespeed.errors import UsageError
from wirespeed.tune.hosts import LOCAL

if TYPE_CHECKING:
    from wirespeed.hosts.base import Host
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.tune.apply import Recovery
    from wirespeed.tune.journal import Journal


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.cli.commands import tune_keep

    tune_keep.refuse_keep_options(args)
    if args.action == "suggest":
        return _suggest(args, env)
    if args.action == "keep":
        return tune_keep.execute(args, env)
    if args.root is not None:
        raise UsageError(
            f"--root works with suggest and keep only: a captured tree cannot be {args.action}d",
            hint=f"wirespeed tune suggest --root {args.root}",
        )
    if args.keep:
        return tune_keep.uninstall(args, env)
    from wirespeed.tune.journal import Journal

    if args.action == "restore" and args.forget and args.host is None:
        raise UsageError("--forget needs a HOST", hint="wirespeed tune restore HOST --forget")
    # Restoring never makes a store: a mistyped --db is an error, not an empty journal.
    with Journal.open(args.db, existing=args.action == "restore") as journal:
        if args.action == "apply":
            return _apply(args, env, journal)
        return _restore(args, env, journal)


def _suggest(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.cli.commands.facts import _source
    from wirespeed.facts import collect
    from wirespeed.tune.hosts import close_host
    from wirespeed.tune.suggest import plan_document, render_plan, suggest

    source, host = _source(args, env)
    try:
        plan = suggest(collect(source))
    finally:
        if host is not None:
            close_host(host)
    if args.json:
        env.stdout.write(json.dumps(plan_document(plan), indent=2) + "\n")
    else:
        env.stdout.write(render_plan(plan))
    return ExitStatus.OK


def _apply(args: argparse.Namespace, env: Environment, journal: Journal) -> int:
    from wirespeed.facts import HostSource, TreeSource, collect
    from wirespeed.tune.apply import apply_changes, control_interface_of
    from wirespeed.tune.hosts import close_host, connect
    from wirespeed.tune.suggest import explain, suggest

    settings = ssh_settings(args, env)
    host = connect(args.host, settings)
    try:
        name = host.name
        recovery = _recover(env, journal, settings=settings, connected=host)
        if name in recovery.unreachable or name in recovery.busy or recovery.report.failed:
            raise UsageError(
                f"{name} still has changes from an earlier wirespeed that could not be restored",
                hint="see the messages above; wirespeed tune restore " + name,
            )
        local = name == LOCAL
        source = TreeSource(Path("/"), where="this machine") if local else HostSource(host)
        plan = suggest(collect(source))
        for warning in plan.warnings:
            env.warn(warning)
        if not plan.changes:
            env.stdout.write(f"{name}: nothing to change\n")
            return ExitStatus.OK
        apply_changes(
            host,
            plan.changes,
            journal,
            control_interface=control_interface_of(host),
            force=args.force,
        )
    finally:
        close_host(host)
    for change in plan.changes:
        env.stdout.write(f"{explain(change)}\n")
    env.stdout.write(
        f"{len(plan.changes)} change(s) applied on {name}, journaled in {journal.where}; "
        f"undo with: wirespeed tune restore {name}\n"
    )
    return ExitStatus.OK


def _restore(args: argparse.Namespace, env: Environment, journal: Journal) -> int:
    from wirespeed.tune.apply import forget

    if args.forget:
        dropped = forget(journal, args.host)
        env.stdout.write(f"{args.host}: {len(dropped)} journal entr(y/ies) dropped\n")
        return ExitStatus.OK
    recovery = _recover(env, journal, args.host, settings=ssh_settings(args, env))
    if not recovery.clean:
        return ExitStatus.FAILED
    if not recovery.report.restored and not recovery.report.expired:
        env.stdout.write("nothing to restore\n")
    return ExitStatus.OK


def _recover(
    env: Environment,
    journal: Journal,
    host: str | None = None,
    *,
    settings: SshSettings | None = None,
    connected: Host | None = None,
) -> Recovery:
    from wirespeed.tune.apply import recover
    from wirespeed.tune.hosts import connections
    from wirespeed.tune.ports import restored_words

    with connections(settings, connected) as connect_one:
        recovery = recover(journal, connect_one, host)
    for entry in recovery.report.restored:
        port = restored_words(entry.target, entry.previous)
        if port is not None:
            env.stdout.write(f"{entry.host}: {port}\n")
            continue
        env.stdout.write(
            f"{entry.host}: {entry.target} restored to {entry.previous.strip()} "
            f"(was set to {entry.new.strip()})\n"
        )
    for entry in recovery.report.expired:
        env.stdout.write(
            f"{entry.host}: {entry.target} needs no restore: the host rebooted since\n"
        )
    for entry, why in recovery.report.failed:
        env.error(f"{entry.host}: cannot restore {entry.target}: {why}")
    for name, why in recovery.unreachable.items():
        env.error(
            f"{name} has journaled changes but cannot be reached: {why}",
            hint=f"bring it back and run `wirespeed tune restore {name}`, or if it is gone "
            f"for good: `wirespeed tune restore {name} --forget`",
        )
    for name, owner in recovery.busy.items():
        env.warn(f"{name}: changes of a wirespeed still running ({owner}) are left to it")
    return recovery
