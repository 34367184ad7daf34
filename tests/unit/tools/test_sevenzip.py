"""The 7-Zip benchmark driver: argv of every option, its options' errors, and its parser
on real outputs (tests/fixtures/sevenzip: 7zz 26.02 captured here, p7zip 16.02 of two
ARM boards as published), plus one real `7zz b -mmt1 1`."""

from __future__ import annotations

import itertools
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from wirespeed.model import Better, Measurement, Tool
from wirespeed.tools import sevenzip
from wirespeed.tools.bench import BenchDriver, BenchParseError, Command, HostCpus
from wirespeed.trial_kind import hooks_of

FIXTURES = Path(__file__).parents[2] / "fixtures" / "sevenzip"
FOUR = HostCpus(count=4)


def text(name: str) -> str:
    return (FIXTURES / f"{name}.txt").read_text()


def ratings(measurements: tuple[Measurement, ...]) -> dict[str, float]:
    assert all(m.unit == "MIPS" and m.better is Better.HIGHER for m in measurements)
    assert all(m.labels == () for m in measurements)  # the command's labels come later
    return {m.name: m.value for m in measurements}


def runs(published: str) -> list[str]:
    """The 7-Zip runs of one sbc-bench file: each starts with 7-Zip's banner."""
    return re.split(r"^(?=7-Zip \(a\))", published, flags=re.MULTILINE)[1:]


# The driver protocol


def test_module_is_a_bench_driver() -> None:
    driver: BenchDriver = sevenzip
    assert driver.TOOL is Tool.SEVENZIP
    assert driver.PROGRAMS == ("7zz", "7z", "7za")
    assert dict(driver.PACKAGES) == {"Debian": "7zip", "OpenWrt": "p7zip"}
    assert issubclass(driver.Options, BaseModel)
    assert hooks_of(Tool.SEVENZIP).driver is sevenzip


# commands()


def test_default_is_one_thread_then_all() -> None:
    assert sevenzip.commands({}, "7zz", FOUR) == [
        Command(("7zz", "b", "-mmt1"), (("threads", "1 thread"),), timeout=600.0),
        Command(("7zz", "b", "-mmt4"), (("threads", "all threads"),), timeout=600.0),
    ]


def test_defaults_dumped_by_the_plan_give_the_same_commands() -> None:
    dumped = sevenzip.Options().model_dump()
    assert dumped == {"threads": [1, "all"], "passes": None, "dictionary": None}
    assert sevenzip.commands(dumped, "7zz", FOUR) == sevenzip.commands({}, "7zz", FOUR)


@pytest.mark.parametrize(
    ("options", "program", "cpus", "expected"),
    [
        ({"threads": [2]}, "7za", FOUR, [(("7za", "b", "-mmt2"), "2 threads", 600.0)]),
        (
            {"threads": [1], "passes": 3},
            "7zz",
            FOUR,
            [(("7zz", "b", "-mmt1", "3"), "1 thread", 1800.0)],
        ),
        (
            {"threads": ["all"], "dictionary": 22},
            "7z",
            HostCpus(count=6),
            [(("7z", "b", "-mmt6", "-md22"), "all threads", 600.0)],
        ),
        (
            {"threads": [1, 2, "all"], "passes": 2, "dictionary": 16},
            "7zz",
            HostCpus(count=8),
            [
                (("7zz", "b", "-mmt1", "-md16", "2"), "1 thread", 1200.0),
                (("7zz", "b", "-mmt2", "-md16", "2"), "2 threads", 1200.0),
                (("7zz", "b", "-mmt8", "-md16", "2"), "all threads", 1200.0),
            ],
        ),
        # "all" on one CPU is one thread: run once, under the first setting's label.
        ({}, "7zz", HostCpus(count=1), [(("7zz", "b", "-mmt1"), "1 thread", 600.0)]),
        (
            {"threads": ["all", 1]},
            "7zz",
            HostCpus(count=1),
            [(("7zz", "b", "-mmt1"), "all threads", 600.0)],
        ),
        # Four CPUs asked for by number and by "all": one run.
        ({"threads": [4, "all"]}, "7zz", FOUR, [(("7zz", "b", "-mmt4"), "4 threads", 600.0)]),
    ],
)
def test_argv_labels_and_timeout(
    options: dict[str, object],
    program: str,
    cpus: HostCpus,
    expected: list[tuple[tuple[str, ...], str, float]],
) -> None:
    commands = sevenzip.commands(options, program, cpus)
    assert [(c.argv, dict(c.labels)["threads"], c.timeout) for c in commands] == expected
    assert all(c.cwd is None for c in commands)


