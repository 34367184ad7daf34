"""UnixBench (byte-unixbench's ./Run): the report it prints when all its runs are done.

UnixBench is built from source in a directory of its own (its ./Run wants to be started
there), so the plan gives that directory and nothing is looked up on PATH. One command
runs every copy count (`./Run -c 1 -c 4`); Run prints its report to stdout only at the
very end, after its logo and progress lines, one section per copy count:

    ------------------------------------------------------------------------
    Benchmark Run: Sun Apr 11 2021 14:58:26 - 15:26:24
    4 CPUs in system; running 1 parallel copy of tests

    Dhrystone 2 using register variables        7619086.9 lps   (10.0 s, 7 samples)
    ...
    System Benchmarks Index Values               BASELINE       RESULT    INDEX
    Dhrystone 2 using register variables         116700.0    7619086.9    652.9
    ...
                                                                       ========
    System Benchmarks Index Score                                         324.9

It writes the same report to results/ in its directory as well; the stdout copy is the
one parsed. A run of only some tests prints "System Benchmarks Partial Index" and
"System Benchmarks Index Score (Partial Only)": that score keeps its own name, as it
cannot be compared with a full one.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePosixPath
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from wirespeed.model import Better, Measurement, Tool
from wirespeed.tools.bench import BenchParseError, Command, HostCpus, count_or_all
from wirespeed.tools.count_settings import distinct_counts, refuse_repeats

__all__ = [
    "PACKAGES",
    "PROGRAMS",
    "TOOL",
    "WORKLOAD",
    "Options",
    "UnixBenchOptions",
    "commands",
    "notices",
    "parse",
    "parse_version",
    "version_argv",
]

TOOL: Tool = Tool.UNIXBENCH
# Relative to Options.directory, the command's cwd: UnixBench is never on PATH.
PROGRAMS: tuple[str, ...] = ("./Run",)
PACKAGES: Mapping[str, str] = {
    "source": "https://github.com/kdlucas/byte-unixbench (build it with make; "
    "give its directory in the plan)"
}
# The programs whose CPU is the benchmark's own (never background load); none for
# UnixBench, which runs dozens of its own (dhry2reg, looper, sh ...): none is judged.
WORKLOAD: tuple[str, ...] = ()

MAX_COPIES = 4096

# What one test may take, in seconds of one pass: Run's "long" tests (Dhrystone,
# Whetstone, pipes, system calls) run 10 passes of 10 s, its "short" ones 3 passes of
# 30 s (file copies, execl, spawn) or 60 s (shell scripts); -i N makes that N passes
# and (N + 1) // 3 passes. A full index run takes about 28 minutes per copy count on
# any board, as each test stops after its time.
_LONG_PASS = 10.0
_SHORT_PASS = 60.0
_MARGIN = 3.0  # times the expected time before a run is taken for hung
_SETUP = 600.0  # Run builds what is missing (`make all`) before its first test
# Run's names that stand for several tests (byte-unixbench's Run, version 6.0.0), so
# that the timeout grows with what they run; any other name is one test.
_GROUPS = {
    "all": 41,
    "arithmetic": 7,
    "fs": 9,
    "gindex": 19,
    "graphics": 7,
    "index": 12,
    "load": 3,
    "misc": 3,
    "oldsystem": 8,
    "shell": 3,
    "speed": 18,
    "system": 11,
}
# A test name, never an option: Run takes any word starting with "-" for one.
_TEST_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


Copies = Annotated[int | Literal["all"], BeforeValidator(count_or_all("copies", MAX_COPIES))]


class UnixBenchOptions(BaseModel):
    """The plan's `options:` of a UnixBench test."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # Where UnixBench was built on the device: the directory that holds Run.
    directory: str
    # One section of the report per entry: 1 copy for one core's score, "all" for as
    # many copies as the host has online CPUs (HostCpus.count when the test starts).
    copies: list[Copies] = Field(default=[1, "all"], min_length=1)
    # Run's test names ("dhry2reg", "whetstone-double", "fstime"); None runs the index.
    tests: list[str] | None = Field(default=None, min_length=1)
    # Run's -i: passes of each test; None keeps Run's (10 of a long test, 3 of a short).
    iterations: int | None = Field(default=None, ge=1, le=100)

    @field_validator("directory")
    @classmethod
    def _absolute(cls, directory: str) -> str:
        if not PurePosixPath(directory).is_absolute():
            raise ValueError(f"directory must be an absolute path on the device, got {directory!r}")
        return directory

    @field_validator("copies")
    @classmethod
    def _no_repeats(cls, copies: list[int | str]) -> list[int | str]:
        return refuse_repeats("copies", copies)

    @field_validator("tests")
    @classmethod
    def _test_names(cls, tests: list[str] | None) -> list[str] | None:
        for name in tests or ():
            if not _TEST_NAME.fullmatch(name):
                raise ValueError(f"not a UnixBench test name: {name!r} (e.g. dhry2reg)")
        return tests


# The protocol's name for it. Typed as the protocol declares it (a settable attribute
# must match exactly); the module itself uses UnixBenchOptions, whose fields mypy knows.
Options: type[BaseModel] = UnixBenchOptions


def copies_label(copies: int) -> str:
    """How a report names a section: "1 copy", "4 copies" (Run's own words)."""
    return "1 copy" if copies == 1 else f"{copies} copies"


