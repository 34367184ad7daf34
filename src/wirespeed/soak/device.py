"""Following the DUT through a soak from a thread of its own, so that the probe stream
never waits for the device's management plane.

    follower = DeviceFollower(host, interfaces=["eth0"])
    follower.start()            # first contact: boot id, uptime, the first sampler
    ...
    follower.rotate()           # at each chunk's end: a fresh sampler (never blocks)
    taken = follower.take()     # what was seen since the last take (never blocks)
    follower.stop()

Every CHECK_EVERY s the thread asks the device for its uptime and boot id (one short
command). An answer later than ANSWER_TIMEOUT s means the device does not answer: from
the start of that question until the first answer again is a DeviceEvent "no-answer".
When it answers again the thread re-attaches a sampler at once (the old one may have
died with its session), and reads back with `dmesg` what the kernel logged meanwhile:
a device that freezes writes its last words then, and no sampler was there to read
them. Kernel lines are told apart by their time since boot and text, so a line read by
two samplers, or by a sampler and `dmesg`, is kept once. A boot id that changed, or an
uptime that went back, is a DeviceEvent "restart", dated from when the device was
last heard: the start of the silence it caused, or its last answer when none was seen.

A sampler that ends on its own while the device answers (killed, its session lost) is
said in a note, its place taken by a new one at once, and what the kernel logged since
it started read back with `dmesg`.

`lab`: the lab a lab DUT belongs to. Every lab DUT reads this machine's kernel log, so
the lines another lab's faults write (`wirespeed-lab[OTHER]: ...`) are left out, and a
note says that the other lines may be this machine's or another lab's.

`root`: where the device's /proc is read for uptime and boot id; "/" on a device, a
directory of look-alike files in a test (a network namespace cannot restart).
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from wirespeed.errors import HostError
from wirespeed.hosts.base import Host
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.session import RunningSampler, Sampler
from wirespeed.soak.durations import duration_text
from wirespeed.soak.matching import KernelEvent, kernel_event

__all__ = ["DeviceEvent", "DeviceFollower", "Taken", "parse_dmesg", "restart_detail"]

CHECK_EVERY = 1.0
ANSWER_TIMEOUT = 2.0
SAMPLER_INTERVAL = 5.0
# Kernel lines this far (device seconds) behind the newest are no longer compared with:
# samplers overlap by 2 s, and `dmesg` after a silence is read from its start.
_SEEN_KEPT_S = 600.0
_DMESG_LINE = re.compile(r"^(?:<\d+>)?\[\s*(?P<s>\d+)\.(?P<us>\d{1,9})\] ?(?P<message>.*)$")
_CHECK = "cat {root}proc/uptime {root}proc/sys/kernel/random/boot_id"
_LAB_LINE = re.compile(r"^wirespeed-lab\[(?P<lab>[^\]]*)\]:")


@dataclass(frozen=True)
class DeviceEvent:
    """The device did not answer from `at` until `end`, or restarted (at `at`, about
    when it booted; `end` when it was seen)."""

    kind: str  # "no-answer" or "restart"
    host: str
    at: float  # wall clock, seconds
    end: float
    detail: str = ""

    @property
    def duration(self) -> float:
        return max(0.0, self.end - self.at)

    def describe(self) -> str:
        if self.kind == "restart":
            return f"{self.host} restarted" + (f" ({self.detail})" if self.detail else "")
        return f"{self.host} did not answer for {duration_text(self.duration)}"

    def to_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "host": self.host,
            "at": round(self.at, 3),
            "end": round(self.end, 3),
            "detail": self.detail,
        }

    @classmethod
    def from_dict(cls, row: dict[str, object]) -> DeviceEvent:
        at, end = row["at"], row["end"]
        assert isinstance(at, (int, float)) and isinstance(end, (int, float))
        return cls(str(row["kind"]), str(row["host"]), float(at), float(end), str(row["detail"]))


@dataclass
class Taken:
    kernel: list[KernelEvent] = field(default_factory=list)
    device: list[DeviceEvent] = field(default_factory=list)
    counters: dict[str, dict[str, int]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class CounterSource(Protocol):
    """What DeviceFollower reads counters from: their changes since the last read."""

    def read(self) -> dict[str, dict[str, int]]: ...


def parse_dmesg(text: str) -> list[tuple[int, str]]:
    """busybox (or util-linux) `dmesg` -> (microseconds since boot, message) per line."""
    lines = []
    for line in text.splitlines():
        if found := _DMESG_LINE.match(line):
            usec = int(found["s"]) * 1_000_000 + int(found["us"].ljust(6, "0")[:6])
            lines.append((usec, found["message"]))
    return lines


def _uptime_text(seconds: float) -> str:
    if seconds >= 86400:
        return f"{seconds / 86400:.1f} d"
    return duration_text(seconds)


def restart_detail(before: tuple[float, str], after: tuple[float, str]) -> str | None:
    """Why (uptime, boot id) `after` is a new boot since `before`; None if it is not."""
    new_id = bool(before[1] and after[1] and before[1] != after[1])
    went_back = after[0] < before[0]
    said = []
    if went_back:
        said.append(f"uptime went from {_uptime_text(before[0])} to {_uptime_text(after[0])}")
    if new_id:
        said.append("new boot id")
    return "; ".join(said) or None


def does_not_answer(host: Host, error: BaseException) -> str:
    """A failure to reach the device, in words: not paramiko's "No existing session"."""
    if isinstance(error, (HostError, OSError)):
        return f"the device {host.name} does not answer"
    return f"{host.name}: {error}"


