"""The real `wirespeed` CLI run in-process: argv in, exit status and both streams out.

    status, out, err = run_cli("report", "--db", db, "--format", "json")

stdout is a strict UTF-8 stream, as a terminal's is under a UTF-8 locale, so text that
could not be printed fails here as it would for a user; stderr escapes what it cannot
encode, as Python's own does. Neither is a TTY and colour is off, so output is plain text
(colour_from_environment=True: colour as NO_COLOR and FORCE_COLOR of os.environ say).
"""

from __future__ import annotations

import io
from typing import NamedTuple, TextIO
from unittest import mock

from wirespeed.cli.app import main
from wirespeed.cli.env import Environment


class CliOutcome(NamedTuple):
    status: int
    out: str
    err: str


class PreflightOutcome(NamedTuple):
    status: int | None  # None: `run` reached preflight, so the plan loaded and expanded
    out: str
    err: str


class _ReachedPreflight(Exception):  # a signal, not an error
    """`run` got past loading and expanding the plan."""


def _stop(*_: object, **__: object) -> None:
    raise _ReachedPreflight


class _Streams:
    """stdout and stderr as a process has them, kept in memory."""

    def __init__(self, stdout: TextIO | None, colour_from_environment: bool = False) -> None:
        self._out_bytes, self._err_bytes = io.BytesIO(), io.BytesIO()
        self._out = io.TextIOWrapper(self._out_bytes, encoding="utf-8", newline="")
        self._err = io.TextIOWrapper(
            self._err_bytes, encoding="utf-8", errors="backslashreplace", newline=""
        )
        self.env = Environment(
            stdout=stdout or self._out,
            stderr=self._err,
            stdout_is_tty=False,
            stderr_is_tty=False,
        )
        if not colour_from_environment:
            self.env.colour = False

    def texts(self) -> tuple[str, str]:
        self._out.flush()
        self._err.flush()
        return self._out_bytes.getvalue().decode("utf-8"), self._err_bytes.getvalue().decode()


def run_cli(
    *argv: str,
    stdout: TextIO | None = None,
    usage_exit_as_status: bool = False,
    colour_from_environment: bool = False,
) -> CliOutcome:
    """`wirespeed ARGV`. stdout: a stream of the caller's instead (out is then "").
    argparse exits on --help and on bad options (SystemExit, as for a user); with
    usage_exit_as_status its exit code is returned as the status instead."""
    streams = _Streams(stdout, colour_from_environment)
    try:
        status = main(list(argv), streams.env)
    except SystemExit as exit_:
        if not usage_exit_as_status:
            raise
        status = int(exit_.code or 0)
    return CliOutcome(status, *streams.texts())


def run_cli_to_preflight(*argv: str) -> PreflightOutcome:
    """`wirespeed ARGV`, with `run` stopped at preflight (status None), the first thing it
    does after loading and expanding the plan: a valid plan never builds, runs or opens
    anything."""
    streams = _Streams(None)
    status: int | None
    with mock.patch("wirespeed.run.preflight.preflight", _stop):
        try:
            status = main(list(argv), streams.env)
        except _ReachedPreflight:
            status = None
    return PreflightOutcome(status, *streams.texts())
