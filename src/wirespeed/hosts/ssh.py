"""A device reached over SSH as a Host: nothing installed on it, busybox is enough.

    host = SshHost(SshTarget.parse("root@192.168.1.1"), SshSettings())
    host.run(["cat", "/proc/loadavg"])            # one session, then closed
    server = host.start(["iperf3", "-s", "-1"])   # runs on the device, owned by PID
    ...
    host.close()                                   # stops whatever still runs, cleans up

Commands are argv lists: run() quotes them once (shlex) for the login shell, and
start() hands them to a script as quoted words (ssh_scripts.py), so no value from a plan
or a device is ever interpreted by a shell.

Programs started with start() run in the background on the device, writing to files of
their own (see ssh_scripts.py); a poller thread reads what is new, once a second while
nobody is waiting and every POLL_FAST seconds while someone is (wait(), stop(), a loop
calling poll() or stdout()). One connection carries all of it, one command at a time.
"""

from __future__ import annotations

import codecs
import contextlib
import secrets
import signal as signals
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from wirespeed.errors import HostError, MissingToolError
from wirespeed.hosts import ssh_scripts as scripts
from wirespeed.hosts.base import Completed, terminate
from wirespeed.hosts.ssh_channel import quote_argv
from wirespeed.hosts.ssh_connection import SshConnection
from wirespeed.hosts.ssh_destination import SshError, SshSettings, resolve

if TYPE_CHECKING:
    from wirespeed.hosts.ssh_target import SshTarget

POLL_IDLE = 1.0
POLL_FAST = 0.1
# A caller that asked within this many seconds counts as waiting.
_WAITING_WINDOW = 0.5
_COMMAND_TIMEOUT = 15.0
# Exit status when the program's end could not be observed (the device went away).
LOST = -255

_SIGNAL_NAMES: dict[int, str] = {
    signals.SIGTERM: "TERM",
    signals.SIGKILL: "KILL",
    signals.SIGINT: "INT",
    # By name: their numbers differ between architectures (10 and 12 on x86 and ARM, 16
    # and 17 on the MIPS of many routers).
    signals.SIGUSR1: "USR1",
    signals.SIGUSR2: "USR2",
}


class SshProcess:
    """A program running on an SSH device; implements hosts.base.Process."""

    def __init__(
        self,
        host: SshHost,
        number: int,
        pid: int,
        argv: Sequence[str],
        on_line: Callable[[str], None] | None,
    ) -> None:
        self._host = host
        self.number = number
        self._pid = pid
        self._argv = tuple(argv)
        self._on_line = on_line
        self._out: list[str] = []
        self._err: list[str] = []
        self._partial = ""
        self._out_decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self._err_decoder = codecs.getincrementaldecoder("utf-8")("replace")
        self.out_offset = 0
        self.err_offset = 0
        self._status: int | None = None
        # When the status last fed was true on the device: the poll's sending time.
        self._status_as_of = time.time()
        self._ended = threading.Event()
        self._lock = threading.Lock()
        self.callback_error: BaseException | None = None
        self.lost_reason: str | None = None

    @property
    def pid(self) -> int:
        return self._pid

    @property
    def argv(self) -> tuple[str, ...]:
        return self._argv

    # -- fed by the poller --------------------------------------------------------------

    def feed(self, out: bytes, err: bytes, status: int | None, as_of: float | None = None) -> None:
        if as_of is not None:
            self._status_as_of = max(self._status_as_of, as_of)
        with self._lock:
            self.out_offset += len(out)
            self.err_offset += len(err)
            text = self._out_decoder.decode(out, final=status is not None)
            self._err.append(self._err_decoder.decode(err, final=status is not None))
            self._out.append(text)
        self._lines(text, final=status is not None)
        if status is not None and self._status is None:
            self._status = status
            self._ended.set()

    def mark_lost(self, reason: str) -> None:
        """The device cannot tell any more how this program ended."""
        if self._status is None:
            self.lost_reason = reason
            with self._lock:
                self._err.append(f"\nwirespeed: {reason}\n")
            self._status = LOST
            self._ended.set()

    def _lines(self, text: str, final: bool) -> None:
        if self._on_line is None:
            return
        pending = self._partial + text
        *complete, self._partial = pending.split("\n")
        if final and self._partial:
            complete.append(self._partial)
            self._partial = ""
        for line in complete:
            try:
                self._on_line(line)
            except Exception as error:  # kept for the owner to report, as LocalProcess does
                if self.callback_error is None:
                    self.callback_error = error

    # -- Process ------------------------------------------------------------------------

    def poll(self) -> int | None:
        if self._status is None:
            self._host.hurry()
        return self._status

    def status_as_of(self) -> float:
        return time.time() if self._status is not None else self._status_as_of

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self._ended.is_set():
            self._host.hurry()
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError(
                    f"{self._argv[0]} (pid {self._pid} on {self._host.name}) still runs "
                    f"after {timeout} s"
                )
            self._ended.wait(POLL_FAST if left is None else min(POLL_FAST, left))
        assert self._status is not None
        return self._status

    def send_signal(self, sig: int = signals.SIGTERM) -> None:
        if self._status is not None:
            return
        name = _SIGNAL_NAMES.get(sig, str(int(sig)))
        with contextlib.suppress(HostError, TimeoutError):
            self._host.command(scripts.signal(self._host.base, self.number, self._pid, name))

    def stop(self, grace: float = 1.0) -> int:
        status = terminate(self, grace)
        if status is not None:
            return status
        with contextlib.suppress(TimeoutError):
            return self.wait(3.0)
        self.mark_lost(f"{self._argv[0]} did not end after SIGKILL")
        return self.wait()

    def stdout(self) -> str:
        if self._status is None:
            self._host.hurry()
        with self._lock:
            return "".join(self._out)

    def stderr(self) -> str:
        with self._lock:
            return "".join(self._err)