class DeviceFollower:
    """See the module's docstring. Counters: a callable read at each rotation (the
    device's `ethtool -S` deltas), or None."""

    def __init__(
        self,
        host: Host,
        *,
        root: str = "/",
        counters: CounterSource | None = None,
        check_every: float = CHECK_EVERY,
        answer_timeout: float = ANSWER_TIMEOUT,
        lab: str | None = None,
    ) -> None:
        self.host = host
        self.root = root.rstrip("/") + "/"
        self.counters = counters
        self.check_every = check_every
        self.answer_timeout = answer_timeout
        self.lab = lab
        self._lock = threading.Lock()
        self._taken = Taken()
        self._stop = threading.Event()
        self._rotate = threading.Event()
        self._rotated = threading.Event()
        self._wake = threading.Event()
        self._sampler: RunningSampler | None = None
        self._seen: dict[tuple[int, str], int] = {}
        self._boot: tuple[float, str] | None = None
        self._last_answer = time.time()
        self._silent_since: float | None = None
        self._failed_to_follow = False
        self._thread = threading.Thread(target=self._run, name="soak-device", daemon=True)
        self._question: threading.Thread | None = None
        self._answer: tuple[float, str] | BaseException | None = None

    # -- the soak's side: none of these waits for the device ----------------------------

    def start(self) -> None:
        """First contact, before the stream starts: the device is asked its boot and a
        sampler is started and waited for (a failure is a note, not an error)."""
        if self.lab is not None:
            self._note(
                "the lab DUT's kernel log is this machine's, shared by every lab: its lines "
                "may be this machine's or another lab's (the lines other labs' faults "
                "write are left out)"
            )
        try:
            self._boot = self._ask()
            self._last_answer = time.time()
            readable = self.host.run(["sh", "-c", "test -r /dev/kmsg"], timeout=10)
            if readable.returncode != 0:
                self._note(
                    f"the kernel log could not be followed: {self.host.name} does not let "
                    "/dev/kmsg be read"
                )
                self._failed_to_follow = True
        except Exception as error:
            self._note(f"the kernel log could not be followed: {does_not_answer(self.host, error)}")
            self._failed_to_follow = True
        self._attach(first=True)
        self._thread.start()

    def rotate(self) -> None:
        self._rotated.clear()
        self._rotate.set()
        self._wake.set()

    def take(self, wait: float = 0.0) -> Taken:
        """What was seen since the last take; `wait`: at most this long for a rotation
        asked for to be done (its sampler's lines and the counters belong to the chunk
        that just ended), never longer, so a silent device holds up nothing."""
        if wait > 0:
            self._rotated.wait(wait)
        with self._lock:
            taken, self._taken = self._taken, Taken()
        return taken

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread.is_alive():  # never started when the first contact was interrupted
            self._thread.join(timeout=30)
        if self._silent_since is not None:
            # Still silent at the end: the event lasts until now.
            self._device_event("no-answer", self._silent_since, time.time())
            self._silent_since = None
        sampler, self._sampler = self._sampler, None
        if sampler is not None:
            self._collect(sampler)
        self._rotated.set()

    # -- the thread -----------------------------------------------------------------------

    def _run(self) -> None:
        while True:
            if self._silent_since is None:
                self._wake.wait(self.check_every)  # a rotation or stop() wakes it early
            self._wake.clear()
            if self._stop.is_set():
                return
            asked = time.time()
            answer = self._answer_within(self.answer_timeout)
            if answer is None or isinstance(answer, BaseException):
                if self._silent_since is None:
                    self._silent_since = asked
                if isinstance(answer, BaseException):
                    self._stop.wait(0.5)  # a quick refusal: ask again shortly
                continue
            if self._silent_since is not None:
                self._recovered(answer)
            else:
                self._check_boot(answer, time.time())
                if self._sampler_ended():
                    self._attach(lost=True)
            if self._rotate.is_set():
                self._rotate.clear()
                self._attach()
                self._rotated.set()

    def _ask(self) -> tuple[float, str]:
        result = self.host.run(
            ["sh", "-c", _CHECK.format(root=self.root)], timeout=self.answer_timeout + 8
        )
        words = result.stdout.split()
        if result.returncode != 0 or not words:
            raise RuntimeError(result.stderr.strip() or f"exit status {result.returncode}")
        uptime = float(words[0])
        boot_id = words[2] if len(words) > 2 else ""
        return uptime, boot_id

    def _answer_within(self, timeout: float) -> tuple[float, str] | BaseException | None:
        """The device's (uptime, boot id), the error it gave, or None: no answer within
        `timeout`. A question left unanswered is waited for by the next call instead
        of asking again (one connection carries one command at a time)."""
        if self._question is None:
            self._answer = None

            def ask() -> None:
                try:
                    self._answer = self._ask()
                except BaseException as error:  # handed to the follower's thread
                    self._answer = error

            self._question = threading.Thread(target=ask, name="soak-device-ask", daemon=True)
            self._question.start()
        self._question.join(timeout)
        if self._question.is_alive():
            return None
        self._question = None
        return self._answer

    def _sampler_ended(self) -> bool:
        """The sampler ended on its own (its session lost, killed) while the device
        answers: the kernel's lines since would be lost."""
        sampler = self._sampler
        return sampler is not None and not sampler.alive

    def _recovered(self, answer: tuple[float, str]) -> None:
        since, now = self._silent_since, time.time()
        assert since is not None
        self._silent_since = None
        self._device_event("no-answer", since, now)
        self._check_boot(answer, now, went_away=since)
        self._attach()
        self._read_back(since)

    def _check_boot(
        self, answer: tuple[float, str], now: float, *, went_away: float | None = None
    ) -> None:
        """`went_away`: when the device stopped answering, if it did."""
        before, self._boot = self._boot, answer
        last, self._last_answer = self._last_answer, now
        if before is None:
            return
        detail = restart_detail(before, answer)
        if detail is not None:
            # It booted `uptime` ago, and after it was last heard: its silence's start
            # (its last answer came up to a check's interval before it went away). A
            # device whose clock since boot does not start at its restart, as a lab's,
            # is held to that.
            heard = went_away if went_away is not None else last
            self._device_event("restart", max(now - answer[0], heard), now, detail)

    def _attach(self, *, first: bool = False, lost: bool = False) -> None:
        """A new sampler, then the old one's lines collected (they overlap). `lost`: the
        old one ended on its own, which is said, and the kernel log since its start is
        read back."""
        old = self._sampler
        try:
            new = Sampler.start(self.host, interval=SAMPLER_INTERVAL)
            if not new.wait_until_ready():
                with contextlib.suppress(Exception):
                    self._collect(new)
                raise RuntimeError("the sampler did not start")
            self._sampler = new
        except Exception as error:
            self._sampler = None
            if not self._failed_to_follow:
                self._note(
                    "the kernel log could not be followed: " + does_not_answer(self.host, error)
                )
            self._failed_to_follow = True
        if old is not None:
            self._collect(old, lost=lost)
            if lost:
                self._read_back(old.started_at)
        if self.counters is not None and self._silent_since is None:
            with contextlib.suppress(Exception):
                deltas = self.counters.read()
                with self._lock:
                    for name, changed in deltas.items():
                        into = self._taken.counters.setdefault(name, {})
                        for key, value in changed.items():
                            into[key] = into.get(key, 0) + value

    def _collect(self, sampler: RunningSampler, *, lost: bool = False) -> None:
        try:
            samples = sampler.stop()
        except Exception as error:
            self._note(f"a kernel log reader was lost: {does_not_answer(self.host, error)}")
            return
        if samples.partial and not samples.kernel and not samples.snapshots:
            self._note(f"the kernel log could not be followed: {samples.reason}")
            # Said with its own reason: not again by _attach as the device not answering.
            self._failed_to_follow = True
        elif lost:
            why = samples.reason or "it ended before it was stopped"
            self._note(
                f"a kernel log reader was lost: {why}; a new one took its place, and what "
                "the kernel logged meanwhile was read back with dmesg"
            )
        self._kernel_lines(samples, sampler.started_at)

    def _kernel_lines(self, samples: SampleSet, started_at: float) -> None:
        lines = [
            (round((samples.start_uptime + line.t) * 1e6), line.message, started_at + line.t)
            for line in samples.kernel
        ]
        self._keep_new(lines)

    def _read_back(self, since: float) -> None:
        """What the kernel logged while the device did not answer, from `dmesg`."""
        try:
            asked = time.time()
            result = self.host.run(["sh", "-c", "cat /proc/uptime; dmesg"], timeout=15)
            answered = time.time()
        except Exception as error:
            self._note(f"the kernel log of the silence was not read: {error}")
            return
        first, _, rest = result.stdout.partition("\n")
        try:
            uptime = float(first.split()[0])
        except (IndexError, ValueError):
            self._note(f"the kernel log of the silence was not read: {result.stderr.strip()}")
            return
        now = (asked + answered) / 2
        lines = [
            (usec, message, now - (uptime - usec / 1e6))
            for usec, message in parse_dmesg(rest)
            if now - (uptime - usec / 1e6) >= since - 2.0
        ]
        self._keep_new(lines)

    def _keep_new(self, lines: Sequence[tuple[int, str, float]]) -> None:
        fresh = []
        for usec, message, at in lines:
            key = (usec, message)
            if key in self._seen or self._other_labs(message):
                continue
            self._seen[key] = usec
            fresh.append(kernel_event(at, self.host.name, message))
        if self._seen:
            newest = max(self._seen.values())
            cut = newest - _SEEN_KEPT_S * 1e6
            self._seen = {k: v for k, v in self._seen.items() if v >= cut}
        with self._lock:
            self._taken.kernel.extend(fresh)

    def _other_labs(self, message: str) -> bool:
        """A line another lab's fault wrote into the kernel log this lab shares."""
        found = _LAB_LINE.match(message) if self.lab is not None else None
        return found is not None and found["lab"] != self.lab

    def _device_event(self, kind: str, at: float, end: float, detail: str = "") -> None:
        with self._lock:
            self._taken.device.append(DeviceEvent(kind, self.host.name, at, end, detail))

    def _note(self, text: str) -> None:
        with self._lock:
            self._taken.notes.append(text)
