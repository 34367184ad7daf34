"""The UnixBench driver: argv of every option, its options' errors, and its parser on real
reports (tests/fixtures/unixbench: full index runs of two ARM boards as published, a
partial run of byte-unixbench 6.0.0 captured here)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import pytest
from pydantic import BaseModel, ValidationError

from wirespeed.model import Better, Measurement, Tool
from wirespeed.tools import unixbench
from wirespeed.tools.bench import BenchDriver, BenchParseError, Command, HostCpus
from wirespeed.trial_kind import hooks_of

FIXTURES = Path(__file__).parents[2] / "fixtures" / "unixbench"
DIRECTORY = "/opt/byte-unixbench/UnixBench"
FOUR = HostCpus(count=4)

# Run's twelve index tests, in the order it prints them, with their units.
INDEX_TESTS = [
    ("Dhrystone 2 using register variables", "lps"),
    ("Double-Precision Whetstone", "MWIPS"),
    ("Execl Throughput", "lps"),
    ("File Copy 1024 bufsize 2000 maxblocks", "KBps"),
    ("File Copy 256 bufsize 500 maxblocks", "KBps"),
    ("File Copy 4096 bufsize 8000 maxblocks", "KBps"),
    ("Pipe Throughput", "lps"),
    ("Pipe-based Context Switching", "lps"),
    ("Process Creation", "lps"),
    ("Shell Scripts (1 concurrent)", "lpm"),
    ("Shell Scripts (8 concurrent)", "lpm"),
    ("System Call Overhead", "lps"),
]


def text(name: str) -> str:
    return (FIXTURES / f"{name}.txt").read_text()


def by_copies(measurements: tuple[Measurement, ...], copies: str) -> dict[str, Measurement]:
    chosen = [m for m in measurements if m.labels == (("copies", copies),)]
    table = {m.name: m for m in chosen}
    assert len(table) == len(chosen), "a name twice in one section"
    return table


def values(table: dict[str, Measurement]) -> dict[str, tuple[float, str]]:
    return {name: (m.value, m.unit) for name, m in table.items()}


# The driver protocol


def test_module_is_a_bench_driver() -> None:
    driver: BenchDriver = unixbench
    assert driver.TOOL is Tool.UNIXBENCH
    assert driver.PROGRAMS == ("./Run",)
    assert "github.com/kdlucas/byte-unixbench" in driver.PACKAGES["source"]
    assert issubclass(driver.Options, BaseModel)
    assert hooks_of(Tool.UNIXBENCH).driver is unixbench


# commands()


def test_default_is_one_run_of_the_index_for_1_copy_and_all() -> None:
    """One ./Run for both copy counts, in UnixBench's directory; the index at Run's
    10 passes counts 12 tests of up to 180 s, three times over, per copy count."""
    assert unixbench.commands({"directory": DIRECTORY}, "./Run", HostCpus(count=6)) == [
        Command(
            argv=("./Run", "-c", "1", "-c", "6"),
            labels=(),
            timeout=600.0 + 3 * 180.0 * 12 * 2,
            cwd=DIRECTORY,
        )
    ]


def test_defaults_dumped_by_the_plan_give_the_same_commands() -> None:
    dumped = unixbench.Options.model_validate({"directory": DIRECTORY}).model_dump()
    assert dumped == {
        "directory": DIRECTORY,
        "copies": [1, "all"],
        "tests": None,
        "iterations": None,
    }
    assert unixbench.commands(dumped, "./Run", FOUR) == unixbench.commands(
        {"directory": DIRECTORY}, "./Run", FOUR
    )


@pytest.mark.parametrize(
    ("options", "cpus", "argv", "timeout"),
    [
        ({"copies": [1]}, FOUR, ("./Run", "-c", "1"), 600.0 + 3 * 180.0 * 12),
        ({"copies": ["all"]}, FOUR, ("./Run", "-c", "4"), 600.0 + 3 * 180.0 * 12),
        ({"copies": [1, 2, "all"]}, FOUR, ("./Run", "-c", "1", "-c", "2", "-c", "4"), None),
        # "all" on one CPU is one copy: Run would do the same half hour twice.
        ({}, HostCpus(count=1), ("./Run", "-c", "1"), 600.0 + 3 * 180.0 * 12),
        ({"copies": [4, "all"]}, FOUR, ("./Run", "-c", "4"), None),
        (
            {"tests": ["dhry2reg", "whetstone-double"]},
            FOUR,
            ("./Run", "-c", "1", "-c", "4", "dhry2reg", "whetstone-double"),
            600.0 + 3 * 180.0 * 2 * 2,
        ),
        # -i 1: one pass of a long test (10 s), one of a short one (up to 60 s).
        (
            {"copies": [1], "tests": ["dhry2reg"], "iterations": 1},
            FOUR,
            ("./Run", "-c", "1", "-i", "1", "dhry2reg"),
            600.0 + 3 * 60.0,
        ),
        # A group stands for its tests: "system" is eleven.
        (
            {"copies": [1], "tests": ["system"], "iterations": 3},
            FOUR,
            ("./Run", "-c", "1", "-i", "3", "system"),
            600.0 + 3 * 60.0 * 11,
        ),
    ],
)
def test_argv_and_timeout(
    options: dict[str, object], cpus: HostCpus, argv: tuple[str, ...], timeout: float | None
) -> None:
    (command,) = unixbench.commands({"directory": DIRECTORY, **options}, "./Run", cpus)
    assert command.argv == argv
    assert command.cwd == DIRECTORY
    assert command.labels == ()  # the parser labels each section by its copies
    if timeout is not None:
        assert command.timeout == timeout


@pytest.mark.parametrize(
    ("copies", "tests", "iterations"),
    list(
        itertools.product(
            [[1], ["all"], [2, 1]], [None, ["dhry2reg"], ["fstime", "index"]], [None, 1, 10]
        )
    ),
)
def test_every_combination(
    copies: list[object], tests: list[str] | None, iterations: int | None
) -> None:
    """-c per copy count, then -i, then the test names; the timeout grows with each."""
    options = {"directory": DIRECTORY, "copies": copies, "tests": tests, "iterations": iterations}
    (command,) = unixbench.commands(options, "./Run", FOUR)
    counts = [4 if c == "all" else c for c in copies]
    expected = ["./Run"] + [w for c in counts for w in ("-c", str(c))]
    expected += ["-i", str(iterations)] * (iterations is not None) + (tests or [])
    assert list(command.argv) == expected
    one = unixbench.commands({**options, "copies": [1]}, "./Run", FOUR)[0].timeout
    assert command.timeout - 600.0 == pytest.approx((one - 600.0) * len(counts))


def test_program_is_the_one_given() -> None:
    # Every test above passes "./Run": another path shows it is the argument that is
    # used, in front of the same options.
    options = {"directory": DIRECTORY, "copies": [1, "all"], "iterations": 3}
    (usual,) = unixbench.commands(options, "./Run", FOUR)
    (command,) = unixbench.commands(options, f"{DIRECTORY}/Run", FOUR)
    assert command.argv == (f"{DIRECTORY}/Run", "-c", "1", "-c", "4", "-i", "3")
    assert command.argv[1:] == usual.argv[1:] and usual.argv[0] == "./Run"


# Options errors


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({}, "directory\n  Field required"),
        ({"directory": "UnixBench"}, "absolute path on the device, got 'UnixBench'"),
        ({"directory": "~/UnixBench"}, "absolute path on the device, got '~/UnixBench'"),
        ({"directory": DIRECTORY, "copy": [1]}, "copy\n  Extra inputs are not permitted"),
        ({"directory": DIRECTORY, "copies": [0]}, "copies must be 1..4096 or 'all', got 0"),
        ({"directory": DIRECTORY, "copies": [True]}, "expected a number of copies or 'all'"),
        ({"directory": DIRECTORY, "copies": ["every"]}, "got 'every'"),
        ({"directory": DIRECTORY, "copies": []}, "List should have at least 1 item"),
        ({"directory": DIRECTORY, "copies": ["all", "all"]}, "copies: 'all' is given twice"),
        ({"directory": DIRECTORY, "tests": []}, "List should have at least 1 item"),
        ({"directory": DIRECTORY, "tests": ["-q"]}, "not a UnixBench test name: '-q'"),
        ({"directory": DIRECTORY, "tests": ["dhry2reg pipe"]}, "test name: 'dhry2reg pipe'"),
        ({"directory": DIRECTORY, "iterations": 0}, "greater than or equal to 1"),
    ],
)
def test_bad_options_are_refused_with_the_reason(options: dict[str, object], message: str) -> None:
    with pytest.raises(ValidationError, match=re.escape(message)):
        unixbench.Options.model_validate(options)
    with pytest.raises(ValidationError):
        unixbench.commands(options, "./Run", FOUR)


def test_options_are_frozen() -> None:
    options = unixbench.UnixBenchOptions(directory=DIRECTORY)
    with pytest.raises(ValidationError, match="frozen"):
        options.directory = "/tmp"  # type: ignore[misc]


# parse() on real reports


def test_orange_pi_zero_2_full_index_1_and_4_copies() -> None:
    measurements = unixbench.parse(text("sbc-benchmarks-orange-pi-zero-2-1gb-unixbench"))
    assert len(measurements) == 2 * (12 + 12 + 1)
    assert all(m.better is Better.HIGHER for m in measurements)
    one, four = by_copies(measurements, "1 copy"), by_copies(measurements, "4 copies")
    results = [7619086.9, 1783.4, 821.4, 139517.5, 41752.5, 380400.2]
    results += [264781.6, 48077.8, 1959.3, 2244.0, 585.5, 428679.8]
    index = [652.9, 324.3, 191.0, 352.3, 252.3, 655.9, 212.8, 120.2, 155.5, 529.2, 975.9, 285.8]
    assert values(one) == {
        **{name: (r, unit) for (name, unit), r in zip(INDEX_TESTS, results, strict=True)},
        **{f"{name} index": (i, "index") for (name, _), i in zip(INDEX_TESTS, index, strict=True)},
        "System Benchmarks Index Score": (324.9, "index"),
    }
    results = [30460395.0, 7127.6, 2370.8, 239875.0, 64008.5, 712808.8]
    results += [1053658.9, 168318.9, 4357.6, 4552.3, 618.6, 1672348.9]
    index = [2610.1, 1295.9, 551.4, 605.7, 386.8, 1229.0, 847.0, 420.8, 345.8, 1073.6, 1030.9]
    index += [1114.9]
    assert values(four) == {
        **{name: (r, unit) for (name, unit), r in zip(INDEX_TESTS, results, strict=True)},
        **{f"{name} index": (i, "index") for (name, _), i in zip(INDEX_TESTS, index, strict=True)},
        "System Benchmarks Index Score": (811.6, "index"),
    }


def test_orange_pi_i96_one_cpu() -> None:
    """ "1 CPU in system; running 1 parallel copy of tests": one section."""
    measurements = unixbench.parse(text("sbc-benchmarks-orange-pi-i96-unixbench"))
    assert {m.labels for m in measurements} == {(("copies", "1 copy"),)}
    table = values(by_copies(measurements, "1 copy"))
    assert len(table) == 25
    assert table["Dhrystone 2 using register variables"] == (3080833.7, "lps")
    assert table["Double-Precision Whetstone"] == (581.9, "MWIPS")
    assert table["File Copy 4096 bufsize 8000 maxblocks"] == (158147.6, "KBps")
    assert table["Shell Scripts (8 concurrent)"] == (132.7, "lpm")
    assert table["System Call Overhead index"] == (398.0, "index")
    assert table["System Benchmarks Index Score"] == (201.4, "index")


@pytest.mark.parametrize(
    "report",
    [
        "sbc-benchmarks-orange-pi-zero-2-1gb-unixbench",
        "sbc-benchmarks-orange-pi-i96-unixbench",
        "run-c1-c2-i1-dhry2reg-whetstone",
    ],
)
def test_index_table_repeats_each_result(report: str) -> None:
    """Run prints every result twice, in its results and in its index table's RESULT
    column: the parser's results are exactly those of the index tables, and each test
    has its index."""
    report_text = text(report)
    measurements = unixbench.parse(report_text)
    rows = re.findall(r"^(\S.*?)\s+[\d.]+\s+([\d.]+)\s+[\d.]+$", report_text, re.MULTILINE)
    results = [m for m in measurements if m.unit != "index"]
    assert sorted((name, float(value)) for name, value in rows) == sorted(
        (m.name, m.value) for m in results
    )
    indexed = {(m.name, m.labels) for m in measurements if m.unit == "index"}
    assert all((f"{m.name} index", m.labels) in indexed for m in results)


def test_captured_partial_run_keeps_its_own_score_name() -> None:
    """A run of some tests prints a partial index; its score is not the full one's."""
    measurements = unixbench.parse(text("run-c1-c2-i1-dhry2reg-whetstone"))
    assert values(by_copies(measurements, "1 copy")) == {
        "Dhrystone 2 using register variables": (45015737.8, "lps"),
        "Double-Precision Whetstone": (7897.9, "MWIPS"),
        "Dhrystone 2 using register variables index": (3857.4, "index"),
        "Double-Precision Whetstone index": (1436.0, "index"),
        "System Benchmarks Index Score (Partial Only)": (2353.5, "index"),
    }
    assert values(by_copies(measurements, "2 copies")) == {
        "Dhrystone 2 using register variables": (86058804.6, "lps"),
        "Double-Precision Whetstone": (10269.5, "MWIPS"),
        "Dhrystone 2 using register variables index": (7374.4, "index"),
        "Double-Precision Whetstone index": (1867.2, "index"),
        "System Benchmarks Index Score (Partial Only)": (3710.7, "index"),
    }
    assert len(measurements) == 10  # nothing from the logo, make or progress lines