class SshHost:
    """A device over SSH; implements hosts.base.Host. close() it when done."""

    def __init__(
        self,
        target: SshTarget,
        settings: SshSettings | None = None,
        *,
        name: str | None = None,
    ) -> None:
        self.settings = settings or SshSettings()
        self.target = target
        self.destination = resolve(target, self.settings)
        self._name = name or str(self.destination)
        self.connection = SshConnection(self.destination, self.settings)
        self.base = f"{scripts.WORK_ROOT}/{secrets.token_hex(6)}"
        self._processes: dict[int, SshProcess] = {}
        self._next_number = 1
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._asked_at = 0.0
        self._poller: threading.Thread | None = None
        self._closing = threading.Event()
        self._swept = False
        self._forget: list[int] = []  # ended programs whose files can go

    def __repr__(self) -> str:
        return f"SshHost({self._name!r})"

    @property
    def name(self) -> str:
        return self._name

    # -- plumbing -----------------------------------------------------------------------

    def connect(self) -> None:
        """Log in now, and clean what an earlier session that died left on the device."""
        self.connection.connect()
        if not self._swept:
            self._swept = True
            with contextlib.suppress(HostError, TimeoutError):
                self.command(scripts.sweep())

    def command(self, script: str, *, timeout: float = _COMMAND_TIMEOUT, retry: bool = True) -> str:
        """Run a script with the device's sh; its stdout. HostError if it fails."""
        result = self.connection.execute(
            scripts.SHELL, stdin=script.encode(), timeout=timeout, retry=retry
        )
        if result.status != 0:
            said = result.stderr.decode(errors="replace").strip()
            raise HostError(f"a command failed on {self._name} (exit {result.status}): {said}")
        return result.stdout.decode(errors="replace")

    def hurry(self) -> None:
        """Someone is waiting for news: poll often for a while."""
        self._asked_at = time.monotonic()
        self._wake.set()

    # -- Host ---------------------------------------------------------------------------

    def start(
        self,
        argv: Sequence[str],
        *,
        on_line: Callable[[str], None] | None = None,
    ) -> SshProcess:
        if not argv:
            raise ValueError("argv must not be empty")
        with self._lock:
            number = self._next_number
            self._next_number += 1
        # Retrying is safe: a second launch finds the directory and prints the same PID.
        text = self.command(scripts.launch(self.base, number, argv)).strip()
        try:
            pid = int(text.splitlines()[-1])
        except (ValueError, IndexError):
            raise HostError(f"could not start {argv[0]} on {self._name}: {text!r}") from None
        process = SshProcess(self, number, pid, argv, on_line)
        with self._lock:
            self._processes[number] = process
        self._ensure_poller()
        return process

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        result = self.connection.execute(quote_argv(argv), timeout=timeout)
        stderr = result.stderr.decode(errors="replace")
        if result.status == 127 and "not found" in stderr:
            raise MissingToolError(argv[0], self._name)
        return Completed(tuple(argv), result.status, result.stdout.decode(errors="replace"), stderr)

    def read_file(self, path: str) -> str:
        result = self.connection.execute(quote_argv(["cat", "--", path]), timeout=_COMMAND_TIMEOUT)
        if result.status != 0:
            said = result.stderr.decode(errors="replace").strip()
            if "No such file" in said or "No such process" in said:
                raise FileNotFoundError(2, "No such file or directory", path)
            raise HostError(f"cannot read {path} on {self._name}: {said}")
        return result.stdout.decode(errors="replace")

    def write_file(self, path: str, text: str) -> None:
        # printf writes its argument with one write(): sysfs knobs take one write's value.
        argv = ["sh", "-c", 'printf %s "$1" > "$2"', "sh", text, path]
        result = self.connection.execute(quote_argv(argv), timeout=_COMMAND_TIMEOUT)
        if result.status != 0:
            said = result.stderr.decode(errors="replace").strip()
            raise HostError(f"cannot write {path} on {self._name}: {said}")

    def which(self, program: str) -> str | None:
        result = self.connection.execute(
            quote_argv(["sh", "-c", 'command -v "$1"', "sh", program]), timeout=_COMMAND_TIMEOUT
        )
        found = result.stdout.decode(errors="replace").strip()
        return found if result.status == 0 and found else None

    def close(self) -> None:
        """Stop every program still running, remove the session's files, disconnect."""
        self._closing.set()
        self._wake.set()
        if self._poller is not None:
            self._poller.join(5.0)
        with self._lock:
            started = self._next_number > 1
            live = [p for p in self._processes.values() if p._status is None]
        if started:
            try:
                self.command(scripts.close(self.base), timeout=10.0)
            except (HostError, TimeoutError) as error:
                for process in live:
                    process.mark_lost(f"could not stop it on {self._name}: {error}")
        for process in live:
            process.mark_lost("the session was closed")
        self.connection.close()

    # -- the poller ---------------------------------------------------------------------

    def _ensure_poller(self) -> None:
        # The poller clears self._poller under the lock when it decides to end, so a
        # process registered before that is seen by it, and one after starts a new one.
        with self._lock:
            if self._poller is not None:
                return
            self._poller = threading.Thread(
                target=self._poll_loop, name=f"ssh-poll:{self._name}", daemon=True
            )
            self._poller.start()

    def _running(self) -> list[SshProcess]:
        with self._lock:
            running = [p for p in self._processes.values() if p._status is None]
            for number in [n for n, p in self._processes.items() if p._status is not None]:
                # Read to the end: only the files are left, and they go with the next poll.
                # One lost from sight may still run: its pid file is how close() finds it.
                if self._processes.pop(number).lost_reason is None:
                    self._forget.append(number)
            return running

    def _poll_loop(self) -> None:
        try:
            self._poll_until_idle()
        finally:
            with self._lock:
                if self._poller is threading.current_thread():
                    self._poller = None

    def _poll_until_idle(self) -> None:
        while not self._closing.is_set():
            running = self._running()
            if not running:
                with self._lock:
                    if any(p._status is None for p in self._processes.values()):
                        continue  # one was started meanwhile
                    self._poller = None
                return
            try:
                self._poll_once(running)
            except (HostError, TimeoutError) as error:
                if not self.connection.connected and not _still_reachable(self):
                    for process in running:
                        process.mark_lost(f"lost contact with {self._name}: {error}")
                    return
            waiting = time.monotonic() - self._asked_at < _WAITING_WINDOW
            self._wake.clear()
            self._wake.wait(POLL_FAST if waiting else POLL_IDLE)

    def _poll_once(self, running: list[SshProcess]) -> None:
        boundary = f"@@wirespeed-{secrets.token_hex(8)}"
        watched = [scripts.Watched(p.number, p.out_offset, p.err_offset) for p in running]
        with self._lock:
            forget, self._forget = self._forget, []
        asked = time.time()
        result = self.connection.execute(
            scripts.SHELL,
            stdin=scripts.poll(self.base, watched, boundary, forget).encode(),
            timeout=_COMMAND_TIMEOUT,
        )
        by_number = {p.number: p for p in running}
        for number, status, out, err in parse_poll(result.stdout, boundary.encode()):
            process = by_number.get(number)
            if process is None:
                continue
            if status == LOST:  # its directory is gone: its end can never be seen
                process.feed(out, err, None)
                process.mark_lost(
                    f"its files on {self._name} are gone (the device rebooted, or the "
                    "session was cleaned up while out of contact): how it ended is unknown"
                )
            else:
                process.feed(out, err, status, as_of=asked)


