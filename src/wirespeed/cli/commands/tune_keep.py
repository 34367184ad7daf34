"""`wirespeed tune keep [HOST] [--root DIR] [--run N --variant NAME] [-o FILE]
[--install USER@HOST]` and `wirespeed tune restore HOST --keep`: the tuning as a boot
script, printed, or installed journaled and removed again.
"""

from __future__ import annotations

import argparse
import os
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
    from wirespeed.tune.keep import Kept

KEEP_OPTIONS = (
    "run",
    "variant",
    "interface",
    "output",
    "install",
    "system",
    "install_root",
    "no_enable",
    "name",
)


def refuse_keep_options(args: argparse.Namespace) -> None:
    """Options of keep given to another action: an error, not silently ignored."""
    given = [name for name in KEEP_OPTIONS if getattr(args, name, None) not in (None, False)]
    if given and args.action != "keep":
        option = "--" + given[0].replace("_", "-")
        raise UsageError(f"{option} works with `tune keep` only")
    if getattr(args, "keep", False) and args.action != "restore":
        raise UsageError("--keep works with `tune restore HOST` only")


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.cli.outputs import check_output
    from wirespeed.tune.hosts import close_host
    from wirespeed.tune.keep_script import render_script
    from wirespeed.tune.keep_systems import DEFAULT_NAME, check_name

    name = check_name(args.name or DEFAULT_NAME)
    # Before the device is asked anything: a script that cannot be written is said now.
    output = check_output(args.output, "-o", "wirespeed-tune") if args.output is not None else None
    if (args.run is None) != (args.variant is None):
        raise UsageError(
            "--run and --variant go together", hint="wirespeed tune keep --run 7 --variant a72"
        )
    if args.install is None and (args.install_root or args.no_enable or args.system):
        raise UsageError("--system, --install-root and --no-enable go with --install")
    if args.root is not None and args.host not in (None, LOCAL):
        raise UsageError("give either HOST or --root, not both")
    settings = ssh_settings(args, env)
    # The device whose facts make the plan: HOST, else the one to install on.
    facts_host = args.host or (args.install if args.root is None else None)
    host = None if facts_host is None else _connect(facts_host, settings)
    try:
        kept = _kept(args, host)
        for warning in kept.warnings:
            env.warn(warning)
        script = render_script(kept, name)
        if output is not None:
            _write(output, script)
            env.info(f"wrote {args.output}: {_summary(kept)}")
        elif args.install is None:
            env.stdout.write(script)
        if args.install is not None:
            target = host if host is not None and host.name == args.install else None
            if target is None:
                target = _connect(args.install, settings)
            try:
                _install(args, env, target, name, script)
            finally:
                if target is not host:
                    close_host(target)
    finally:
        if host is not None:
            close_host(host)
    return ExitStatus.OK


def _connect(name: str, settings: SshSettings) -> Host:
    from wirespeed.tune.hosts import connect

    return connect(name, settings)


def _kept(args: argparse.Namespace, host: Host | None) -> Kept:
    from wirespeed.tune.keep_sources import kept_of_facts, kept_of_variant

    if args.run is None:
        return kept_of_facts(args.root, host)
    return kept_of_variant(
        args.db, args.run, args.variant, args.interface or (), root=args.root, host=host
    )


def _write(path: Path, script: str) -> None:
    try:
        path.write_text(script)
        os.chmod(path, 0o755)  # noqa: S103  # a script to run: executable, as a user makes it
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def _summary(kept: Kept) -> str:
    count = len(kept.settings)
    return f"{count} setting(s) for {', '.join(kept.interfaces)}, from {kept.source}"


def _install(
    args: argparse.Namespace, env: Environment, host: Host, name: str, script: str
) -> None:
    from wirespeed.tune.journal import Journal
    from wirespeed.tune.keep_install import install
    from wirespeed.tune.keep_sources import init_system
    from wirespeed.tune.keep_systems import layout

    root = (args.install_root or "").rstrip("/")
    where = layout(init_system(host, root, args.system), name, script)

    def say(line: str) -> None:
        env.stdout.write(line + "\n")
        env.stdout.flush()

    with Journal.open(args.db) as journal:
        done = install(host, where, journal, root=root, enable=not args.no_enable, say=say)
        journal_at = journal.where
    for boot_file in where.files:
        state = "replaced" if root + boot_file.path in done.replaced else "installed"
        say(f"{state} {root}{boot_file.path}: {boot_file.what}")
    link = f"{root}{where.link} -> {where.link_to}"
    if args.no_enable and done.enabled:
        say(f"not enabled now, but still enabled at boot by an earlier install: {link}")
    elif args.no_enable:
        say(f"not enabled at boot; to enable it: {where.enable_command}")
    else:
        say(
            f"enabled at boot: {link} (what `{where.enable_command}` does); it runs at "
            "every boot from now on"
        )
    say(
        f"nothing is changed until it runs: at the next boot, or now with {where.script}\n"
        f"journaled in {journal_at}; remove it with: wirespeed tune restore {host.name} --keep"
    )


def uninstall(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.tune.hosts import close_host
    from wirespeed.tune.journal import Journal
    from wirespeed.tune.keep_install import uninstall as remove

    if args.host is None:
        raise UsageError("--keep needs a HOST", hint="wirespeed tune restore root@router --keep")

    def say(line: str) -> None:
        env.stdout.write(line + "\n")
        env.stdout.flush()

    with Journal.open(args.db, existing=True) as journal:
        if not journal.kept_entries(args.host):
            say(f"{args.host}: no boot script installed by wirespeed tune keep")
            return ExitStatus.OK
        host = _connect(args.host, ssh_settings(args, env))
        try:
            removed = remove(host, journal, say=say)
        finally:
            close_host(host)
    for entry in removed.removed:
        say(f"{args.host}: removed {entry.target}")
    for entry, why in removed.failed:
        env.error(f"{args.host}: cannot remove {entry.target}: {why}")
    if removed.failed:
        return ExitStatus.FAILED
    say(f"{args.host}: the values it set stay until the next boot")
    return ExitStatus.OK
