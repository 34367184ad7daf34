"""An ad-hoc run as a person sees it: in a real terminal (tmux), its progress bar while
the test runs, then the table with the figure and its ceiling."""

from __future__ import annotations

import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from lab_runs import namespaces_of, unique_prefix

pytestmark = [pytest.mark.root, pytest.mark.slow]

WIRESPEED = Path(sys.executable).with_name("wirespeed")


def screen(socket: str, session: str) -> str:
    shown = subprocess.run(
        ["tmux", "-S", socket, "capture-pane", "-p", "-t", session],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return shown.stdout


def wait_for(socket: str, session: str, wanted: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = screen(socket, session)
        if wanted in text:
            return text
        time.sleep(0.1)
    raise AssertionError(f"{wanted!r} never appeared on the screen:\n{screen(socket, session)}")


@pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux (apt-get install tmux)")
def test_the_progress_line_then_the_table_appear_in_a_terminal(tmp_path: Path) -> None:
    prefix = unique_prefix("tmux")
    # A tmux server of our own, its socket in the test's directory: with -L it would be
    # left in /tmp/tmux-UID after the server ends.
    socket, session = str(tmp_path / "tmux"), "adhoc"
    command = shlex.join(
        [str(WIRESPEED), "run", "-c", "lab:bridge:fe", "-t", "3", "--lab-name", prefix,
         "--db", str(tmp_path / "runs.db")]
    )  # fmt: skip
    subprocess.run(
        ["tmux", "-u", "-S", socket, "-f", "/dev/null", "new-session", "-d", "-s", session,
         "-x", "120", "-y", "50", "sh"],
        check=True,
    )  # fmt: skip
    try:
        subprocess.run(
            ["tmux", "-S", socket, "send-keys", "-t", session, f"{command}; echo exit=$?", "Enter"],
            check=True,
        )
        progress = wait_for(socket, session, "[1/1] bridge #1 TCP, iperf3", timeout=30)
        assert "ETA" in progress  # the bar, counted in seconds of test time
        final = wait_for(socket, session, "exit=0", timeout=60)
        assert "[1/1]" not in final  # the bar is gone once the run ends
        assert "✓ bridge #1 TCP, iperf3  up " in final
        row = next(line for line in final.splitlines() if line.startswith("│ 1 TCP, iperf3"))
        figure, ceiling = row.split("│")[2].split("/")
        assert ceiling.strip() == "94.1"  # TCP at 100 Mbit/s (LIMITS.md)
        assert 47 < float(figure) <= 94.6  # sanity bounds: not a benchmark
        assert "run 1 stored; `wirespeed report 1` shows it again" in final
    finally:
        subprocess.run(["tmux", "-S", socket, "kill-server"], check=False)
        Path(socket).unlink(missing_ok=True)
    assert namespaces_of(prefix) == []
