"""The CLI as a user meets it: help, version, usage errors and their exit statuses."""

from __future__ import annotations

import subprocess
import sys

import pytest

from support.cli import run_cli
from wirespeed.cli.exit import ExitStatus


def test_help_lists_every_command_and_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = run_cli("--help", usage_exit_as_status=True)
    text = capsys.readouterr().out
    assert status == 0
    for command in ("run", "lab", "import", "runs", "report"):
        assert command in text
    assert "2 bad input" in text


def test_no_command_prints_help_and_exits_2() -> None:
    status, out, _ = run_cli()
    assert status == ExitStatus.USAGE
    assert "usage: wirespeed" in out


def test_unknown_option_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, _ = run_cli("run", "--durration", "3", "plan.yaml", usage_exit_as_status=True)
    assert status == 2
    assert "unrecognized arguments" in capsys.readouterr().err


def test_missing_plan_file_is_a_usage_error_without_traceback(tmp_path: object) -> None:
    status, _, err = run_cli("run", "/nonexistent/plan.yaml")
    assert status == ExitStatus.USAGE
    assert "Traceback" not in err
    assert "/nonexistent/plan.yaml" in err


def test_negative_duration_is_refused() -> None:
    status, _, err = run_cli("run", "plan.yaml", "--duration", "-1")
    assert status == ExitStatus.USAGE
    assert "--duration must be positive" in err


@pytest.mark.process
def test_help_answers_without_importing_heavy_modules() -> None:
    """`wirespeed --help` must not pay for rich, SQLAlchemy or pydantic."""
    code = (
        "import sys\n"
        "from wirespeed.cli.app import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "heavy = [m for m in ('rich', 'sqlalchemy', 'pydantic', 'ruamel') if m in sys.modules]\n"
        "print('HEAVY:' + ','.join(heavy))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "HEAVY:"
