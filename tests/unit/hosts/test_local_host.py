"""LocalHost runs real programs: output, callbacks, timeouts, groups and errors."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from wirespeed.errors import MissingToolError
from wirespeed.hosts.local import LocalHost
from wirespeed.hosts.netns import procfs_path_in_thread


def _dead(pid: int) -> bool:
    """Gone, or a zombie waiting for whoever inherited it to reap it."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(") ", 1)[1].startswith("Z")
    except FileNotFoundError:
        return True


@pytest.mark.process
def test_run_returns_output_and_status() -> None:
    done = LocalHost().run(["sh", "-c", "echo out; echo err >&2; exit 3"])
    assert (done.returncode, done.stdout, done.stderr) == (3, "out\n", "err\n")
    assert done.argv == ("sh", "-c", "echo out; echo err >&2; exit 3")


@pytest.mark.process
def test_run_kills_a_program_that_overstays_its_timeout() -> None:
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        LocalHost().run(["sleep", "30"], timeout=0.2)
    assert time.monotonic() - started < 3


@pytest.mark.process
def test_start_streams_each_stdout_line_to_the_callback() -> None:
    lines: list[str] = []
    process = LocalHost().start(["printf", "a\\nb\\nc\\n"], on_line=lines.append)
    assert process.wait(5) == 0
    assert lines == ["a", "b", "c"]
    assert process.stdout() == "a\nb\nc\n"


@pytest.mark.process
def test_a_failing_callback_does_not_stop_the_reader() -> None:
    def explode(line: str) -> None:
        raise RuntimeError(line)

    process = LocalHost().start(["seq", "1", "20000"], on_line=explode)
    assert process.wait(10) == 0
    assert process.stdout().endswith("20000\n")
    assert isinstance(process.callback_error, RuntimeError)


@pytest.mark.process
def test_stop_kills_the_whole_process_group() -> None:
    # sh ignores TERM here, and its child sleeps: both must die, by SIGKILL after grace.
    script = "trap '' TERM; sleep 30 & echo $!; wait"
    process = LocalHost().start(["sh", "-c", script])
    deadline = time.monotonic() + 5
    while not process.stdout():
        assert time.monotonic() < deadline
        time.sleep(0.01)
    child = int(process.stdout().split()[0])
    status = process.stop(grace=0.2)
    assert status == -signal.SIGKILL
    deadline = time.monotonic() + 5
    while not _dead(child):
        assert time.monotonic() < deadline, "the child outlived its group"
        time.sleep(0.01)
    assert process.poll() == status
    process.send_signal()  # after reaping: a no-op, never a stranger's process


@pytest.mark.process
def test_wait_raises_timeout_error_while_it_still_runs() -> None:
    process = LocalHost().start(["sleep", "5"])
    with pytest.raises(TimeoutError):
        process.wait(0.05)
    assert process.poll() is None
    process.stop()


@pytest.mark.process
def test_a_missing_program_names_the_package_to_install() -> None:
    with pytest.raises(MissingToolError) as raised:
        LocalHost().start(["iperf-that-does-not-exist"])
    assert raised.value.tool == "iperf-that-does-not-exist"
    with pytest.raises(MissingToolError):
        LocalHost().run(["/nonexistent/bin/ip"])


def test_files_and_which(tmp_path: object) -> None:
    host = LocalHost()
    path = os.path.join(str(tmp_path), "knob")
    host.write_file(path, "1\n")
    assert host.read_file(path) == "1\n"
    with pytest.raises(FileNotFoundError):
        host.read_file(path + ".missing")
    assert host.which("sh") is not None
    assert host.which("no-such-program-anywhere") is None
    assert host.which(os.path.basename(sys.executable)) is not None


def test_proc_net_is_read_through_the_thread_own_namespace() -> None:
    assert procfs_path_in_thread("/proc/net/dev") == "/proc/thread-self/net/dev"
    assert procfs_path_in_thread("/proc/self/net/tcp6") == "/proc/thread-self/net/tcp6"
    assert procfs_path_in_thread("/proc/1234/net/tcp") == "/proc/1234/net/tcp"
    assert procfs_path_in_thread("/proc/sys/net/ipv4/ip_forward") == (
        "/proc/sys/net/ipv4/ip_forward"
    )
