"""Exit statuses, in one place, and the one place exceptions become messages and statuses."""

from __future__ import annotations

import enum
import errno
import io
import os
import signal
import traceback
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

from wirespeed.cli.env import Environment
from wirespeed.errors import WirespeedError
from wirespeed.trial_kind import UnknownToolError


class ExitStatus(enum.IntEnum):
    OK = 0
    FAILED = 1  # the command ran, but something it did failed (a trial, a teardown)
    USAGE = 2  # bad input: options, plan files, unknown run ids
    MISSING_TOOL = 3  # a program to install (the message says which package)
    NOT_ROOT = 4  # the lab needs root
    # Every trial measured, but below what the plan's `expect:` asks (or a figure it asks
    # about was not reported): a regression gate's "no".
    BELOW_EXPECTATION = 5
    INTERRUPTED = 130  # Ctrl-C (128 + SIGINT)
    TERMINATED = 143  # SIGTERM (128 + SIGTERM)


class Terminated(BaseException):
    """SIGTERM, turned into an exception so that every `finally` (teardown!) runs.

    BaseException like KeyboardInterrupt, so no `except Exception` swallows it."""


def raise_on_sigterm() -> None:
    def handler(signum: int, frame: object) -> None:
        raise Terminated

    signal.signal(signal.SIGTERM, handler)


def run_guarded(env: Environment, command: Callable[[], int], *, show_traceback: bool) -> int:
    """Run a command; map what it raises to a message on stderr and an exit status."""
    try:
        status = command()
        # What is still buffered is written here, where a full disk can still be told,
        # not at exit, where it would be a traceback and status 120.
        env.stdout.flush()
        return status
    except WirespeedError as error:
        env.error(error.message, hint=error.hint)
        if show_traceback:
            env.stderr.write(traceback.format_exc())
        return error.exit_status
    except UnknownToolError as error:
        # A stored or bundled trial of a kind a newer wirespeed has: none of it is read.
        env.error(f"{error}: a newer wirespeed wrote it", hint="read it with that wirespeed")
        return ExitStatus.FAILED
    except KeyboardInterrupt as stop:
        env.error("interrupted; everything wirespeed changed was restored", hint=_notes(stop))
        return ExitStatus.INTERRUPTED
    except Terminated as stop:
        env.error("terminated; everything wirespeed changed was restored", hint=_notes(stop))
        return ExitStatus.TERMINATED
    except BrokenPipeError:
        return ExitStatus.OK  # `wirespeed report | head` is not an error
    except OSError as error:
        # `wirespeed report > file` on a full disk: the machine's state, not a bug.
        if error.errno not in OUT_OF_ROOM:
            raise
        where = error.filename or "the output"
        env.error(f"could not write {where}: {os.strerror(error.errno or 0).lower()}")
        _drop_unwritten(env.stdout)
        return ExitStatus.FAILED


def resume_note(stop: BaseException, run_id: int) -> None:
    """Tell, on Ctrl-C or SIGTERM, which run holds what was measured and how to finish it."""
    stop.add_note(f"run {run_id} stored; continue with `wirespeed run --resume {run_id}`")


@contextmanager
def resume_noted(run_id: Callable[[], int | None]) -> Iterator[None]:
    """Ctrl-C or SIGTERM inside: noted with the run that holds what was measured
    (resume_note), once there is one (run_id() is asked only then)."""
    try:
        yield
    except (KeyboardInterrupt, Terminated) as stop:
        noted = run_id()
        if noted is not None:
            resume_note(stop, noted)
        raise


def _notes(stop: BaseException) -> str | None:
    notes: list[str] = getattr(stop, "__notes__", [])
    return "; ".join(notes) or None


# Errors of a disk that is full (or a quota that is).
OUT_OF_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})


def _drop_unwritten(stream: IO[str]) -> None:
    """Point stdout at /dev/null, so that what is still buffered for the full disk is
    dropped at exit instead of failing again there with a traceback of its own."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, io.UnsupportedOperation):
        return  # not a file (a test's StringIO): nothing is flushed at exit
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
