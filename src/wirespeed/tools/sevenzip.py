"""7-Zip's own benchmark (`7zz b`): LZMA compression and decompression rated in MIPS.

7-Zip rates the speed it measured against a reference CPU (its documentation: "The
benchmark shows a rating in MIPS"); sbc-bench reports three such figures of each run,
compression and decompression from the `Avr:` line and the total from the `Tot:` line.
Those ratings are what this driver measures. The speeds in KiB/s are left out: p7zip
16.02, still the 7-Zip of many boards, prints none on its `Avr:` line, and a figure that
only some versions give would leave holes in every comparison.

Both families print the same table:

    7-Zip (z) 26.02 (x64):  Avr:      4447    99   4676   4627  |      47649   100   4172   4153
    p7zip 16.02 (7za):      Avr:              99   1075   1065  |              100   1645   1639
                            Tot:              99   1360   1352

The rating is the last number of each half of `Avr:`, and the last number of `Tot:`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator

from wirespeed.model import Better, Measurement, Tool
from wirespeed.tools.bench import ALL, BenchParseError, Command, HostCpus, count_or_all
from wirespeed.tools.count_settings import distinct_counts, refuse_repeats

__all__ = [
    "PACKAGES",
    "PROGRAMS",
    "TOOL",
    "WORKLOAD",
    "Options",
    "SevenZipOptions",
    "commands",
    "notices",
    "parse",
    "parse_version",
    "version_argv",
]

TOOL: Tool = Tool.SEVENZIP
# Debian 12's package `7zip` installs 7zz; p7zip (OpenWrt, older Debian) has 7z and 7za.
PROGRAMS: tuple[str, ...] = ("7zz", "7z", "7za")
PACKAGES: Mapping[str, str] = {"Debian": "7zip", "OpenWrt": "p7zip"}
# The programs whose CPU is the benchmark's own, never background load.
WORKLOAD: tuple[str, ...] = ("7zz", "7z", "7za")

MAX_THREADS = 4096  # more is a typo, not a CPU
# Dictionary sizes as log2 of bytes (-md22 is 4 MiB). The benchmark takes 12 to 14 times
# the dictionary in RAM (435 MiB at 25): 26 wants some 850 MiB, more than most routers
# have; 16 is small enough for the smallest (7-Zip then prints the one row, 16).
MIN_DICTIONARY = 16
MAX_DICTIONARY = 26
# Seconds one pass may take before the run is taken for hung: 7-Zip calibrates each
# dictionary size to a few seconds, about a minute a pass on a fast CPU; slow boards
# and big dictionaries take longer.
SECONDS_PER_PASS = 600.0


Threads = Annotated[int | Literal["all"], BeforeValidator(count_or_all("threads", MAX_THREADS))]


class SevenZipOptions(BaseModel):
    """The plan's `options:` of a 7-Zip test."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    # One run per entry: 1 for one core's speed, "all" for as many threads as the host
    # has online CPUs (HostCpus.count when the test starts).
    threads: list[Threads] = Field(default=[1, "all"], min_length=1)
    # 7-Zip's number of iterations (`b N`); None keeps its own (one pass).
    passes: int | None = Field(default=None, ge=1, le=100)
    # The largest dictionary as log2 of bytes (-md); None keeps 7-Zip's, which it
    # fits to the host's RAM (25, 32 MiB, where there is room).
    dictionary: int | None = Field(default=None, ge=MIN_DICTIONARY, le=MAX_DICTIONARY)

    @field_validator("threads")
    @classmethod
    def _no_repeats(cls, threads: list[int | str]) -> list[int | str]:
        return refuse_repeats("threads", threads)


# The protocol's name for it. Typed as the protocol declares it (a settable attribute
# must match exactly); the module itself uses SevenZipOptions, whose fields mypy knows.
Options: type[BaseModel] = SevenZipOptions


def thread_label(setting: int | str, count: int) -> str:
    """How a report names a thread setting: "1 thread", "4 threads", "all threads". "all"
    is named so whatever the count, so that boards with 4 and 6 cores share the row (the
    count is in the command's -mmtN)."""
    if setting == ALL:
        return "all threads"
    return f"{count} thread" if count == 1 else f"{count} threads"