def _still_reachable(host: SshHost) -> bool:
    try:
        host.connection.connect()
    except SshError:
        return False
    return True


def parse_poll(data: bytes, boundary: bytes) -> list[tuple[int, int | None, bytes, bytes]]:
    """The poll script's output -> (number, exit status or None, new stdout, new stderr)."""
    found: list[tuple[int, int | None, bytes, bytes]] = []
    marker = b"\n" + boundary + b"\n"
    rest = data
    while rest.startswith(b"@@p "):
        header, _, rest = rest.partition(b"\n")
        words = header.split()
        out, found_out, rest = rest.partition(marker)
        err, found_err, rest = rest.partition(marker)
        if not (found_out and found_err):
            break  # cut short (the script was killed): what is there may be a marker's start
        try:
            number = int(words[1])
        except (IndexError, ValueError):
            break
        status_text = words[2].decode() if len(words) > 2 else "-"
        status: int | None = None
        if status_text != "-":
            try:
                status = _exit_status(int(status_text))
            except ValueError:
                status = LOST
        found.append((number, status, out, err))
    return found


def _exit_status(shell_status: int) -> int:
    """sh reports death by signal N as 128+N; subprocess says -N, and so do we."""
    if 128 < shell_status <= 128 + 64:
        return -(shell_status - 128)
    return shell_status