def test_unknown_test_quotes_run() -> None:
    with pytest.raises(
        BenchParseError,
        match=re.escape('UnixBench printed no report: Run: unknown test "nosuchtest"'),
    ):
        unixbench.parse(text("run-unknown-test-error"))


def test_run_stopped_before_its_report_quotes_the_last_line() -> None:
    """Run prints its report only at the end: a run stopped in its tests has none."""
    captured = text("run-c1-c2-i1-dhry2reg-whetstone")
    cut = captured[: captured.index("2 x Double-Precision Whetstone")]
    with pytest.raises(
        BenchParseError,
        match=re.escape("its last line is '2 x Dhrystone 2 using register variables  1'"),
    ):
        unixbench.parse(cut)


def test_empty_output_is_an_error() -> None:
    with pytest.raises(BenchParseError, match="its output is empty"):
        unixbench.parse("")


# Version


def test_version_is_read_from_the_report() -> None:
    assert unixbench.version_argv("./Run") is None
    assert unixbench.parse_version(text("sbc-benchmarks-orange-pi-zero-2-1gb-unixbench")) == "5.1.3"
    assert unixbench.parse_version(text("sbc-benchmarks-orange-pi-i96-unixbench")) == "5.1.3"
    assert unixbench.parse_version(text("run-c1-c2-i1-dhry2reg-whetstone")) == "6.0.0"
    assert unixbench.parse_version(text("run-unknown-test-error")) is None
