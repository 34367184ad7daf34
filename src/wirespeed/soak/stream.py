"""The soak's probe stream: irtt runs one chunk after another, back to back.

Each chunk is an irtt client run of `seconds`; the next is started as the previous one
sends its last probe (not when it exits: irtt then waits for late answers, three times
the largest round trip), so the probes of two chunks follow each other without a gap.
A chunk keeps nothing in wirespeed's memory but its own output, and is parsed and
dropped as soon as it ends: a soak of any length holds one or two chunks at a time.

A chunk cannot start while the path is down: irtt opens its session with a packet the
server must answer (it exits with "no reply from server" once its open timeouts pass).
While that happens, start_when_up() starts a new attempt every RETRY_SECONDS, each
with one open timeout of OPEN_TIMEOUT, until one holds: the path's return is seen to
RETRY_SECONDS. The time until that chunk's first probe is part of the outage (a blind
span: chunk.blind_chunk).
"""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wirespeed.errors import WirespeedError
from wirespeed.hosts.base import Host, Process
from wirespeed.hosts.sockets import listening
from wirespeed.model import Proto
from wirespeed.tools.irtt import server_address

__all__ = [
    "OPEN_TIMEOUT",
    "RETRY_SECONDS",
    "IrttServer",
    "Started",
    "client_argv",
    "discard",
    "output_path",
    "remove_left_outputs",
    "start_chunk",
    "start_when_up",
    "wait_held",
]

PROGRAM = "irtt"
OPEN_TIMEOUT = 0.2  # irtt's shortest
RETRY_SECONDS = 0.1
# An attempt still running this long after it started has its session open: a failed
# open exits after OPEN_TIMEOUT.
HELD_AFTER = OPEN_TIMEOUT + 0.25
READY_TIMEOUT = 5.0


def client_argv(
    target: str, seconds: float, interval: float, port: int, output: str = "-"
) -> list[str]:
    """irtt's client; its JSON to `output` (a path ending in .json: not gzipped)."""
    return [
        PROGRAM, "client",
        "-i", f"{round(interval * 1e6)}us",
        "-d", f"{round(seconds * 1000)}ms",
        "-Q", "-o", output,
        f"--timeouts={round(OPEN_TIMEOUT * 1000)}ms",
        "--wait=3x1s",
        server_address(target, port),
    ]  # fmt: skip


@dataclass
class Started:
    """One irtt client run: its process, when it started (wall clock), for how long."""

    process: Process
    started_at: float
    seconds: float
    output: str = "-"  # where irtt writes its JSON on the client: "-" is its stdout
    # When the start returned: the program runs by then (over SSH, a launch can take a
    # few tenths of a second after started_at).
    launched_at: float = 0.0

    @property
    def sending_ends(self) -> float:
        return self.started_at + self.seconds

    def held(self) -> bool | None:
        """True once its session is open, False if it failed to open, None: too early.
        Running is judged as of when the status was true: over SSH a failed open is seen
        only at the next poll, and a status older than HELD_AFTER proves nothing."""
        status = self.process.poll()
        if status is not None:
            return status == 0
        since = max(self.started_at, self.launched_at)
        return True if self.process.status_as_of() - since >= HELD_AFTER else None


def start_chunk(
    client: Host, target: str, seconds: float, interval: float, port: int, *, output: str = "-"
) -> Started:
    started_at = time.time()
    argv = client_argv(target, seconds, interval, port, output)
    process = client.start(argv)
    return Started(process, started_at, seconds, output, launched_at=time.time())


def output_path(started_at: float) -> str:
    """Where a chunk's irtt writes its JSON on the client. A file, not irtt's stdout:
    2.4 MB a minute of indented JSON read line by line are 270,000 small strings per
    chunk, and the allocator did not give their memory back (the resident size grew by
    MBs a chunk); a file is read as one string."""
    return f"{OUTPUT_DIRECTORY}/wirespeed-soak-{os.getpid()}-{round(started_at * 1000)}.json"


OUTPUT_DIRECTORY = Path("/tmp")
_OUTPUT_NAME = re.compile(r"^wirespeed-soak-(\d+)-\d+\.json$")


def remove_left_outputs(directory: Path = OUTPUT_DIRECTORY) -> list[Path]:
    """Remove the chunk files (output_path) of soaks whose process is gone: a soak killed
    with SIGKILL leaves the file of each chunk in progress, up to a few MB. A file whose
    PID runs is left alone (that soak is reading it, or will be). The removed paths."""
    removed = []
    for path in directory.glob("wirespeed-soak-*.json"):
        found = _OUTPUT_NAME.match(path.name)
        if found is None or Path(f"/proc/{found[1]}").exists():
            continue
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
            removed.append(path)
    return removed


def wait_held(started: Started, keep_going: Callable[[], bool]) -> bool:
    while keep_going():
        held = started.held()
        if held is not None:
            return held
        time.sleep(0.02)
    return False


def start_when_up(
    client: Host,
    *,
    target: str,
    seconds: float,
    interval: float,
    port: int,
    keep_going: Callable[[], bool],
) -> Started | None:
    """Attempts every RETRY_SECONDS until one holds (returned; the others are stopped),
    or keep_going() says stop (None)."""
    attempts: list[Started] = []
    try:
        while keep_going():
            if not attempts or time.time() - attempts[-1].started_at >= RETRY_SECONDS:
                attempts.append(
                    start_chunk(
                        client, target, seconds, interval, port, output=output_path(time.time())
                    )
                )
            for attempt in list(attempts):
                held = attempt.held()
                if held:
                    attempts.remove(attempt)
                    return attempt
                if held is False:
                    attempts.remove(attempt)
                    discard(client, attempt)
            time.sleep(0.01)
        return None
    finally:
        for attempt in attempts:
            discard(client, attempt)


def discard(client: Host, started: Started) -> None:
    """Stop an attempt not wanted, and remove what it may have written."""
    if started.process.poll() is None:
        started.process.stop(grace=0.2)
    if started.output != "-":
        with contextlib.suppress(Exception):
            client.run(["rm", "-f", started.output], timeout=10)


@dataclass
class IrttServer:
    """`irtt server` on the soak's server host, for the whole soak."""

    host: Host
    port: int
    process: Process | None = field(default=None, init=False)

    def start(self) -> None:
        if listening(self.host, None, self.port, Proto.UDP):
            raise WirespeedError(
                f"UDP port {self.port} is taken on {self.host.name}: an irtt server already "
                "running? (soak: port)"
            )
        # -i 0: no minimum interval. irtt's server raises a client's interval below its
        # 10 ms default, and the client then gives up ("server increased interval").
        process = self.host.start([PROGRAM, "server", "-b", f":{self.port}", "-i", "0"])
        deadline = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < deadline:
            if process.poll() is not None:
                said = (process.stderr() or process.stdout()).strip().splitlines()
                raise WirespeedError(
                    f"the irtt server on {self.host.name} exited: {said[-1] if said else '?'}"
                )
            if listening(self.host, process.pid, self.port, Proto.UDP):
                self.process = process
                return
            time.sleep(0.01)
        process.stop()
        raise WirespeedError(f"the irtt server on {self.host.name} did not listen")

    def stop(self) -> None:
        if self.process is not None:
            self.process.stop(grace=0.5)
            self.process = None
