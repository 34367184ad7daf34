"""Colour as no-color.org and force-color.org define it: NO_COLOR (non-empty) turns it
off and wins, FORCE_COLOR (non-empty) turns it on without a terminal, an empty value is
unset, and otherwise a terminal decides. Checked on the terminal report, in-process and
in a real process whose stdout is a pipe or a pseudo-terminal."""

from __future__ import annotations

import io
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.cli.env import Environment, colour_from

SEEDS = Path(__file__).parents[2] / "fixtures" / "seeds"
ESCAPE = "\x1b["


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A store holding one run imported from the seed's iperf outputs."""
    path = str(tmp_path_factory.mktemp("colour") / "runs.db")
    files = [str(SEEDS / f"r2s-br0-test{n}.txt") for n in range(1, 4)]
    status, _, err = run_cli("import", "--db", path, "--title", "R2S Br0", *files)
    assert status == 0, err
    return path


@pytest.fixture
def clean(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for variable in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({}, None),
        ({"NO_COLOR": ""}, None),  # empty: as if unset (no-color.org)
        ({"NO_COLOR": "1"}, False),
        ({"NO_COLOR": "0"}, False),  # any value but ""
        ({"FORCE_COLOR": ""}, None),
        ({"FORCE_COLOR": "1"}, True),
        ({"FORCE_COLOR": "0"}, True),  # any value but "", as rich reads it
        ({"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),  # NO_COLOR wins
        ({"FORCE_COLOR": "1", "NO_COLOR": ""}, True),
    ],
)
def test_colour_from_the_environment(environ: dict[str, str], expected: bool | None) -> None:
    assert colour_from(environ) is expected


def _report(db: str, clean: pytest.MonkeyPatch, **environ: str) -> str:
    for name, value in environ.items():
        clean.setenv(name, value)
    status, out, err = run_cli("report", "--db", db, colour_from_environment=True)
    assert status == 0, err
    return out


def test_force_colour_colours_output_that_is_no_terminal(
    db: str, clean: pytest.MonkeyPatch
) -> None:
    assert ESCAPE not in _report(db, clean)
    coloured = _report(db, clean, FORCE_COLOR="1")
    assert ESCAPE in coloured and "R2S Br0" in coloured
    assert ESCAPE not in _report(db, clean, FORCE_COLOR="")


def test_no_colour_wins_over_force_colour(db: str, clean: pytest.MonkeyPatch) -> None:
    assert ESCAPE not in _report(db, clean, FORCE_COLOR="1", NO_COLOR="1")
    # An empty NO_COLOR is no NO_COLOR: FORCE_COLOR still holds.
    assert ESCAPE in _report(db, clean, FORCE_COLOR="1", NO_COLOR="")


def test_an_empty_no_colour_leaves_a_terminal_coloured(clean: pytest.MonkeyPatch) -> None:
    def printed(**environ: str) -> str:
        for name in ("NO_COLOR", "FORCE_COLOR"):
            clean.delenv(name, raising=False)
        for name, value in environ.items():
            clean.setenv(name, value)
        buffer = io.StringIO()
        Environment(stdout=buffer, stdout_is_tty=True).console().print("[red]red[/red]")
        return buffer.getvalue()

    assert ESCAPE in printed()
    assert ESCAPE in printed(NO_COLOR="")
    assert ESCAPE not in printed(NO_COLOR="1")
    assert ESCAPE in printed(FORCE_COLOR="")  # rich alone would take "" for "no terminal"


def test_a_file_written_with_o_stays_plain_under_force_colour(
    db: str, clean: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    clean.setenv("FORCE_COLOR", "1")
    table = tmp_path / "table.txt"
    status, _, err = run_cli("report", "--db", db, "-o", str(table), colour_from_environment=True)
    assert status == 0, err
    assert "R2S Br0" in table.read_text() and ESCAPE not in table.read_text()


def test_force_colour_draws_no_progress_bar_into_a_log(
    clean: pytest.MonkeyPatch,
) -> None:
    from wirespeed.cli.progress import RichProgress
    from wirespeed.model import (
        PathSpec,
        TestCase,
        TestSpec,
        Tool,
        Topology,
        Trial,
        TrialOutcome,
        TrialStatus,
    )

    clean.setenv("FORCE_COLOR", "1")
    log = io.StringIO()
    trial = Trial(
        test=TestCase(id="1", name="tcp", tool=Tool.IPERF3, spec=TestSpec(duration=1)),
        path=PathSpec(name="p", topology=Topology.ENDPOINT, client="a", server="b"),
    )
    progress = RichProgress(Environment(stderr=log, stderr_is_tty=False).progress_console())
    progress.start([trial])
    progress.trial_started(trial)
    progress.tick(0.5)
    progress.trial_finished(
        TrialOutcome(
            trial=trial, status=TrialStatus.FAILED, started_at=0.0, finished_at=1.0, reason="x"
        )
    )
    progress.close()
    text = log.getvalue()
    assert "✗ p #1 tcp  failed: x\n" in text
    # No bar redrawn in place (cursor moves, erased lines): a log is read top to bottom.
    assert "ETA" not in text
    for control in ("\x1b[1A", "\x1b[2K", "\r"):
        assert control not in text, repr(text)


# -- a real process -----------------------------------------------------------------------

_MAIN = "import sys; from wirespeed.cli.app import main; sys.exit(main())"


def _environ(**changes: str) -> dict[str, str]:
    environ = {
        k: v
        for k, v in os.environ.items()
        if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")
    }
    environ["TERM"] = "xterm-256color"
    return environ | changes


def _through_a_pipe(db: str, **environ: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", _MAIN, "report", "--db", db],
        capture_output=True,
        text=True,
        env=_environ(**environ),
        timeout=60,
        check=True,
    )
    return done.stdout


def _on_a_terminal(db: str, **environ: str) -> str:
    """The report as a terminal receives it: stdout is a pseudo-terminal."""
    leader, follower = pty.openpty()
    with open(leader, "rb", buffering=0) as reader:
        process = subprocess.Popen(
            [sys.executable, "-c", _MAIN, "report", "--db", db],
            stdout=follower,
            stderr=subprocess.PIPE,
            env=_environ(**environ),
        )
        os.close(follower)
        received = bytearray()
        while True:
            try:
                chunk = reader.read(65536)
            except OSError:  # EIO: the process closed its end
                break
            if not chunk:
                break
            received += chunk
        _, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    return received.decode()


@pytest.mark.process
def test_a_real_process_follows_no_colour_and_force_colour(db: str) -> None:
    # Four processes: the rest of the matrix is checked in-process above.
    assert ESCAPE not in _through_a_pipe(db)
    assert ESCAPE in _through_a_pipe(db, FORCE_COLOR="1")
    assert ESCAPE in _on_a_terminal(db, NO_COLOR="")
    assert ESCAPE not in _on_a_terminal(db, NO_COLOR="1")
