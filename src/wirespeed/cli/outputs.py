"""Files a command writes (-o, --markdown) and run ids it is given, checked as input.

An output path is checked before any work is done, so that `run --markdown
/nonexistent/t.md` is refused before the lab is built rather than after an hour of
trials; the write itself can still fail (a disk that fills meanwhile), and says so.
`report` and `compare` take -o several times, as hyperfine's exports: each file's format
is its extension's (output_targets), unless --format names one for them all.
A run id is a row id of the store: SQLite and PostgreSQL keep it in 64 bits, and a
larger number would reach the database driver as an overflow instead of "no run N".
"""

from __future__ import annotations

import argparse
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wirespeed.cli.exit import OUT_OF_ROOM
from wirespeed.errors import UsageError, WirespeedError

# The largest id a signed 64-bit INTEGER / BIGINT column holds.
MAX_RUN_ID = 2**63 - 1


class OutputError(WirespeedError):
    """The output could not be written although its path was fine: the disk is full."""


def run_id(text: str) -> int:
    """argparse type of a RUN argument: a whole number 1..2^63-1."""
    try:
        number = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a run id is a whole number (`wirespeed runs` lists them), not {text!r}"
        ) from None
    if not 1 <= number <= MAX_RUN_ID:
        raise argparse.ArgumentTypeError(
            f"no run {text}: run ids are 1..{MAX_RUN_ID} (`wirespeed runs` lists them)"
        )
    return number


def run_or_file(text: str) -> int | str:
    """argparse type of a RUN|FILE argument: a run id (all digits, checked as run_id),
    else the name of a file (a bundle)."""
    return run_id(text) if text.isdigit() else text


def check_output(path: str, option: str, example: str = "report") -> Path:
    """The path an option names, if a file can be written there; else a UsageError that
    says why. Nothing is created: a refused command leaves no empty file behind."""
    target = Path(path)
    label = f"{option} {path}"
    if path == "":
        raise UsageError(f"{option} needs a file name")
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise UsageError(f"{label}: {_reason(error)}") from None
    if mode is not None:
        if stat.S_ISDIR(mode):
            raise UsageError(
                f"{label} is a directory: give a file name",
                hint=f"e.g. {option} {target / example}",
            )
        if not os.access(target, os.W_OK):
            raise UsageError(f"{label}: cannot write to this file (permission denied)")
        if stat.S_ISREG(mode):
            _try_open(target, label, os.O_WRONLY)  # a read-only mount passes os.access
        return target
    parent = target.parent
    if not parent.exists():
        raise UsageError(f"{label}: the directory {parent} does not exist")
    if not parent.is_dir():
        raise UsageError(f"{label}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{label}: cannot create a file in {parent} (permission denied)")
    # Permission bits do not say it all: root passes os.access everywhere, and /proc, /sys,
    # a read-only mount or a file system that refuses the name only say so when a file is
    # made. So the file is made and removed again: nothing is left, and the write at the
    # end of an hour of trials does not meet a refusal only then.
    _try_open(target, label, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    target.unlink(missing_ok=True)
    return target


def _try_open(target: Path, label: str, flags: int) -> None:
    """Open target with flags (never truncating it) and close it; a UsageError that says
    why where it cannot be."""
    try:
        descriptor = os.open(target, flags | os.O_NONBLOCK, 0o666)
    except OSError as error:
        raise UsageError(f"{label}: cannot write a file there ({_reason(error)})") from None
    os.close(descriptor)


# The format each -o extension stands for (lower-cased); .txt is the terminal's text.
FORMAT_OF_EXTENSION = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".html": "html",
    ".htm": "html",
    ".csv": "csv",
    ".json": "json",
    ".txt": "terminal",
}


@dataclass(frozen=True)
class OutputTarget:
    """A file to write, in a format."""

    path: Path
    format: str


def output_targets(
    paths: Sequence[str] | None,
    fmt: str | None,
    formats: Sequence[str],
    command: str,
) -> list[OutputTarget]:
    """The -o files of `command` with the format of each, every path checked: `fmt`
    (--format, if given) for all of them, else each file's extension's. A UsageError for
    a path that cannot be written, an extension that names no format of the command's
    `formats`, or a file named twice; nothing is created."""
    if isinstance(paths, str):  # one path, as a caller other than the parser may give it
        paths = [paths]
    targets: list[OutputTarget] = []
    seen: dict[Path, str] = {}
    shown = fmt or "terminal"
    example = f"{command}.{_EXTENSION_OF_FORMAT.get(shown, shown)}"
    for path in paths or ():
        target = check_output(path, "-o", example)
        same = seen.get(target.resolve())
        if same is not None:
            raise UsageError(f"-o {path}: the same file as -o {same}: give each file once")
        seen[target.resolve()] = path
        targets.append(OutputTarget(target, fmt or _format_of(path, formats, command)))
    return targets


# The extension a file of each format is given in examples (a hint's "-o report.md").
_EXTENSION_OF_FORMAT = {"terminal": "txt", "markdown": "md"}


def _format_of(path: str, formats: Sequence[str], command: str) -> str:
    suffix = Path(path).suffix
    known = [ext for ext, fmt in FORMAT_OF_EXTENSION.items() if fmt in formats]
    fmt = FORMAT_OF_EXTENSION.get(suffix.lower())
    if fmt is None:
        said = f"its extension {suffix!r}" if suffix else "a name without an extension"
        raise UsageError(
            f"-o {path}: cannot tell the format from {said}; known: {', '.join(known)}",
            hint=f"name the file {Path(path).stem or command}.md (or another of those), "
            "or give --format",
        )
    if fmt not in formats:
        raise UsageError(
            f"-o {path}: {command} writes no {fmt.upper()}; known extensions: {', '.join(known)}"
        )
    return fmt


def write_output(path: Path, text: str, option: str) -> None:
    """Write text to path. A write that fails leaves no partial file that was not there
    before, and says which file and why: a full disk exits 1, a path that became
    unusable since it was checked exits 2."""
    data = text.encode("utf-8")
    existed = path.exists()
    try:
        with path.open("wb") as out:
            out.write(data)
    except OSError as error:
        left = ""
        if not existed and path.is_file():
            path.unlink(missing_ok=True)
            left = " (nothing was kept)"
        elif path.is_file():
            left = " (the file is incomplete)"
        message = f"could not write {option} {path}: {_reason(error)}{left}"
        if error.errno in OUT_OF_ROOM:  # the machine's state, not bad input: exit 1
            raise OutputError(message, hint="free some space, then run it again") from None
        raise UsageError(message) from None


def write_targets(
    targets: Sequence[OutputTarget],
    text: Callable[[str], str],
    say: Callable[[str], None],
    written: str = "written",
) -> None:
    """Each -o file, in its format (text(format)), said as it is written."""
    for target in targets:
        write_output(target.path, text(target.format), "-o")
        say(f"{written} to {target.path}")


def _reason(error: OSError) -> str:
    if error.errno is not None and error.strerror:
        return error.strerror[0].lower() + error.strerror[1:]
    return str(error)