def commands(
    options: Mapping[str, object],
    program: str,
    cpus: HostCpus,
    *,
    version: str | None = None,  # every version takes the same arguments
) -> list[Command]:
    """One `b` run per thread setting. A setting that comes to the same number of
    threads as an earlier one ("all" on a one-CPU host after 1) is run only once."""
    chosen = SevenZipOptions.model_validate(options)
    tail = [f"-md{chosen.dictionary}"] if chosen.dictionary is not None else []
    if chosen.passes is not None:
        tail.append(str(chosen.passes))
    timeout = SECONDS_PER_PASS * (chosen.passes or 1)
    runs: list[Command] = []
    for setting, count in distinct_counts(chosen.threads, cpus):
        runs.append(
            Command(
                argv=(program, "b", f"-mmt{count}", *tail),
                labels=(("threads", thread_label(setting, count)),),
                timeout=timeout,
            )
        )
    return runs


_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_AVR = re.compile(r"^Avr:(?P<compress>[^|\n]*)\|(?P<decompress>[^\n]*)$", re.MULTILINE)
_TOT = re.compile(r"^Tot:(?P<total>[^\n]*)$", re.MULTILINE)
# What 7-Zip prints before it gives up: "System ERROR:", "Command Line Error:",
# "ERROR: Can't allocate required memory!", each with its detail on the lines after.
# The colon tells them from its usage text ("output/error/progress line").
_ERROR = re.compile(r"\b(?:ERROR|Error)\s*:")


def _rating(cells: str, line: str) -> float:
    numbers = _NUMBER.findall(cells)
    if not numbers:
        raise BenchParseError(f"7-Zip: no rating in {line.strip()!r}")
    return float(numbers[-1])


def parse(text: str) -> tuple[Measurement, ...]:
    """compress, decompress and total in MIPS from 7-Zip's final `Avr:` and `Tot:`
    lines; BenchParseError, quoting 7-Zip's error, when the output holds no result."""
    averages = list(_AVR.finditer(text))
    if not averages:
        raise BenchParseError(f"7-Zip printed no benchmark result: {_failure(text)}")
    average = averages[-1]
    total = _TOT.search(text, average.end())
    if total is None:
        raise BenchParseError(f"7-Zip printed no 'Tot:' line after 'Avr:': {_failure(text)}")
    rows = (
        ("compress", _rating(average["compress"], average[0])),
        ("decompress", _rating(average["decompress"], average[0])),
        ("total", _rating(total["total"], total[0])),
    )
    return tuple(Measurement(name, "MIPS", Better.HIGHER, value) for name, value in rows)


def _failure(text: str) -> str:
    """7-Zip's error with its detail ("System ERROR: E_INVALIDARG : One or more
    arguments are invalid"), else its last line."""
    lines = [line.strip() for line in text.splitlines()]
    errors: list[str] = []
    for index, line in enumerate(lines):
        if not _ERROR.search(line):
            continue
        block = [line]
        for detail in lines[index + 1 :]:
            if not detail or _ERROR.search(detail):
                break
            block.append(detail)
        errors.append(" ".join(block))
    if errors:
        return "; ".join(errors)
    last = next((line for line in reversed(lines) if line), None)
    return f"its last line is {last!r}" if last else "its output is empty"


def version_argv(program: str) -> list[str]:
    """7-Zip without a command prints its banner (and usage) and exits 0."""
    return [program]


_VERSION = re.compile(r"^7-Zip(?: \([A-Za-z]\))?(?: \[\d+\])? (\d+\.\d+)", re.MULTILINE)
_P7ZIP = re.compile(r"^p7zip Version (\d+\.\d+)", re.MULTILINE)


def parse_version(text: str) -> str | None:
    """ "26.02" from 7-Zip's banner, "16.02 (p7zip)" from p7zip's; None if neither."""
    p7zip = _P7ZIP.search(text)
    if p7zip is not None:
        return f"{p7zip[1]} (p7zip)"
    banner = _VERSION.search(text)
    return banner[1] if banner is not None else None


def notices(options: Mapping[str, object], cpus: HostCpus, version: str | None) -> list[str]:
    """Nothing to say before measuring (the BenchDriver protocol)."""
    del options, cpus, version
    return []
