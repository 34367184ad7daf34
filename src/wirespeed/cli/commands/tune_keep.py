"""`wirespeed tune keep [HOST] [--root DIR] [--run N --variant NAME] [-o FILE]
[--install USER@HOST]` and `wirespeed tune restore HOST --keep`: the tuning as a boot
script, printed, or installed journaled and removed again.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.cli.measuring import ssh_settings
from wirespeed.errors import UsageError
from wirespeed.tune.hosts import LOCAL

if TYPE_CHECKING:
    from wirespeed.facts.model import Facts
    from wirespeed.hosts.base import Host
    from wirespeed.hosts.ssh_connection import SshSettings
    from wirespeed.tune.keep import Kept
    from wirespeed.tune.keep_systems import System

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


def _facts(args: argparse.Namespace, host: Host | None) -> Facts:
    from wirespeed.facts import HostSource, TreeSource, collect

    if args.root is not None:
        root = Path(args.root)
        if not (root / "proc").is_dir() and not (root / "sys").is_dir():
            raise UsageError(f"--root {args.root}: no proc/ or sys/ in it")
        return collect(TreeSource(root, where=f"tree {args.root}"))
    if host is None or host.name == LOCAL:
        return collect(TreeSource(Path("/"), where="this machine"))
    return collect(HostSource(host))


def _kept(args: argparse.Namespace, host: Host | None) -> Kept:
    from wirespeed.tune.keep import KeepError, from_plan, from_variant
    from wirespeed.tune.suggest import suggest

    if args.run is None:
        facts = _facts(args, host)
        kept = from_plan(suggest(facts), facts)
        if not kept.settings:
            raise KeepError(
                f"nothing to keep for {facts.source}: the plan sets no knob",
                hint=f"wirespeed tune suggest{'' if args.root is None else ' --root ' + args.root}"
                " says why",
            )
        return kept
    state = _variant_state(args.db, args.run, args.variant)
    interfaces = [
        part for given in args.interface or () for part in given.split(",") if part.strip()
    ]
    if not interfaces:
        if args.root is None and host is None:
            raise UsageError(
                f"which interfaces should variant {args.variant} go on?",
                hint="--interface eth0,eth1, or HOST / --root / --install for the device's NICs",
            )
        interfaces = [nic.name for nic in _facts(args, host).nics]
        if not interfaces:
            raise KeepError("the device has no physical NIC to put the variant on")
    source = f"run {args.run}, variant {args.variant}"
    return from_variant(state, [i.strip() for i in interfaces], source, args.variant)


def _variant_state(db: str | None, run: int, variant: str) -> Mapping[str, object]:
    """What the variant set, as the run recorded it in its provenance."""
    from wirespeed.store import Store

    with Store.open(db) as store:
        record = store.load_run(run, intervals=False, outputs=False, commands=False)
    provenance = record.info.provenance
    variants = provenance.get("variants") if isinstance(provenance, Mapping) else None
    if not isinstance(variants, Mapping) or not variants:
        raise UsageError(f"run {run} recorded no variants")
    if variant not in variants or not isinstance(variants[variant], Mapping):
        raise UsageError(
            f"run {run} has no variant {variant!r}", hint="its variants: " + ", ".join(variants)
        )
    return {str(key): value for key, value in variants[variant].items()}


def _write(path: Path, script: str) -> None:
    try:
        path.write_text(script)
        os.chmod(path, 0o755)  # noqa: S103  # a script to run: executable, as a user makes it
    except OSError as error:
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def _summary(kept: Kept) -> str:
    count = len(kept.settings)
    return f"{count} setting(s) for {', '.join(kept.interfaces)}, from {kept.source}"


def _system(args: argparse.Namespace, host: Host, root: str) -> System:
    from wirespeed.tune.keep_systems import System

    if args.system is not None:
        return System(args.system)
    if host.run(["test", "-e", f"{root}/etc/rc.common"], timeout=30.0).returncode == 0:
        return System.OPENWRT
    if host.run(["test", "-d", f"{root}/run/systemd/system"], timeout=30.0).returncode == 0:
        return System.SYSTEMD
    raise UsageError(
        f"cannot tell the init system of {host.name}{' under ' + root if root else ''}: "
        "no /etc/rc.common (OpenWrt), no /run/systemd/system (systemd)",
        hint="--system openwrt or --system systemd",
    )


def _install(
    args: argparse.Namespace, env: Environment, host: Host, name: str, script: str
) -> None:
    from wirespeed.tune.journal import Journal
    from wirespeed.tune.keep_install import install
    from wirespeed.tune.keep_systems import layout

    root = (args.install_root or "").rstrip("/")
    where = layout(_system(args, host, root), name, script)

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
