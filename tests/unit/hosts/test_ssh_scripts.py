"""The SSH device scripts, run for real by busybox sh (`sh -s`, the script on stdin) with
only busybox's applets on PATH, as on an OpenWrt box; the work directory is under
tmp_path instead of /tmp/wirespeed.

Every process the scripts start has its working directory under tmp_path (the scripts
run there, and each program runs in its own directory below the session's), so the
fixture finds them all through /proc/<pid>/cwd: tests check with it that nothing is
left, and teardown kills whatever a failed test left behind.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from wirespeed.hosts import ssh_scripts as scripts
from wirespeed.hosts.ssh import LOST, parse_poll

BUSYBOX = shutil.which("busybox")
pytestmark = pytest.mark.skipif(BUSYBOX is None, reason="needs busybox (apt-get install busybox)")

BOUNDARY = "@@wirespeed-0123456789abcdef"
Polled = tuple[int, int | None, bytes, bytes]  # what parse_poll gives for one program

# Each must reach the program as one argument, byte for byte, and never run anything.
HOSTILE = (
    "a;b",
    "$(touch PWNED1)",
    "`touch PWNED2`",
    "'; touch PWNED3; '",
    '"; touch PWNED4; "',
    'it\'s "quoted"',
    "x\ny",
    "\n",
    "",
    " leading space",
    "-n",
    "--",
    "-e",
    "--help",
    "back\\slash \\n \\c",
    "$HOME ${IFS} $0 $1 $$",
    "*",
    "tab\there",
    "a | touch PWNED5 && touch PWNED6 &",
    "> PWNED7",
    "héllo €",
)


def _busybox_bin(directory: Path, without: tuple[str, ...] = ()) -> Path:
    """A directory of busybox applets (symlinks), as OpenWrt's /bin is."""
    assert BUSYBOX is not None
    directory.mkdir()
    applets = subprocess.run(
        [BUSYBOX, "--list"], capture_output=True, text=True, check=True, timeout=10
    ).stdout.split()
    for applet in applets:
        if "/" not in applet and applet not in without:
            (directory / applet).symlink_to(BUSYBOX)
    return directory


