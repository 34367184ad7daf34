"""Output files and run ids as input: a clear message and exit 2 for a path or an id that
cannot be used (checked before any work), exit 1 for a disk that fills; no traceback."""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.cli.outputs import MAX_RUN_ID

FIXTURES = Path(__file__).parents[2] / "fixtures"
EXAMPLES = Path(__file__).parents[3] / "examples"
BEYOND_64_BITS = "99999999999999999999999"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store holding run 1, imported from a seed output."""
    path = str(tmp_path_factory.mktemp("store") / "runs.db")
    status, _, err = run_cli("import", "--db", path, str(FIXTURES / "seeds" / "r2s-br0-test1.txt"))
    assert status == 0, err
    return path


def assert_one_clear_line(err: str, *words: str) -> None:
    assert "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith("wirespeed: error: "), err
    for word in words:
        assert word in first, err


# -- paths that cannot be written: exit 2, before any work ----------------------------


@pytest.mark.parametrize("fmt", ["html", "csv", "terminal"])
def test_report_into_a_directory_that_does_not_exist(db: str, tmp_path: Path, fmt: str) -> None:
    target = tmp_path / "nonexistent" / "x.html"
    status, _, err = run_cli("report", "1", "--db", db, "--format", fmt, "-o", str(target))
    assert status == 2
    assert_one_clear_line(err, str(target), "does not exist")
    assert not target.parent.exists()


def test_report_into_a_directory_names_a_file_to_give(db: str, tmp_path: Path) -> None:
    status, _, err = run_cli("report", "1", "--db", db, "--format", "html", "-o", str(tmp_path))
    assert status == 2
    assert_one_clear_line(err, "is a directory")
    assert f"-o {tmp_path / 'report.html'}" in err


def test_report_under_a_file_taken_for_a_directory(db: str, tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    status, _, err = run_cli("report", "1", "--db", db, "-o", str(tmp_path / "plain" / "x.md"))
    assert status == 2
    assert_one_clear_line(err, "not a directory")


@pytest.mark.parametrize("target", ["{tmp}/nonexistent/c.csv", "{tmp}"])
def test_compare_output_is_checked_too(db: str, tmp_path: Path, target: str) -> None:
    path = target.format(tmp=tmp_path)
    status, _, err = run_cli("compare", "1", "1", "--db", db, "--format", "csv", "-o", path)
    assert status == 2
    assert_one_clear_line(err, path)


def test_run_refuses_a_markdown_file_it_could_not_write_before_the_run_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def run_started(*args: object, **kwargs: object) -> None:
        raise AssertionError("the run started although its Markdown file cannot be written")

    monkeypatch.setattr("wirespeed.run.preflight.preflight", run_started)
    markdown = tmp_path / "nonexistent" / "t.md"
    plan = str(EXAMPLES / "mtu-matrix.yaml")
    db = str(tmp_path / "runs.db")
    status, _, err = run_cli(
        "run", plan, "--db", db, "--markdown", str(markdown), "--duration", "1"
    )
    assert status == 2
    assert_one_clear_line(err, "--markdown", "does not exist")
    status, _, err = run_cli("run", plan, "--db", db, "--markdown", str(tmp_path))
    assert status == 2
    assert_one_clear_line(err, "--markdown", "is a directory")
    assert not Path(db).exists()  # not even the store was opened


# -- run ids beyond what a store can hold: exit 2 from the argument parser ----------------


@pytest.mark.parametrize(
    "argv",
    [
        ("report", BEYOND_64_BITS),
        ("report", str(MAX_RUN_ID + 1)),
        ("report", "0"),
        ("compare", "1", BEYOND_64_BITS),
        ("run", "--resume", BEYOND_64_BITS),
    ],
)
def test_run_ids_beyond_64_bits_are_a_usage_error(
    db: str, argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        run_cli(*argv, "--db", db)
    assert exited.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"no run {argv[-1]}: run ids are 1..{MAX_RUN_ID}" in err


def test_the_largest_run_id_is_just_not_found(db: str) -> None:
    status, _, err = run_cli("report", str(MAX_RUN_ID), "--db", db)
    assert status == 2
    assert "Traceback" not in err


# -- a full disk: exit 1, no partial file left ------------------------------------------


def test_report_to_dev_full_says_the_disk_is_full(db: str) -> None:
    status, _, err = run_cli("report", "1", "--db", db, "--format", "csv", "-o", "/dev/full")
    assert status == 1
    assert_one_clear_line(err, "/dev/full", "no space left on device")


@pytest.mark.parametrize("fmt", ["terminal", "markdown"])
def test_report_to_a_full_stdout_says_the_disk_is_full(db: str, fmt: str) -> None:
    with open("/dev/full", "w", encoding="utf-8") as full:
        status, _, err = run_cli("report", "1", "--db", db, "--format", fmt, stdout=full)
    assert status == 1
    assert_one_clear_line(err, "no space left on device")


@contextlib.contextmanager
def small_tmpfs(where: Path) -> Iterator[Path]:
    where.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)],
        capture_output=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield where
    finally:
        subprocess.run(["umount", str(where)], check=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="mounting a tmpfs needs root")
@pytest.mark.process
def test_report_on_a_full_tmpfs_exits_1_and_leaves_no_partial_file(db: str, tmp_path: Path) -> None:
    with small_tmpfs(tmp_path / "small") as disk:
        (disk / "filler").write_bytes(b"\0" * 48 * 1024)  # 16 KiB left; the HTML is ~32
        target = disk / "report.html"
        status, _, err = run_cli("report", "1", "--db", db, "--format", "html", "-o", str(target))
        assert status == 1
        assert_one_clear_line(err, str(target), "no space left on device")
        assert not target.exists()
        # With room again, the same command writes it.
        (disk / "filler").unlink()
        status, _, err = run_cli("report", "1", "--db", db, "--format", "html", "-o", str(target))
        assert status == 0, err
        assert target.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


# -- a directory that exists but takes no file: found by making it, before any work ----

SOAK_PLAN = "lab: {link: gbe}\npath: {name: R, topology: router}\nsoak: {duration: 3s}\n"


def _no_work(*args: object, **kwargs: object) -> None:
    raise AssertionError("work started although the output cannot be written")


@pytest.mark.parametrize("where", ["/proc/x", "/sys/x"])
@pytest.mark.parametrize(
    "command",
    ["report", "compare", "run --markdown", "run --save-plan", "card", "soak", "tune keep"],
)
def test_an_output_where_no_file_can_be_made_is_refused_before_any_work(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str, command: str
) -> None:
    """/proc and /sys pass a check of the directory's permission bits (as root, every
    directory does), but take no new file: the whole card or run would be measured for
    a "could not write" at its end."""
    monkeypatch.setattr("wirespeed.run.preflight.preflight", _no_work)
    monkeypatch.setattr("wirespeed.cli.commands.card.compose", _no_work)
    monkeypatch.setattr("wirespeed.soak.session.start", _no_work)
    monkeypatch.setattr("wirespeed.cli.commands.tune_keep._kept", _no_work)
    plan = tmp_path / "plan.yaml"
    fresh = str(tmp_path / "fresh.db")
    target = f"{where}.md"
    argv = {
        "report": ("report", "1", "--db", db, "-o", target),
        "compare": ("compare", "1", "1", "--db", db, "-o", target),
        "run --markdown": (
            "run", str(EXAMPLES / "mtu-matrix.yaml"), "--db", fresh, "--markdown", target,
        ),
        "run --save-plan": (
            "run", str(EXAMPLES / "mtu-matrix.yaml"), "--db", fresh,
            "--save-plan", f"{where}.yaml",
        ),
        "card": ("card", "lab:nat:fe", "--db", fresh, "-o", target),
        "soak": ("soak", str(plan), "--db", fresh, "-o", target),
        "tune keep": (
            "tune", "keep", "--root", str(FIXTURES / "boards" / "r4s"), "-o", f"{where}.sh",
        ),
    }[command]  # fmt: skip
    plan.write_text(SOAK_PLAN)
    status, _, err = run_cli(*argv)
    assert status == 2, err
    assert_one_clear_line(err, where, "cannot write a file there")
    assert not Path(fresh).exists()  # not even the store was opened
    assert not Path(target).exists()
