"""-o FILE takes its format from the extension, several -o at once (as hyperfine's
exports); --format, when given, is the format of stdout and of every file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.cli import run_cli

FIXTURES = Path(__file__).parents[2] / "fixtures"
SEED = str(FIXTURES / "seeds" / "r2s-br0-test1.txt")


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store holding runs 1 and 2, each imported from a seed output."""
    path = str(tmp_path_factory.mktemp("store") / "runs.db")
    for _ in range(2):
        status, _, err = run_cli("import", "--db", path, SEED)
        assert status == 0, err
    return path


def _stdout(*argv: str) -> str:
    status, out, err = run_cli(*argv)
    assert status == 0, err
    return out


def test_report_writes_each_file_in_its_extensions_format(db: str, tmp_path: Path) -> None:
    names = ["t.md", "t.html", "t.csv", "t.json", "t.txt", "u.MARKDOWN", "u.htm"]
    argv = ["report", "1", "--db", db]
    for name in names:
        argv += ["-o", str(tmp_path / name)]
    status, out, err = run_cli(*argv)
    assert status == 0, err
    assert out == ""
    assert [line.removeprefix("written to ") for line in err.splitlines()] == [
        str(tmp_path / name) for name in names
    ]

    def written(name: str) -> str:
        return (tmp_path / name).read_text(encoding="utf-8")

    for name, fmt in [("t.md", "markdown"), ("t.csv", "csv"), ("t.json", "json")]:
        assert written(name) == _stdout("report", "1", "--db", db, "--format", fmt), name
    assert written("u.MARKDOWN") == written("t.md")
    assert written("t.html").startswith("<!DOCTYPE html>") and written("u.htm") == written("t.html")
    assert json.loads(written("t.json"))["format"] == "wirespeed-report"
    # .txt: the terminal's table as plain text, as `report > t.txt` writes it.
    assert written("t.txt") == _stdout("report", "1", "--db", db)
    assert "\x1b[" not in written("t.txt") and "┏" in written("t.txt")


def test_the_report_is_built_once_for_several_files(
    db: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wirespeed.report
    from wirespeed.report import build_report

    built = []

    def counted(*args: object, **kwargs: object) -> object:
        built.append(1)
        return build_report(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(wirespeed.report, "build_report", counted)
    argv = ["report", "--db", db, "-o", str(tmp_path / "a.md"), "-o", str(tmp_path / "a.json")]
    status, _, err = run_cli(*argv)
    assert status == 0, err
    assert len(built) == 1


def test_format_given_applies_to_every_file(db: str, tmp_path: Path) -> None:
    md, txt = tmp_path / "named.md", tmp_path / "named.txt"
    status, _, err = run_cli(
        "report", "--db", db, "--format", "json", "-o", str(md), "-o", str(txt)
    )
    assert status == 0, err
    assert json.loads(md.read_text())["format"] == "wirespeed-report"
    assert txt.read_text() == md.read_text()


@pytest.mark.parametrize("name", ["t.xlsx", "t", "t.md.bak"])
def test_an_extension_that_names_no_format_is_refused_before_any_file(
    db: str, tmp_path: Path, name: str
) -> None:
    good = tmp_path / "first.md"
    status, out, err = run_cli("report", "--db", db, "-o", str(good), "-o", str(tmp_path / name))
    assert status == 2
    assert out == "" and "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith(f"wirespeed: error: -o {tmp_path / name}: cannot tell the format")
    assert ".md, .markdown, .html, .htm, .csv, .json, .txt" in first
    assert "--format" in err
    assert not good.exists()  # every path and format is checked before anything is written


def test_an_unknown_extension_is_fine_with_format(db: str, tmp_path: Path) -> None:
    target = tmp_path / "t.data"
    status, _, err = run_cli("report", "--db", db, "--format", "csv", "-o", str(target))
    assert status == 0, err
    assert target.read_text() == _stdout("report", "--db", db, "--format", "csv")


def test_the_same_file_twice_is_refused(db: str, tmp_path: Path) -> None:
    once = tmp_path / "t.md"
    twice = tmp_path / "." / "t.md"
    status, _, err = run_cli("report", "--db", db, "-o", str(once), "-o", str(twice))
    assert status == 2
    assert err.splitlines()[0] == (
        f"wirespeed: error: -o {twice}: the same file as -o {once}: give each file once"
    )
    assert not once.exists()


def test_compare_writes_each_file_in_its_extensions_format(db: str, tmp_path: Path) -> None:
    argv = ["compare", "1", "2", "--db", db]
    for name in ("c.md", "c.csv", "c.json", "c.txt"):
        argv += ["-o", str(tmp_path / name)]
    status, out, err = run_cli(*argv)
    assert status == 0, err
    assert out == ""
    for name, fmt in [("c.md", "markdown"), ("c.csv", "csv"), ("c.json", "json")]:
        expected = _stdout("compare", "1", "2", "--db", db, "--format", fmt)
        assert (tmp_path / name).read_text() == expected, name
    assert (tmp_path / "c.txt").read_text() == _stdout("compare", "1", "2", "--db", db)
    assert json.loads((tmp_path / "c.json").read_text())["format"] == "wirespeed-compare-runs"


def test_compare_writes_html_by_its_extension(db: str, tmp_path: Path) -> None:
    # HTML, as every format, is the table of runs (analysis/compare_many.py).
    status, _, err = run_cli("compare", "1", "2", "--db", db, "-o", str(tmp_path / "c.html"))
    assert status == 0, err
    page = (tmp_path / "c.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and "2 runs compared" in page
