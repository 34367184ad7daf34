"""One interface for every place a command can run.

Commands are argv lists, never shell strings built from user values: whatever a plan or a
device says (an interface name, a label) reaches the program as one argument, unquoted and
uninterpreted. An SSH host will quote argv for the remote shell in one place (shlex.join).
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Completed:
    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str


class Process(Protocol):
    """A program started on a host and owned by wirespeed until it is reaped."""

    @property
    def pid(self) -> int:
        """The PID on the host that runs it (for a namespace: the root namespace's PID)."""
        ...

    @property
    def argv(self) -> tuple[str, ...]: ...

    def poll(self) -> int | None:
        """The exit status if it has ended, else None. Never blocks."""
        ...

    def status_as_of(self) -> float:
        """The wall-clock time (time.time()) at which what poll() says was last true: now
        for a program on this machine; for one on a device, when the last poll of its
        status was sent (a program that looks running may have ended since)."""
        ...

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the exit status; raise TimeoutError after timeout seconds."""
        ...

    def send_signal(self, sig: int = signal.SIGTERM) -> None:
        """Signal the process (and its process group); a no-op once it has ended."""
        ...

    def stop(self, grace: float = 1.0) -> int:
        """SIGTERM, then SIGKILL after grace seconds; reap it; return the exit status."""
        ...

    def stdout(self) -> str:
        """Everything it has written to stdout so far."""
        ...

    def stderr(self) -> str:
        """Everything it has written to stderr so far."""
        ...


def terminate(process: Process, grace: float) -> int | None:
    """How every Process stops: SIGTERM, then SIGKILL if it has not ended grace seconds
    later. The exit status if it is known by then; None once SIGKILL is sent, and the
    caller reaps it."""
    if process.poll() is not None:
        return process.wait()
    process.send_signal(signal.SIGTERM)
    try:
        return process.wait(grace)
    except TimeoutError:
        process.send_signal(signal.SIGKILL)
    return None


class Host(Protocol):
    """A place where commands run."""

    @property
    def name(self) -> str: ...

    def start(
        self,
        argv: Sequence[str],
        *,
        on_line: Callable[[str], None] | None = None,
    ) -> Process:
        """Start argv; stream each stdout line to on_line (from a reader thread)."""
        ...

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        """Run argv to completion; raise TimeoutError if it takes longer than timeout."""
        ...

    def read_file(self, path: str) -> str:
        """Read a text file as this host sees it (/proc/net/* is per namespace)."""
        ...

    def write_file(self, path: str, text: str) -> None:
        """Write a text file as this host sees it (sysfs and procfs knobs)."""
        ...

    def which(self, program: str) -> str | None:
        """The program's path on this host, or None if it is not installed."""
        ...
