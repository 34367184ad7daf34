"""One command in one SSH session: run it, feed its stdin, collect its output and exit
status, and tell a connection lost before the command started (safe to start again) from
one lost while it ran."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import paramiko


@dataclass(frozen=True)
class ExecResult:
    status: int
    stdout: bytes
    stderr: bytes


class ChannelLost(Exception):
    def __init__(self, started: bool) -> None:
        super().__init__("channel lost")
        self.started = started


def run_channel(
    channel: paramiko.Channel, command: str, stdin: bytes, timeout: float, where: str
) -> ExecResult:
    import select

    import paramiko

    out: list[bytes] = []
    err: list[bytes] = []
    started = False
    try:
        channel.settimeout(timeout)
        channel.exec_command(command)
        started = True
        if stdin:
            channel.sendall(stdin)
        channel.shutdown_write()
        deadline = time.monotonic() + timeout
        # fileno() is a pipe paramiko makes readable when stdout or stderr data (or EOF)
        # arrives: wait on it instead of spinning.
        ready = channel.fileno()
        while True:
            _drain(channel, out, err)
            if channel.eof_received:
                if channel.status_event.wait(min(1.0, max(0.0, deadline - time.monotonic()))):
                    _drain(channel, out, err)
                    break
            elif not channel.closed:
                select.select([ready], [], [], min(0.5, max(0.0, deadline - time.monotonic())))
            if channel.closed and not channel.exit_status_ready():
                raise ChannelLost(started)
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{_first_word(command)} did not finish within {timeout} s on {where}"
                )
            transport = channel.get_transport()
            if transport is None or not transport.is_active():
                raise ChannelLost(started)
        status = channel.recv_exit_status()
    except TimeoutError:
        raise
    except (paramiko.SSHException, OSError, EOFError):
        raise ChannelLost(started) from None
    finally:
        with contextlib.suppress(Exception):
            channel.close()
    if status == -1:
        raise ChannelLost(started)
    return ExecResult(status, b"".join(out), b"".join(err))


def _drain(channel: paramiko.Channel, out: list[bytes], err: list[bytes]) -> None:
    while channel.recv_stderr_ready():
        err.append(channel.recv_stderr(65536))
    while channel.recv_ready():
        out.append(channel.recv(65536))


def _first_word(command: str) -> str:
    return command.split(None, 1)[0] if command.strip() else "the command"


def quote_argv(argv: Sequence[str]) -> str:
    """argv as one command line for a POSIX shell (dropbear runs it with `sh -c`)."""
    import shlex

    if not argv:
        raise ValueError("argv must not be empty")
    return shlex.join(argv)
