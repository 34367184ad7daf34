"""The hosts `wirespeed tune` and a run's recovery reach by a journal row's name:
`local` (this machine), a network namespace, or a device over SSH (`user@host[:port]`,
named in the journal as the user gave it, so that restoring reaches it the same way)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from wirespeed.errors import HostError, UsageError

if TYPE_CHECKING:
    from wirespeed.hosts.base import Host
    from wirespeed.hosts.ssh_connection import SshSettings

LOCAL = "local"


def connect(name: str | None, settings: SshSettings | None = None) -> Host:
    """HOST as given on the command line: `local`, a network namespace, or a device over
    SSH (`user@host[:port]`, its name in the journal as given). Close an SSH host after."""
    from wirespeed.hosts.local import LocalHost
    from wirespeed.hosts.netns import NetnsHost, namespace_exists

    if name in (None, LOCAL):
        return LocalHost()
    if "@" in name:
        return _ssh_host(name, settings)
    if not namespace_exists(name):
        raise HostError(
            f"host {name!r} is not reachable: no such network namespace",
            hint="HOST is `local`, a namespace from `ip netns list`, or user@host over SSH",
        )
    return NetnsHost(name)


def _ssh_host(name: str, settings: SshSettings | None) -> Host:
    from wirespeed.hosts.ssh import SshHost
    from wirespeed.hosts.ssh_target import SshTarget

    try:
        target = SshTarget.parse(name)
    except ValueError as error:
        raise UsageError(str(error)) from None
    host = SshHost(target, settings, name=name)
    try:
        host.connect()
    except BaseException:
        host.close()
        raise
    return host


@contextlib.contextmanager
def connections(
    settings: SshSettings | None, connected: Host | None = None
) -> Iterator[Callable[[str], Host]]:
    """connect() for recovering a journal's hosts, `connected` used as it is; the SSH
    sessions it opens are closed when the block ends."""
    opened: list[Host] = []

    def connect_one(name: str) -> Host:
        if connected is not None and name == connected.name:
            return connected
        host = connect(name, settings)
        opened.append(host)
        return host

    try:
        yield connect_one
    finally:
        for host in opened:
            close_host(host)


def close_host(host: Host) -> None:
    close = getattr(host, "close", None)  # an SSH host's session; others hold nothing
    if close is not None:
        close()