def commands(
    options: Mapping[str, object],
    program: str,
    cpus: HostCpus,
    *,
    version: str | None = None,  # every version takes the same arguments
) -> list[Command]:
    """One ./Run for every copy count, in the directory UnixBench was built in. A copy
    count that comes to an earlier one ("all" on a one-CPU host after 1) is dropped:
    Run would spend half an hour on it again, and both sections would carry one label."""
    chosen = UnixBenchOptions.model_validate(options)
    counts = [count for _, count in distinct_counts(chosen.copies, cpus)]
    argv = [program]
    for count in counts:
        argv += ["-c", str(count)]
    if chosen.iterations is not None:
        argv += ["-i", str(chosen.iterations)]
    argv += chosen.tests or []
    seconds = _expected_seconds(chosen.tests, chosen.iterations)
    return [
        Command(
            argv=tuple(argv),
            timeout=_SETUP + _MARGIN * seconds * len(counts),
            cwd=chosen.directory,
        )
    ]


def _expected_seconds(tests: Sequence[str] | None, iterations: int | None) -> float:
    """What one copy count may take at most, counting each test as the slower kind."""
    long_passes = iterations or 10
    short_passes = max(1, (long_passes + 1) // 3)
    per_test = max(long_passes * _LONG_PASS, short_passes * _SHORT_PASS)
    count = sum(_GROUPS.get(name, 1) for name in tests or ["index"])
    return per_test * count


_SECTION = re.compile(
    r"^(?:\d+|unknown) CPUs? in system; running (?P<copies>\d+) parallel cop(?:y|ies) of tests$"
)
_RESULT = re.compile(
    r"^(?P<name>\S.*?)\s+(?P<value>\d+(?:\.\d+)?)\s+(?P<unit>\S+)\s+"
    r"\((?P<seconds>\d+(?:\.\d+)?) s, (?P<samples>\d+) samples?\)$"
)
_INDEX_HEAD = re.compile(
    r"^(?P<category>\S.*?) (?:Index Values|Partial Index)\s+BASELINE\s+RESULT\s+INDEX$"
)
_INDEX_ROW = re.compile(
    r"^(?P<name>\S.*?)\s+(?P<baseline>\d+(?:\.\d+)?|---)\s+(?P<result>\d+(?:\.\d+)?)"
    r"\s+(?P<index>\d+(?:\.\d+)?|---)$"
)
_SCORE = re.compile(
    r"^(?P<name>\S.*? Index Score(?: \(Partial Only\))?)\s+(?P<score>\d+(?:\.\d+)?)$"
)
# Run's own failures: `Run: unknown test "x"`, `Run: "make all" failed; aborting`.
_RUN_ERROR = re.compile(r"^Run: .+$", re.MULTILINE)


def parse(text: str) -> tuple[Measurement, ...]:
    """Every test's result, its index and the index score of each copy count, labelled
    ("copies", "4 copies"); BenchParseError, quoting Run's error, when there is none."""
    measurements: list[Measurement] = []
    for copies, lines in _sections(text):
        labels = (("copies", copies_label(copies)),)
        measurements += _section(lines, labels)
    if not measurements:
        raise BenchParseError(f"UnixBench printed no report: {_failure(text)}")
    return tuple(measurements)


def _sections(text: str) -> Iterator[tuple[int, list[str]]]:
    """(copies, the section's lines) of each "running N parallel copies" section."""
    copies: int | None = None
    lines: list[str] = []
    for raw in text.splitlines():
        line = raw.rstrip()
        header = _SECTION.match(line)
        if header is not None:
            if copies is not None:
                yield copies, lines
            copies, lines = int(header["copies"]), []
        elif copies is not None:
            lines.append(line)
    if copies is not None:
        yield copies, lines


def _section(lines: Sequence[str], labels: tuple[tuple[str, str], ...]) -> list[Measurement]:
    measurements: list[Measurement] = []
    in_index = False
    for line in lines:
        if _INDEX_HEAD.match(line):
            in_index = True
            continue
        score = _SCORE.match(line)
        if score is not None:
            measurements.append(_index(score["name"], score["score"], labels))
            in_index = False
            continue
        if in_index:
            row = _INDEX_ROW.match(line)
            if row is not None and row["index"] != "---":
                measurements.append(_index(f"{row['name']} index", row["index"], labels))
            continue
        result = _RESULT.match(line)
        if result is not None:
            value = float(result["value"])
            measurements.append(
                Measurement(result["name"], result["unit"], Better.HIGHER, value, labels)
            )
    return measurements


def _index(name: str, value: str, labels: tuple[tuple[str, str], ...]) -> Measurement:
    return Measurement(name, "index", Better.HIGHER, float(value), labels)


def _failure(text: str) -> str:
    """Run's own error line, else the output's last line (a run stopped before its
    end prints no report at all: Run prints it once every copy count is done)."""
    errors = [match[0].strip() for match in _RUN_ERROR.finditer(text)]
    if errors:
        return "; ".join(errors)
    last = next((line.strip() for line in reversed(text.splitlines()) if line.strip()), None)
    return f"its last line is {last!r}" if last else "its output is empty"


def version_argv(program: str) -> Sequence[str] | None:
    """Run has no version option: its version is in every report's header (see
    parse_version), so there is nothing to run for it."""
    del program
    return None


_VERSION = re.compile(
    r"^\s*(?:BYTE UNIX Benchmarks \(Version (?P<report>[\d.]+)\)|Version (?P<logo>[\d.]+)\s)",
    re.MULTILINE,
)


def parse_version(text: str) -> str | None:
    """ "5.1.3" from a report's "BYTE UNIX Benchmarks (Version 5.1.3)", or from the
    logo's "Version 6.0.0" line; None if neither is there."""
    found = _VERSION.search(text)
    if found is None:
        return None
    return found["report"] or found["logo"]


def notices(options: Mapping[str, object], cpus: HostCpus, version: str | None) -> list[str]:
    """Nothing to say before measuring (the BenchDriver protocol)."""
    del options, cpus, version
    return []