@pytest.mark.parametrize(
    ("threads", "passes", "dictionary"),
    list(itertools.product([[1], ["all"], [3, 1]], [None, 1, 10], [None, 16, 26])),
)
def test_every_combination_keeps_7zips_order(
    threads: list[object], passes: int | None, dictionary: int | None
) -> None:
    """`b`, the switches, then the number of passes last: 7-Zip reads the first word
    after `b` that is no switch as the number of iterations."""
    options = {"threads": threads, "passes": passes, "dictionary": dictionary}
    for command in sevenzip.commands(options, "7zz", FOUR):
        program, verb, mmt, *rest = command.argv
        assert (program, verb) == ("7zz", "b")
        assert re.fullmatch(r"-mmt[1-4]", mmt)
        assert rest == [f"-md{dictionary}"] * (dictionary is not None) + [str(passes)] * (
            passes is not None
        )
        assert command.timeout == 600.0 * (passes or 1)


# Options errors


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"thread": [1]}, "thread\n  Extra inputs are not permitted"),
        ({"threads": [0]}, "threads must be 1..4096 or 'all', got 0"),
        ({"threads": [5000]}, "threads must be 1..4096 or 'all', got 5000"),
        ({"threads": [True]}, "expected a number of threads or 'all', got True"),
        ({"threads": ["ALL"]}, "expected a number of threads or 'all', got 'ALL'"),
        ({"threads": [1.5]}, "expected a number of threads or 'all', got 1.5"),
        ({"threads": "all"}, "Input should be a valid list"),
        ({"threads": []}, "List should have at least 1 item"),
        ({"threads": [1, "all", 1]}, "threads: 1 is given twice"),
        ({"passes": 0}, "greater than or equal to 1"),
        ({"dictionary": 12}, "greater than or equal to 16"),
        ({"dictionary": 30}, "less than or equal to 26"),
    ],
)
def test_bad_options_are_refused_with_the_reason(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        sevenzip.Options.model_validate(options)
    with pytest.raises(ValidationError):
        sevenzip.commands(options, "7zz", FOUR)


def test_options_are_frozen() -> None:
    options = sevenzip.SevenZipOptions()
    with pytest.raises(ValidationError, match="frozen"):
        options.passes = 2  # type: ignore[misc]


# parse() on real outputs


@pytest.mark.parametrize(
    ("capture", "expected"),
    [
        ("7zz-b-mmt1-1", {"compress": 3974.0, "decompress": 3867.0, "total": 3921.0}),
        ("7zz-b-mmt2-1", {"compress": 11731.0, "decompress": 7540.0, "total": 9636.0}),
        # Two passes over three dictionaries: one Avr: line for all six rows.
        ("7zz-b-mmt1-md20-2", {"compress": 7136.0, "decompress": 4099.0, "total": 5618.0}),
    ],
)
def test_7zz_captures(capture: str, expected: dict[str, float]) -> None:
    measurements = sevenzip.parse(text(capture))
    assert [m.name for m in measurements] == ["compress", "decompress", "total"]
    assert ratings(measurements) == expected


@pytest.mark.parametrize(
    ("board", "expected"),
    [
        (
            "radxa-zero",
            [
                (1065.0, 1639.0, 1352.0),
                (2872.0, 6308.0, 4590.0),
                (2851.0, 6317.0, 4584.0),
                (2876.0, 6306.0, 4591.0),
            ],
        ),
        (
            "xpi-3566-zero",
            [
                (883.0, 1740.0, 1312.0),
                (2746.0, 6446.0, 4596.0),
                (2722.0, 6418.0, 4570.0),
                (2727.0, 6512.0, 4619.0),
            ],
        ),
    ],
)
def test_p7zip_runs_published_by_sbc_bench(
    board: str, expected: list[tuple[float, float, float]]
) -> None:
    """p7zip prints no speed on Avr:; each run's ratings are the rating columns."""
    published = text(f"sbc-benchmarks-{board}-7-zip")
    parsed = [ratings(sevenzip.parse(run)) for run in runs(published)]
    assert [(r["compress"], r["decompress"], r["total"]) for r in parsed] == expected
    # The whole file: the final Avr: and Tot: lines, those of the last run.
    assert ratings(sevenzip.parse(published)) == parsed[-1]


@pytest.mark.parametrize("board", ["radxa-zero", "xpi-3566-zero"])
def test_ratings_are_the_figures_sbc_bench_reports(board: str) -> None:
    """sbc-bench's own summary of the three multi-threaded runs, in the same file."""
    published = text(f"sbc-benchmarks-{board}-7-zip")
    multi = [ratings(sevenzip.parse(run)) for run in runs(published)[1:]]
    names = {"compress": "Compression", "decompress": "Decompression", "total": "Total"}
    for name, line in names.items():
        summary = re.search(rf"^{line}: (.*)$", published, re.MULTILINE)
        assert summary is not None
        assert [float(v) for v in summary[1].split(",")] == [r[name] for r in multi]


@pytest.mark.parametrize(
    ("capture", "message"),
    [
        (
            "7zz-b-mmtx-error",
            "7-Zip printed no benchmark result: System ERROR: "
            "E_INVALIDARG : One or more arguments are invalid",
        ),
        (
            "7zz-b-unknown-switch-error",
            "7-Zip printed no benchmark result: Command Line Error: Unknown switch: -zz",
        ),
        ("7zz-version", "7-Zip printed no benchmark result: its last line is"),
    ],
)
def test_errors_quote_7zip(capture: str, message: str) -> None:
    with pytest.raises(BenchParseError, match=re.escape(message)):
        sevenzip.parse(text(capture))


def test_empty_output_is_an_error() -> None:
    with pytest.raises(BenchParseError, match="its output is empty"):
        sevenzip.parse("")


def test_output_cut_before_tot_is_an_error() -> None:
    """A run stopped after its Avr: line has no total: no figure is taken from it."""
    captured = text("7zz-b-mmt1-1")
    with pytest.raises(BenchParseError, match="no 'Tot:' line after 'Avr:'"):
        sevenzip.parse(captured[: captured.index("Tot:")])


def test_output_cut_before_avr_quotes_its_last_line() -> None:
    captured = text("7zz-b-mmt1-1")
    cut = captured[: captured.index("----------")]
    last = cut.rstrip().splitlines()[-1].strip()
    with pytest.raises(BenchParseError, match=re.escape(f"its last line is {last!r}")):
        sevenzip.parse(cut)


# Version


def test_version_argv_is_the_bare_program() -> None:
    assert sevenzip.version_argv("7za") == ["7za"]


@pytest.mark.parametrize(
    ("capture", "version"),
    [
        ("7zz-version", "26.02"),
        ("7zz-b-mmt1-1", "26.02"),
        ("sbc-benchmarks-radxa-zero-7-zip", "16.02 (p7zip)"),
        ("sbc-benchmarks-xpi-3566-zero-7-zip", "16.02 (p7zip)"),
        ("7zz-b-unknown-switch-error", None),  # its banner went nowhere: stdout is empty
    ],
)
def test_parse_version(capture: str, version: str | None) -> None:
    assert sevenzip.parse_version(text(capture)) == version


# One real run


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("7zz") is None, reason="needs 7zz (Debian package 7zip)")
@pytest.mark.process
def test_real_single_thread_run() -> None:
    """A few seconds of one core: one pass with dictionaries up to 256 KiB (7-Zip's
    default ones take 20 s here and print the same table)."""
    cpus = HostCpus(count=os.cpu_count() or 1)
    (command,) = sevenzip.commands({"threads": [1], "passes": 1, "dictionary": 18}, "7zz", cpus)
    assert command.argv == ("7zz", "b", "-mmt1", "-md18", "1")
    done = subprocess.run(
        command.argv, capture_output=True, text=True, timeout=command.timeout, check=True
    )
    measurements = sevenzip.parse(done.stdout)
    assert [m.name for m in measurements] == ["compress", "decompress", "total"]
    assert all(m.value > 0 for m in measurements)
    assert sevenzip.parse_version(done.stdout) is not None
