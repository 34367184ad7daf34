"""Which store a command uses (--db, then WIRESPEED_DB, then the default), and where it
says so: `runs` names it, `--help` shows the default. On the real CLI, on SQLite and on
the shared PostgreSQL server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from store_backends import POSTGRES_ENV, fresh_store

from support.cli import run_cli

SEED = Path(__file__).parents[2] / "fixtures" / "seeds" / "r2s-br0-test1.txt"


@pytest.fixture
def default_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """This user's default store, in a temporary data directory; no WIRESPEED_DB."""
    for name in ("WIRESPEED_DB", "SUDO_USER", "SUDO_UID", "SUDO_GID"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    return tmp_path / "data" / "wirespeed" / "wirespeed.db"


def runs_in(*db: str) -> list[dict[str, object]]:
    status, out, err = run_cli("runs", "--json", *db)
    assert status == 0, err
    runs: list[dict[str, object]] = json.loads(out)["runs"]
    return runs


def test_wirespeed_db_names_the_store_when_no_db_is_given(
    default_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chosen = tmp_path / "chosen.db"
    monkeypatch.setenv("WIRESPEED_DB", str(chosen))
    status, _, err = run_cli("import", "--title", "by WIRESPEED_DB", str(SEED))
    assert status == 0, err
    assert chosen.is_file() and not default_store.exists()
    status, out, _ = run_cli("runs")
    assert status == 0
    assert "by WIRESPEED_DB" in out
    assert out.rstrip().splitlines()[-1] == f"store: {chosen}"  # which store, under the table
    # --db comes first: the default store was never made.
    assert not default_store.exists()


def test_an_empty_wirespeed_db_is_as_unset(
    default_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WIRESPEED_DB", "")
    status, _, err = run_cli("import", "--title", "default", str(SEED))
    assert status == 0, err
    assert default_store.is_file()
    status, out, _ = run_cli("runs")
    assert out.rstrip().endswith(f"store: {default_store}")


def test_runs_without_runs_says_which_store_is_empty(default_store: Path) -> None:
    status, out, err = run_cli("runs")
    assert status == 0 and out == ""
    assert f"no runs yet in {default_store}" in err


@pytest.mark.parametrize(
    "argv",
    [
        ("runs",),
        ("report",),
        ("report", "--format", "json"),
        ("compare", "1", "2"),
        ("soak", "--report"),
        ("soak", "--compare"),
    ],
)
def test_a_reading_command_never_makes_a_store_at_a_mistyped_db(
    tmp_path: Path, argv: tuple[str, ...]
) -> None:
    typo = tmp_path / "typo.db"
    status, out, err = run_cli(*argv, "--db", str(typo))
    assert status == 2, err
    assert f"no store at {typo}: the file does not exist" in err
    assert out == "" and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []


def test_the_default_store_is_read_as_empty_before_anything_made_it(
    default_store: Path,
) -> None:
    status, _, err = run_cli("report")
    assert status == 2 and "no runs stored yet" in err
    status, _, err = run_cli("soak", "--report")
    assert status == 2 and "no soak in the store" in err
    assert not default_store.parent.exists()


def test_wirespeed_db_takes_a_postgresql_url(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not os.environ.get(POSTGRES_ENV):
        pytest.skip(f"no PostgreSQL: set {POSTGRES_ENV}")
    with fresh_store("postgresql", tmp_path) as url:
        monkeypatch.setenv("WIRESPEED_DB", url)
        status, _, err = run_cli("import", "--title", "shared", str(SEED))
        assert status == 0, err
        status, out, err = run_cli("runs", "--json")
        assert status == 0, err
        document = json.loads(out)
        assert document["store"] == url  # no password in the test server's URL to mask
        assert [run["title"] for run in document["runs"]] == ["shared"]
        assert run_cli("runs")[1].rstrip().endswith(f"store: {url}")


@pytest.mark.parametrize("command", ["run", "import", "runs", "report", "compare", "tune"])
def test_help_of_a_command_that_takes_db_names_the_default_and_wirespeed_db(
    command: str, default_store: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, _ = run_cli(command, "--help", usage_exit_as_status=True)
    assert status == 0
    # argparse wraps the help, a long path too (also at its dashes): compare without spaces.
    text = "".join(capsys.readouterr().out.split())
    assert "$WIRESPEED_DB" in text
    assert str(default_store) in text
