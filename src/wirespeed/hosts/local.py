"""This machine as a Host: programs started with subprocess, argv lists only.

Every program gets its own session (and so its own process group): stop() signals the
whole group, so helpers a program forks die with it, and a Ctrl-C meant for wirespeed
does not reach the tools it runs (the runner decides when they stop).

Two reader threads per process drain stdout and stderr; without them a chatty program
blocks on a full pipe. stdout is also handed line by line to on_line, for live progress.

read_file raises FileNotFoundError for a missing file (callers probe /sys and /proc
that way) and HostError for any other failure.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from typing import IO

from wirespeed.errors import HostError, MissingToolError
from wirespeed.hosts.base import Completed, terminate

# How long stop() and run() wait for the pipes to close after the program has been
# reaped: a grandchild that kept them open must not hang wirespeed.
_READER_JOIN_SECONDS = 1.0


class LocalProcess:
    """A program started by LocalHost; implements hosts.base.Process."""

    def __init__(
        self,
        popen: subprocess.Popen[str],
        argv: Sequence[str],
        on_line: Callable[[str], None] | None = None,
    ) -> None:
        self._popen = popen
        self._argv = tuple(argv)
        self._on_line = on_line
        self._stdout: list[str] = []
        self._stderr: list[str] = []
        self._lock = threading.Lock()
        # The first exception a callback raised; reading goes on regardless, because a
        # reader that stops leaves the program blocked on a full pipe.
        self.callback_error: BaseException | None = None
        assert popen.stdout is not None and popen.stderr is not None
        self._readers = (
            threading.Thread(
                target=self._pump, args=(popen.stdout, self._stdout, True), daemon=True
            ),
            threading.Thread(
                target=self._pump, args=(popen.stderr, self._stderr, False), daemon=True
            ),
        )
        for reader in self._readers:
            reader.start()

    def _pump(self, stream: IO[str], sink: list[str], is_stdout: bool) -> None:
        with stream:
            for line in iter(stream.readline, ""):
                with self._lock:
                    sink.append(line)
                if is_stdout and self._on_line is not None:
                    try:
                        self._on_line(line.rstrip("\n"))
                    except Exception as error:  # kept for the owner to report
                        if self.callback_error is None:
                            self.callback_error = error

    def _join_readers(self) -> None:
        for reader in self._readers:
            reader.join(_READER_JOIN_SECONDS)

    @property
    def pid(self) -> int:
        return self._popen.pid

    @property
    def argv(self) -> tuple[str, ...]:
        return self._argv

    def poll(self) -> int | None:
        status = self._popen.poll()
        if status is not None:
            self._join_readers()
        return status

    def status_as_of(self) -> float:
        return time.time()

    def wait(self, timeout: float | None = None) -> int:
        try:
            status = self._popen.wait(timeout)
        except subprocess.TimeoutExpired:
            raise TimeoutError(
                f"{self._argv[0]} (pid {self.pid}) still runs after {timeout} s"
            ) from None
        self._join_readers()
        return status

    def send_signal(self, sig: int = signal.SIGTERM) -> None:
        # Only while the leader is not reaped: until then its PID (= the group's id)
        # cannot be reused, so the signal cannot reach a stranger's processes.
        if self._popen.returncode is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._popen.pid, sig)

    def stop(self, grace: float = 1.0) -> int:
        status = terminate(self, grace)
        return self.wait() if status is None else status

    def stdout(self) -> str:
        with self._lock:
            return "".join(self._stdout)

    def stderr(self) -> str:
        with self._lock:
            return "".join(self._stderr)


def popen(argv: Sequence[str], where: str) -> subprocess.Popen[str]:
    """Start argv in its own session with piped output; a missing program is a
    MissingToolError naming `where`."""
    if not argv:
        raise ValueError("argv must not be empty")
    try:
        return subprocess.Popen(
            list(argv),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            bufsize=1,
            start_new_session=True,
        )
    except FileNotFoundError:
        raise MissingToolError(os.path.basename(argv[0]), where) from None
    except PermissionError as error:
        raise HostError(f"cannot run {argv[0]} on {where}: {error.strerror}") from None


def run_to_end(
    argv: Sequence[str], where: str, timeout: float, shown_argv: Sequence[str] | None = None
) -> Completed:
    """Run argv to completion; kill its whole group and raise TimeoutError on timeout."""
    process = popen(argv, where)
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        try:
            process.communicate(timeout=_READER_JOIN_SECONDS)
        except subprocess.TimeoutExpired:
            process.wait()
        raise TimeoutError(f"{argv[0]} did not finish within {timeout} s on {where}") from None
    return Completed(
        argv=tuple(shown_argv if shown_argv is not None else argv),
        returncode=process.returncode,
        stdout=stdout,
        stderr=stderr,
    )


def read_text(path: str, where: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except FileNotFoundError:
        raise
    except OSError as error:
        raise HostError(f"cannot read {path} on {where}: {error.strerror}") from None


def write_text(path: str, text: str, where: str) -> None:
    try:
        # One write() call: sysfs and procfs knobs take the value of a single write.
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as error:
        raise HostError(f"cannot write {path} on {where}: {error.strerror}") from None


class LocalHost:
    """This machine; implements hosts.base.Host."""

    def __init__(self, name: str = "local") -> None:
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def start(
        self,
        argv: Sequence[str],
        *,
        on_line: Callable[[str], None] | None = None,
    ) -> LocalProcess:
        return LocalProcess(popen(argv, "this machine"), argv, on_line)

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        return run_to_end(argv, "this machine", timeout)

    def read_file(self, path: str) -> str:
        return read_text(path, "this machine")

    def write_file(self, path: str, text: str) -> None:
        write_text(path, text, "this machine")

    def which(self, program: str) -> str | None:
        return shutil.which(program)
