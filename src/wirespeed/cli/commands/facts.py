"""`wirespeed facts [HOST] [--json] [--root DIR] [--all]`: what a machine is."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from wirespeed.cli.env import Environment
from wirespeed.cli.exit import ExitStatus
from wirespeed.errors import UsageError

if TYPE_CHECKING:
    from wirespeed.facts.read import FactSource
    from wirespeed.hosts.base import Host

LOCAL = "local"


def execute(args: argparse.Namespace, env: Environment) -> int:
    from wirespeed.facts import collect, render_text, to_json

    source, host = _source(args, env)
    try:
        facts = collect(source, host, include_virtual=bool(getattr(args, "all", False)))
    finally:
        close = getattr(host, "close", None)
        if close is not None:
            close()  # an SSH session: its connection
    env.stdout.write(to_json(facts) + "\n" if args.json else render_text(facts))
    return ExitStatus.OK


def _source(args: argparse.Namespace, env: Environment) -> tuple[FactSource, Host | None]:
    from wirespeed.facts import HostSource, TreeSource
    from wirespeed.hosts.local import LocalHost

    host_name = getattr(args, "host", None)
    if args.root is not None:
        if host_name not in (None, LOCAL):
            raise UsageError("give either HOST or --root, not both")
        return TreeSource(_tree_root(args.root), where=f"tree {args.root}"), None
    if host_name in (None, LOCAL):
        # This machine's own files, read directly: no subprocess per directory.
        return TreeSource(Path("/"), where="this machine"), LocalHost()
    from wirespeed.hosts.netns import NetnsHost, namespace_exists

    if "@" in host_name:
        return _ssh_source(host_name, args, env)
    if not namespace_exists(host_name):
        raise UsageError(
            f"unknown host {host_name!r}: not a network namespace",
            hint="HOST is `local` or a namespace from `ip netns list` "
            "(e.g. a lab's, see `wirespeed lab status`)",
        )
    namespace = NetnsHost(host_name)
    return HostSource(namespace), namespace


def _ssh_source(
    text: str, args: argparse.Namespace, env: Environment
) -> tuple[FactSource, Host | None]:
    """A device over SSH, read with its own cat, ls and readlink (busybox has them)."""
    from wirespeed.facts import HostSource
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_target import SshTarget

    try:
        target = SshTarget.parse(text)
    except ValueError as error:
        raise UsageError(str(error)) from None
    from wirespeed.cli.measuring import ssh_settings

    host = SshHost(target, ssh_settings(args, env))
    try:
        host.connect()
    except BaseException:
        host.close()
        raise
    return HostSource(host), host


def _tree_root(name: str) -> Path:
    root = Path(name)
    if not root.is_dir():
        raise UsageError(
            f"--root {name}: no such directory",
            hint="give a directory holding a captured proc/ and sys/, "
            "e.g. tests/fixtures/boards/r4s",
        )
    if not (root / "proc").is_dir() and not (root / "sys").is_dir():
        raise UsageError(
            f"--root {name}: neither {name}/proc nor {name}/sys exists, so it is not a "
            "captured /proc + /sys tree",
            hint="point --root at the directory that contains proc/ and sys/",
        )
    return root