def processes_under(path: Path) -> list[int]:
    """Live processes whose working directory is path or below it (a deleted directory
    reads `... (deleted)`; a zombie has no working directory and is not counted)."""
    prefix = str(path)
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
        except OSError:
            continue
        if cwd == prefix or cwd.startswith(prefix + "/"):
            found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    """Running, not gone and not a zombie."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return not handle.read().rsplit(") ", 1)[1].startswith("Z")
    except FileNotFoundError:
        return False


def _until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        time.sleep(0.02)


@dataclass
class Device:
    """Where the scripts run: tmp_path as working directory, busybox on PATH."""

    home: Path  # the working directory of every script (tmp_path)
    root: Path  # the work root, in place of /tmp/wirespeed
    path: str  # PATH for the scripts

    def sh(self, script: str, *, path: str | None = None) -> subprocess.CompletedProcess[bytes]:
        assert BUSYBOX is not None
        return subprocess.run(
            [BUSYBOX, "sh", "-s"],
            check=False,
            input=script.encode(),
            capture_output=True,
            cwd=self.home,
            env={"PATH": path or self.path, "HOME": str(self.home)},
            timeout=30,
        )

    def base(self, name: str = "session") -> str:
        return str(self.root / name)

    def launch(self, base: str, number: int, argv: list[str], lease: int = 30) -> int:
        done = self.sh(scripts.launch(base, number, argv, lease=lease))
        assert done.returncode == 0, done.stderr
        return int(done.stdout)

    def status(self, base: str, number: int, timeout: float = 10.0) -> str:
        status = Path(base) / str(number) / "status"
        _until(status.exists, timeout, f"{status} written")
        return status.read_text().strip()

    def poll(self, base: str, *watched: scripts.Watched) -> list[Polled]:
        done = self.sh(scripts.poll(base, list(watched), BOUNDARY))
        assert done.returncode == 0, done.stderr
        return parse_poll(done.stdout, BOUNDARY.encode())

    def leftovers(self) -> list[int]:
        return processes_under(self.home)


@pytest.fixture(scope="session")
def busybox_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(_busybox_bin(tmp_path_factory.mktemp("busybox") / "bin"))


@pytest.fixture
def device(tmp_path: Path, busybox_path: str) -> Iterator[Device]:
    home = tmp_path / "home"
    home.mkdir()
    device = Device(home=home, root=home / "wirespeed", path=busybox_path)
    try:
        yield device
    finally:
        deadline = time.monotonic() + 5
        while (left := device.leftovers()) and time.monotonic() < deadline:
            for pid in left:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
            time.sleep(0.05)
        assert not device.leftovers(), "processes of the test outlived its teardown"


def _pwned(home: Path) -> list[Path]:
    return sorted(home.rglob("PWNED*"))


# -- launch ------------------------------------------------------------------------------


@pytest.mark.process
def test_launch_prints_the_pid_and_the_program_writes_out_err_and_status(device: Device) -> None:
    base = device.base()
    pid = device.launch(base, 1, ["sh", "-c", "echo to-out; echo to-err >&2; exit 3"])
    directory = Path(base) / "1"
    assert device.status(base, 1) == "3"
    assert (directory / "pid").read_text().strip() == str(pid)
    assert (directory / "out").read_text() == "to-out\n"
    assert (directory / "err").read_text() == "to-err\n"
    assert (directory / "cmd").read_text() == "sh\n"
    boot = Path("/proc/sys/kernel/random/boot_id").read_text()
    assert (Path(base) / "boot").read_text() == boot
    watchdog = int((Path(base) / "watchdog").read_text())
    assert _alive(watchdog)
    # The files are the session's own: umask 077.
    assert (directory / "out").stat().st_mode & 0o077 == 0


@pytest.mark.process
def test_the_printed_pid_is_the_program_itself(device: Device) -> None:
    base = device.base()
    pid = device.launch(base, 1, ["sleep", "600"])

    def cmdline() -> list[bytes]:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return handle.read().split(b"\0")[:2]

    # The PID is written right after the fork: the exec may come a moment later.
    _until(lambda: cmdline() == [b"sleep", b"600"], 5, "the pid runs sleep 600")
    assert os.readlink(f"/proc/{pid}/cwd") == f"{base}/1"
    # Its stdin is /dev/null, not the script: it cannot eat the rest of it.
    assert os.readlink(f"/proc/{pid}/fd/0") == "/dev/null"


@pytest.mark.process
def test_a_second_identical_launch_prints_the_same_pid_and_starts_nothing(device: Device) -> None:
    base = device.base()
    first = device.launch(base, 1, ["sleep", "600"])
    program = sorted(processes_under(Path(base) / "1"))  # the program and its waiting shell
    watchdog = (Path(base) / "watchdog").read_text()
    second = device.launch(base, 1, ["sleep", "600"])
    assert second == first
    assert sorted(processes_under(Path(base) / "1")) == program  # no second program
    assert (Path(base) / "watchdog").read_text() == watchdog  # no second watchdog
    assert _alive(first) and _alive(int(watchdog))


@pytest.mark.process
def test_each_number_gets_its_own_program_and_the_session_one_watchdog(device: Device) -> None:
    base = device.base()
    first = device.launch(base, 1, ["sleep", "600"])
    watchdog = (Path(base) / "watchdog").read_text()
    second = device.launch(base, 2, ["sleep", "600"])
    assert first != second
    assert (Path(base) / "watchdog").read_text() == watchdog
    assert _alive(first) and _alive(second)


@pytest.mark.process
def test_hostile_arguments_round_trip_exactly_and_never_run(device: Device) -> None:
    base = device.base()
    device.launch(base, 1, ["printf", "%s\\n", *HOSTILE])
    assert device.status(base, 1) == "0"
    out = (Path(base) / "1" / "out").read_bytes().decode()
    assert out == "".join(argument + "\n" for argument in HOSTILE)
    assert not _pwned(device.home)


@pytest.mark.process
def test_a_hostile_program_path_is_run_as_the_one_file_it_names(device: Device) -> None:
    # A program whose file name is itself hostile (argv[0] goes through every path of the
    # script: cmd, the exec, messages).
    name = "prog 'q' \"d\" $(touch PWNED1) `touch PWNED2`; touch PWNED3 \\c -n"
    program = device.home / name
    program.write_text('#!/bin/sh\nprintf \'%s\\n\' "$0" "$@"\n')
    program.chmod(0o755)
    base = device.base()
    device.launch(base, 1, [str(program), "-n", "$(touch PWNED4)"])
    assert device.status(base, 1) == "0"
    out = (Path(base) / "1" / "out").read_text()
    assert out == f"{program}\n-n\n$(touch PWNED4)\n"
    assert (Path(base) / "1" / "cmd").read_text() == f"{program}\n"
    assert not _pwned(device.home)


@pytest.mark.process
def test_a_missing_program_ends_with_127_and_says_so(device: Device) -> None:
    base = device.base()
    device.launch(base, 1, ["no-such-program-anywhere", "x"])
    assert device.status(base, 1) == "127"
    assert "no-such-program-anywhere" in (Path(base) / "1" / "err").read_text()


@pytest.mark.process
def test_a_launch_that_cannot_record_the_pid_fails_without_running_argv0(
    device: Device, tmp_path: Path
) -> None:
    # Without mv the PID never lands in its file: the launch gives up (exit 93) and its
    # message names the program without running what the name says.
    no_mv = _busybox_bin(tmp_path / "no-mv", without=("mv",))
    base = device.base()
    done = device.sh(scripts.launch(base, 1, ["$(touch PWNED1)`touch PWNED2`"]), path=str(no_mv))
    assert done.returncode == 93
    assert b"no pid for" in done.stderr
    assert b"$(touch PWNED1)`touch PWNED2`" in done.stderr
    assert not _pwned(device.home)


@pytest.mark.process
def test_a_directory_without_a_pid_is_reported_without_running_the_path(device: Device) -> None:
    base = device.base("s $(touch PWNED1) `touch PWNED2`")
    (Path(base) / "1").mkdir(parents=True)  # a launch that died before writing its pid
    done = device.sh(scripts.launch(base, 1, ["true"]))
    assert done.returncode == 91
    assert f"{base}/1 exists without a pid".encode() in done.stderr
    assert not _pwned(device.home)


def test_an_empty_argv_is_refused() -> None:
    with pytest.raises(ValueError):
        scripts.launch("/tmp/wirespeed/x", 1, [])


# -- poll --------------------------------------------------------------------------------

# Binary-ish bytes, UTF-8 characters of 2, 3 and 4 bytes, CR, NUL, and no final newline.
PAYLOAD_OUT = "line one\nhé € 𝄞\r\n\x00\x01\x7f".encode() + b"\xff\xfe raw" + "ünd".encode()
PAYLOAD_ERR = "warning: ∆\nno newline at the end".encode()


def _writer(device: Device) -> list[str]:
    (device.home / "out.bin").write_bytes(PAYLOAD_OUT)
    (device.home / "err.bin").write_bytes(PAYLOAD_ERR)
    return ["sh", "-c", 'cat "$1"; cat "$2" >&2', "sh", "../../../out.bin", "../../../err.bin"]


@pytest.mark.process
def test_poll_returns_exactly_the_bytes_after_each_offset(device: Device) -> None:
    base = device.base()
    device.launch(base, 1, _writer(device))
    assert device.status(base, 1) == "0"
    offsets = sorted({0, 1, 9, 10, 11, 12, 17, 20, len(PAYLOAD_OUT) - 1, len(PAYLOAD_OUT)})
    for out_offset in offsets:
        err_offset = min(out_offset, len(PAYLOAD_ERR))
        found = device.poll(base, scripts.Watched(1, out_offset, err_offset))
        assert found == [(1, 0, PAYLOAD_OUT[out_offset:], PAYLOAD_ERR[err_offset:])], out_offset


@pytest.mark.process
def test_poll_reads_several_programs_at_once(device: Device) -> None:
    base = device.base()
    device.launch(base, 1, _writer(device))
    device.launch(base, 2, ["sh", "-c", "printf 'x\\n'; exit 4"])
    device.launch(base, 3, ["sleep", "600"])
    device.launch(base, 4, ["sh", "-c", "printf ''"])
    for number in (1, 2, 4):
        device.status(base, number)
    found = device.poll(
        base,
        scripts.Watched(1, 5, 0),
        scripts.Watched(2, 0, 0),
        scripts.Watched(3, 0, 0),
        scripts.Watched(4, 0, 0),
    )
    assert found == [
        (1, 0, PAYLOAD_OUT[5:], PAYLOAD_ERR),
        (2, 4, b"x\n", b""),
        (3, None, b"", b""),
        (4, 0, b"", b""),
    ]


@pytest.mark.process
def test_poll_follows_output_as_it_grows(device: Device) -> None:
    base = device.base()
    script = "printf 'a\\nb'; while [ ! -e go ]; do sleep 0.05; done; printf 'c\\n'"
    device.launch(base, 1, ["sh", "-c", script])
    out_file = Path(base) / "1" / "out"
    _until(lambda: out_file.read_bytes() == b"a\nb", 10, "the first output")
    first = device.poll(base, scripts.Watched(1, 0, 0))
    assert first == [(1, None, b"a\nb", b"")]
    (Path(base) / "1" / "go").touch()
    device.status(base, 1)
    assert device.poll(base, scripts.Watched(1, 3, 0)) == [(1, 0, b"c\n", b"")]


@pytest.mark.process
def test_poll_renews_the_lease(device: Device) -> None:
    base = device.base()
    device.launch(base, 1, ["true"])
    lease = Path(base) / "lease"
    lease.unlink(missing_ok=True)
    device.poll(base, scripts.Watched(1, 0, 0))
    assert lease.exists()


@pytest.mark.process
def test_poll_reports_a_program_whose_files_are_gone_as_lost(device: Device) -> None:
    # The watchdog (or a reboot) removed the session: the program's end can never be
    # seen, so it must not look like it is still running.
    base = device.base()
    device.launch(base, 1, ["true"])
    device.status(base, 1)
    found = device.poll(base, scripts.Watched(1, 0, 0), scripts.Watched(9, 0, 0))
    assert found == [(1, 0, b"", b""), (9, LOST, b"", b"")]


@pytest.mark.process
def test_a_status_of_death_by_signal_reads_as_minus_the_signal(device: Device) -> None:
    base = device.base()
    pid = device.launch(base, 1, ["sleep", "600"])
    os.kill(pid, signal.SIGKILL)
    assert device.status(base, 1) == str(128 + signal.SIGKILL)
    assert device.poll(base, scripts.Watched(1, 0, 0)) == [(1, -signal.SIGKILL, b"", b"")]


# -- signal --------------------------------------------------------------------------------


@pytest.mark.process
def test_signal_reaches_a_running_program(device: Device) -> None:
    base = device.base()
    pid = device.launch(base, 1, ["sleep", "600"])
    done = device.sh(scripts.signal(base, 1, pid, "TERM"))
    assert done.returncode == 0
    assert device.status(base, 1) == str(128 + signal.SIGTERM)


@pytest.mark.process
def test_signal_does_nothing_once_the_status_exists(device: Device) -> None:
    base = device.base()
    device.launch(base, 1, ["true"])
    assert device.status(base, 1) == "0"
    # The program's PID now belongs to a stranger: here, a sleep of the test's own.
    with subprocess.Popen(["sleep", "600"], cwd=device.home) as stranger:
        try:
            for name in ("TERM", "KILL"):
                done = device.sh(scripts.signal(base, 1, stranger.pid, name))
                assert done.returncode == 0
            time.sleep(0.1)
            assert stranger.poll() is None
        finally:
            stranger.kill()


@pytest.mark.process
def test_signal_to_a_program_already_gone_is_quiet(device: Device) -> None:
    done = device.sh(scripts.signal(device.base(), 5, 2**22 + 1, "TERM"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


# -- close -------------------------------------------------------------------------------


@pytest.mark.process
def test_close_stops_every_program_and_the_watchdog_and_removes_the_session(
    device: Device,
) -> None:
    base = device.base()
    programs = [device.launch(base, number, ["sleep", "600"]) for number in (1, 2)]
    device.launch(base, 3, ["true"])
    device.status(base, 3)
    # One that shrugs off SIGTERM: the close gives up waiting and uses SIGKILL.
    stubborn = device.launch(base, 4, ["sh", "-c", "trap '' TERM; while :; do sleep 1; done"])
    started = time.monotonic()
    done = device.sh(scripts.close(base))
    took = time.monotonic() - started
    assert done.returncode == 0, done.stderr
    assert not Path(base).exists()
    assert not device.root.exists(), "the one session gone, no work root is left"
    assert took < 6
    # SIGKILL is sent last, just before the close ends: its target may take a moment.
    _until(lambda: not any(_alive(pid) for pid in [*programs, stubborn]), 3, "all stopped")
    # The stubborn sh's last `sleep 1` child may take a second to end on its own.
    _until(lambda: not device.leftovers(), 3, "nothing of the session left running")


@pytest.mark.process
def test_close_of_a_session_that_does_not_exist_is_harmless(device: Device) -> None:
    done = device.sh(scripts.close(device.base("never")))
    assert done.returncode == 0, done.stderr


@pytest.mark.process
def test_close_leaves_other_sessions_alone(device: Device) -> None:
    mine, other = device.base("mine"), device.base("other")
    device.launch(mine, 1, ["sleep", "600"])
    theirs = device.launch(other, 1, ["sleep", "600"])
    assert device.sh(scripts.close(mine)).returncode == 0
    assert not Path(mine).exists()
    assert Path(other).exists() and _alive(theirs)
    assert device.sh(scripts.close(other)).returncode == 0
    assert not device.root.exists(), "the last session's close leaves no work root"


@pytest.mark.process
def test_close_leaves_a_work_root_that_holds_anything_else(device: Device) -> None:
    base = device.base()
    device.launch(base, 1, ["true"])
    (device.root / "not-a-session").write_text("kept\n")
    assert device.sh(scripts.close(base)).returncode == 0
    assert not Path(base).exists()
    assert (device.root / "not-a-session").read_text() == "kept\n"


# -- sweep ---------------------------------------------------------------------------------


@pytest.mark.process
def test_sweep_removes_a_session_whose_watchdog_is_dead_and_keeps_a_live_one(
    device: Device,
) -> None:
    live, dead = device.base("live"), device.base("dead")
    live_program = device.launch(live, 1, ["sleep", "600"])
    dead_program = device.launch(dead, 1, ["sleep", "600"])
    dead_watchdog = int((Path(dead) / "watchdog").read_text())
    os.kill(dead_watchdog, signal.SIGKILL)  # as if its wirespeed and watchdog were gone
    # Reaped, not only dead: `kill -0` (what sweep asks) still finds a zombie.
    _until(lambda: not os.path.exists(f"/proc/{dead_watchdog}"), 5, "the watchdog reaped")
    done = device.sh(scripts.sweep(str(device.root)))
    assert done.returncode == 0, done.stderr
    assert not Path(dead).exists()
    _until(lambda: not _alive(dead_program), 5, "the dead session's program killed")
    assert Path(live).exists() and _alive(live_program)


@pytest.mark.process
def test_sweep_after_a_reboot_removes_the_files_but_kills_no_stranger(device: Device) -> None:
    # A session from an earlier boot: its PIDs now belong to others (here the test's own
    # sleep), so only its files go.
    with subprocess.Popen(["sleep", "600"], cwd=device.home) as stranger:
        try:
            old = Path(device.base("old-boot"))
            (old / "1").mkdir(parents=True)
            (old / "boot").write_text("00000000-0000-0000-0000-000000000000\n")
            (old / "watchdog").write_text(f"{2**22 + 1}\n")
            (old / "1" / "pid").write_text(f"{stranger.pid}\n")
            done = device.sh(scripts.sweep(str(device.root)))
            assert done.returncode == 0, done.stderr
            assert not old.exists()
            time.sleep(0.1)
            assert stranger.poll() is None
        finally:
            stranger.kill()


@pytest.mark.process
def test_sweep_of_an_empty_or_missing_root_is_harmless(device: Device) -> None:
    assert device.sh(scripts.sweep(str(device.root))).returncode == 0
    device.root.mkdir()
    assert device.sh(scripts.sweep(str(device.root))).returncode == 0


# -- the watchdog --------------------------------------------------------------------------


@pytest.mark.process
def test_the_watchdog_cleans_up_a_session_whose_lease_is_not_renewed(device: Device) -> None:
    base = device.base()
    program = device.launch(base, 1, ["sleep", "600"], lease=1)
    watchdog = int((Path(base) / "watchdog").read_text())
    _until(lambda: not Path(base).exists(), 8, "the session removed by its watchdog")
    _until(lambda: not _alive(program), 5, "the program stopped")
    _until(lambda: not _alive(watchdog), 5, "the watchdog ended")
    _until(lambda: not device.leftovers(), 5, "nothing left")


@pytest.mark.process
def test_the_watchdog_keeps_a_session_whose_lease_is_renewed(device: Device) -> None:
    base = device.base()
    program = device.launch(base, 1, ["sleep", "600"], lease=1)
    watchdog = int((Path(base) / "watchdog").read_text())
    renew_until = time.monotonic() + 3.5  # three lease periods and a half
    while time.monotonic() < renew_until:
        device.poll(base, scripts.Watched(1, 0, 0))
        time.sleep(0.2)
    assert Path(base).exists()
    assert _alive(program) and _alive(watchdog)
    # Then the close ends the watchdog too.
    assert device.sh(scripts.close(base)).returncode == 0
    _until(lambda: not _alive(watchdog), 5, "the watchdog ended by the close")
    _until(lambda: not device.leftovers(), 5, "nothing left")


@pytest.mark.process
def test_the_watchdog_ends_quietly_when_the_session_is_removed_under_it(device: Device) -> None:
    base = device.base()
    device.launch(base, 1, ["true"], lease=1)
    device.status(base, 1)
    watchdog = int((Path(base) / "watchdog").read_text())
    shutil.rmtree(base)
    _until(lambda: not _alive(watchdog), 5, "the watchdog ended")
