"""The DUT's own events in a soak: what `dmesg` read back says, when an answer means
the device restarted, how a silence and a restart read in the sentence and the report,
and that a kernel log that could not be followed is said at the top."""

from __future__ import annotations

import dataclasses
import html
import json
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from support.soak_samples import captured_summary
from wirespeed.cli.document_output import document_text
from wirespeed.errors import HostError
from wirespeed.hosts.base import Completed
from wirespeed.hosts.local import LocalHost
from wirespeed.soak import records
from wirespeed.soak.chunk import parse_chunk
from wirespeed.soak.device import (
    DeviceEvent,
    DeviceFollower,
    does_not_answer,
    parse_dmesg,
    restart_detail,
)
from wirespeed.soak.render import soak_result
from wirespeed.soak.sentence import duration_text
from wirespeed.soak.summary import summarize
from wirespeed.soak.timeline import soak_timeline

FIXTURES = Path(__file__).parents[2] / "fixtures" / "soak"


def test_busybox_dmesg_lines_are_read_with_their_time_since_boot() -> None:
    # One read of `busybox dmesg` (capture_dmesg.sh): its times only go forward.
    lines = parse_dmesg((FIXTURES / "dmesg_busybox.txt").read_text())
    assert len(lines) == 8
    assert lines[0] == (1_366486, lines[0][1])
    assert lines[0][1].startswith("EXT4-fs (vda): mounted filesystem")
    assert [usec for usec, _ in lines] == sorted(usec for usec, _ in lines)
    assert lines[-3] == (
        640_912265,
        "wirespeed-lab[capture-a]: igb 0000:01:00.0 wan: Detected Tx Unit Hang",
    )
    assert lines[-1][1].endswith("NIC Link is Up 1000 Mbps Full Duplex")
    # A record of 930 characters is one line, whole.
    assert len(lines[1][1]) == 930 and lines[1][1].startswith("wirespeed-test: a long record")
    assert parse_dmesg("not a kernel line\n") == []
    # util-linux's level prefix and a time of fewer than six digits.
    assert parse_dmesg("<4>[   12.5] x\n") == [(12_500000, "x")]
    # Nanoseconds, as some kernels print them: cut to microseconds.
    assert parse_dmesg("[    1.123456789] y\n") == [(1_123456, "y")]


def test_a_new_boot_id_or_an_uptime_that_went_back_is_a_restart() -> None:
    assert restart_detail((25200.0, "a"), (12.0, "b")) == (
        "uptime went from 7.0 h to 12 s; new boot id"
    )
    assert restart_detail((25200.0, "a"), (12.0, "a")) == "uptime went from 7.0 h to 12 s"
    # A clock since boot that did not start again (a lab's): the boot id says it.
    assert restart_detail((100.0, "a"), (130.0, "b")) == "new boot id"
    assert restart_detail((100.0, "a"), (130.0, "a")) is None


def test_a_device_that_does_not_answer_is_named_without_paramikos_words() -> None:
    host = LocalHost("router")
    said = does_not_answer(host, HostError("lost the connection to root@r: No existing session"))
    assert said == "the device router does not answer"


def _chunk(**changes: object) -> records.ChunkRecord:
    """The captured chunk (support/soak_samples.py) with its probes, events and fault."""
    summary = captured_summary()
    chunk = summary.chunks[0]
    probes = parse_chunk((FIXTURES / "link_fault.irtt.json").read_text(), 10**7)
    stored = records.ChunkRecord(
        position=0, kind="probes", started_at=chunk["start"], ended_at=chunk["end"],
        probes=probes, events=summary.events, faults=summary.faults,
    )  # fmt: skip
    return dataclasses.replace(stored, **changes)  # type: ignore[arg-type]


def test_a_silence_beside_an_outage_is_in_the_sentence_the_report_and_the_timeline() -> None:
    outage = captured_summary().matched[0].outage
    silent = DeviceEvent("no-answer", "router", outage.start - 0.5, outage.end + 1.0)
    restart = DeviceEvent("restart", "router", outage.end + 2, outage.end + 3, "new boot id")
    chunk = _chunk(device=(silent, restart))
    # Stored and loaded back whole.
    row = SimpleNamespace(
        position=0, kind="probes", started_at=chunk.started_at, ended_at=chunk.ended_at,
        data=chunk.data(),
    )  # fmt: skip
    loaded = records.ChunkRecord.from_row(row).device
    assert [e.to_dict() for e in loaded] == [silent.to_dict(), restart.to_dict()]
    summary = summarize(captured_summary().header, [chunk])

    assert "the device router did not answer from " in summary.sentence
    assert f"for {round(silent.duration)} s (beside the outage)" in summary.sentence
    assert "the device router restarted (new boot id)" in summary.sentence
    document = soak_result(summary)
    markdown = document_text(document, "markdown")
    assert "## The device" in markdown and "router restarted (new boot id)" in markdown
    data = json.loads(document_text(document, "json"))
    assert [e["kind"] for e in data["device_events"]] == ["no-answer", "restart"]
    timeline = soak_timeline(summary)
    assert timeline is not None and document.timelines == (timeline,)
    assert [s.kind for s in timeline.intervals if "router did not answer for" in s.label] == [
        "device did not answer"
    ]
    assert [m.text for m in timeline.instants if m.label == "device restarted"] == [
        restart.describe()
    ]


def test_a_kernel_log_that_could_not_be_followed_is_said_at_the_top() -> None:
    note = "the kernel log could not be followed: the device router does not answer"
    chunk = _chunk(notes=(note,))
    summary = summarize(captured_summary().header, [chunk])

    assert summary.warnings == (note,)
    document = soak_result(summary)
    # Under the soak's name, before its sentence.
    assert document.lines[1:3] == (f"warning: {note}", summary.sentence)
    text = document_text(document, "terminal").splitlines()
    assert text[1:4] == ["  soak 1 (complete)", f"  warning: {note}", f"  {summary.sentence}"]
    markdown = document_text(document, "markdown").splitlines()
    assert markdown[3] == f"- warning: {note}"
    page = document_text(document, "html")
    assert page.index(f"warning: {note}") < page.index(html.escape(summary.sentence))
    # Without such a note, no warning.
    assert not summarize(captured_summary().header, [_chunk()]).warnings


class _Freezable(LocalHost):
    """This machine, whose answers can be held back as a frozen device's are."""

    def __init__(self) -> None:
        super().__init__("router")
        self.thawed = threading.Event()
        self.thawed.set()

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        if not self.thawed.wait(timeout):
            raise HostError("lost the connection to root@router: No existing session")
        return super().run(argv, timeout=timeout)


def _proc(root: Path, uptime: float, boot_id: str) -> None:
    (root / "proc" / "sys" / "kernel" / "random").mkdir(parents=True, exist_ok=True)
    (root / "proc" / "uptime").write_text(f"{uptime:.2f} 0.00\n")
    (root / "proc" / "sys" / "kernel" / "random" / "boot_id").write_text(f"{boot_id}\n")


@pytest.mark.process
def test_the_follower_never_waits_for_a_silent_device_and_tells_its_silence_and_restart(
    tmp_path: Path,
) -> None:
    host = _Freezable()
    _proc(tmp_path, 25200.0, "a")
    follower = DeviceFollower(host, root=str(tmp_path), check_every=0.2, answer_timeout=0.3)
    follower.start()
    try:
        host.thawed.clear()
        silent_from = time.time()
        time.sleep(1.5)
        # The soak's calls return at once while the device does not answer.
        before = time.monotonic()
        follower.rotate()
        follower.take()
        assert time.monotonic() - before < 0.1
        _proc(tmp_path, 12.0, "b")  # it restarted meanwhile
        host.thawed.set()
        silent_until = time.time()
        time.sleep(1.0)
    finally:
        follower.stop()
    taken = follower.take()

    [silence] = [e for e in taken.device if e.kind == "no-answer"]
    assert abs(silence.at - silent_from) <= 0.5 and abs(silence.end - silent_until) <= 0.5
    [restart] = [e for e in taken.device if e.kind == "restart"]
    assert restart.detail == "uptime went from 7.0 h to 12 s; new boot id"
    assert not taken.notes


class _Sampler:
    """A sampler's process as the follower sees it: a captured stream (the lab DUT's
    sampler while a link fault was injected), running until stopped or `end()`."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.status: int | None = None

    pid = 4242
    argv = ("sh", "-c", "sampler")

    def end(self, status: int = 137) -> None:
        """Killed: what it wrote up to then, and no `@@exit` line."""
        self.text = self.text.rsplit("@@exit", 1)[0]
        self.status = status

    def poll(self) -> int | None:
        return self.status

    def status_as_of(self) -> float:
        return time.time()

    def wait(self, timeout: float | None = None) -> int:
        return self.stop()

    def send_signal(self, sig: int = 15) -> None:
        pass

    stop_fails = False  # its session lost: stopping it cannot reach the device

    def stop(self, grace: float = 1.0) -> int:
        if self.stop_fails:
            raise HostError("lost the connection to root@router: No existing session")
        if self.status is None:
            self.status = 0
        return self.status

    def stdout(self) -> str:
        return self.text

    def stderr(self) -> str:
        return ""


class _Device:
    """A device in Python (no program runs): its uptime and boot id as the follower
    asks for them, the samplers it is handed, `dmesg` as the captured busybox read."""

    name = "router"

    def __init__(self, uptime: float, boot_id: str) -> None:
        self.uptime, self.boot_id = uptime, boot_id
        self.samplers: list[_Sampler] = []
        self.dmesg_reads = 0
        self.dmesg_fails = False
        self.dmesg_uptime = 641.61
        self.asked: list[threading.Thread] = []  # the threads that asked its uptime
        self.refusing = False
        self.no_proc = False
        self.kmsg_readable = True
        self.sampler_fails = False
        self.sampler_text = (FIXTURES / "link_fault.sampler.txt").read_text()
        self.dmesg_missing = False
        self.sampler_argvs: list[tuple[str, ...]] = []
        self.ask_timeouts: list[float] = []
        self.root = "/"  # where the follower is told to read /proc
        self.thawed = threading.Event()
        self.thawed.set()

    def start(self, argv: Sequence[str], *, on_line: object = None) -> _Sampler:
        if self.sampler_fails:
            raise HostError("sh: can't fork")
        self.sampler_argvs.append(tuple(argv))
        sampler = _Sampler(self.sampler_text)
        self.samplers.append(sampler)
        return sampler

    def run(self, argv: Sequence[str], *, timeout: float = 30.0) -> Completed:
        # Every question is one short shell command.
        assert len(argv) == 3 and tuple(argv[:2]) == ("sh", "-c"), argv
        command = argv[-1]
        if not self.thawed.wait(timeout):
            raise HostError("lost the connection to root@router: No existing session")
        if command.endswith("boot_id"):
            assert (
                command == f"cat {self.root}proc/uptime {self.root}proc/sys/kernel/random/boot_id"
            )
            self.asked.append(threading.current_thread())
            self.ask_timeouts.append(timeout)
            if self.refusing:
                raise HostError("connection refused")
            if self.no_proc:  # busybox's cat, /proc not mounted
                return Completed(tuple(argv), 1, "", "")
            boot_id = f"{self.boot_id}\n" if self.boot_id else ""
            return Completed(tuple(argv), 0, f"{self.uptime:.2f} 0.00\n{boot_id}", "")
        if command == "test -r /dev/kmsg":
            assert timeout == 10
            return Completed(tuple(argv), 0 if self.kmsg_readable else 1, "", "")
        if command == "cat /proc/uptime; dmesg":
            assert timeout == 15  # a whole kernel log over a slow link, at most
            self.dmesg_reads += 1
            if self.dmesg_fails:
                raise HostError("lost the connection to root@router: No existing session")
            if self.dmesg_missing:  # neither cat nor dmesg: a shell of its own
                return Completed(tuple(argv), 127, "", "sh: cat: not found\nsh: dmesg: not found\n")
            # The read's last line (641.514 s since boot) written 0.1 s ago.
            dmesg = (FIXTURES / "dmesg_busybox.txt").read_text()
            return Completed(tuple(argv), 0, f"{self.dmesg_uptime:.2f} 0.00\n" + dmesg, "")
        raise HostError(f"{command}: not asked of a device in a soak")

    def read_file(self, path: str) -> str:
        raise HostError(path)

    def write_file(self, path: str, text: str) -> None:
        raise HostError(path)

    def which(self, program: str) -> str | None:
        return None


def _until(condition: Callable[[], bool], seconds: float = 10.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the follower's thread never got there"
        time.sleep(0.01)


def test_the_follower_asks_every_second_and_waits_two_for_an_answer_by_default() -> None:
    # A device that takes 20 s to answer would otherwise go unnoticed for 20 s.
    follower = DeviceFollower(_Device(100.0, "a"))
    assert (follower.check_every, follower.answer_timeout) == (1.0, 2.0)


def test_a_restart_is_dated_when_the_device_went_silent_not_at_its_last_answer() -> None:
    # A lab DUT's uptime is this machine's: it does not go back at a restart, and only
    # the boot id tells. It last answered 0.9 s before the fault took it away, and the
    # first question it left unanswered was asked 0.1 s after.
    device = _Device(25200.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    try:
        follower.take()
        went_away = time.time() - 20.0
        follower._last_answer = went_away - 1.0
        follower._silent_since = went_away
        device.uptime, device.boot_id = 25221.0, "b"
        device.dmesg_fails = True
        follower._recovered((device.uptime, device.boot_id))
        recovered = time.time()
    finally:
        follower.stop()
    taken = follower.take()
    [silence] = [e for e in taken.device if e.kind == "no-answer"]
    [restart] = [e for e in taken.device if e.kind == "restart"]
    assert silence.at == restart.at == went_away
    assert recovered - 1.0 <= restart.end <= recovered
    assert restart.detail == "new boot id"
    # What the kernel logged meanwhile could not be read back: said.
    assert taken.notes == [
        "the kernel log of the silence was not read: "
        "lost the connection to root@router: No existing session"
    ]
    # A restart between two checks, no silence seen: dated from its last answer (here
    # the first, as the follower started).
    follower = DeviceFollower(device, check_every=60.0)
    before = time.time()
    follower.start()
    try:
        last = follower._last_answer
        assert before <= last <= time.time()
        seen = time.time() + 5.0
        follower._check_boot((25222.0, "c"), seen)
    finally:
        follower.stop()
    [restart] = [e for e in follower.take().device if e.kind == "restart"]
    assert (restart.at, restart.end, restart.detail) == (last, seen, "new boot id")
    # A real device's uptime starts at its boot: dated then, when that is later.
    device = _Device(25200.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    try:
        follower._silent_since = time.time() - 20.0
        follower._recovered((3.0, "b"))
        seen = time.time()
    finally:
        follower.stop()
    [restart] = [e for e in follower.take().device if e.kind == "restart"]
    assert seen - 3.5 <= restart.at <= seen - 3.0
    assert restart.detail == "uptime went from 7.0 h to 3 s; new boot id"


def test_a_kernel_reader_that_dies_mid_soak_is_said_and_replaced_and_its_gap_read_back() -> None:
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=0.02, answer_timeout=1.0)
    follower.start()
    try:
        [first] = device.samplers
        first.end()
        _until(lambda: len(device.samplers) == 2 and device.dmesg_reads == 1)
    finally:
        follower.stop()
    taken = follower.take()
    [note] = taken.notes
    assert note.startswith("a kernel log reader was lost: the sampler ended before it was")
    assert note.endswith("a new one took its place, and what the kernel logged meanwhile was "
                         "read back with dmesg")  # fmt: skip
    # Said at the top of the report, as a reader that could not start is.
    summary = summarize(captured_summary().header, [_chunk(notes=(note,))])
    assert summary.warnings == (note,)
    # The dead reader's lines and those read back, each once.
    messages = [e.message for e in taken.kernel]
    assert len(messages) == len(set(messages))
    assert "wirespeed-lab[capture-b]: igb 0000:01:00.0 wan: Detected Tx Unit Hang" in messages
    assert any(m.startswith("wirespeed-lab[soak-capture]:") for m in messages)
    # Read back from the dead reader's start (2 s of slack), not the whole log.
    assert not any(m.startswith(("EXT4-fs", "wirespeed-test")) for m in messages)
    # A reader stopped as asked is no loss.
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=0.02)
    follower.start()
    follower.rotate()
    _until(lambda: len(device.samplers) == 2)
    follower.stop()
    assert not follower.take().notes and device.dmesg_reads == 0


def test_a_lab_duts_kernel_lines_leave_out_other_labs_faults_and_say_the_log_is_shared() -> None:
    for lab, kept in (("soak-capture", 2), ("another", 0)):
        device = _Device(100.0, "a")
        follower = DeviceFollower(device, check_every=60.0, lab=lab)
        follower.start()
        follower.stop()
        taken = follower.take()
        labs = [e.message for e in taken.kernel if e.message.startswith("wirespeed-lab[")]
        assert len(labs) == kept, lab
        assert all(m.startswith(f"wirespeed-lab[{lab}]: igb") for m in labs)
        [note] = taken.notes
        assert note == (
            "the lab DUT's kernel log is this machine's, shared by every lab: its lines may "
            "be this machine's or another lab's (the lines other labs' faults write are left "
            "out)"
        )
        # A note, not a warning at the top: the log was followed.
        assert not summarize(captured_summary().header, [_chunk(notes=(note,))]).warnings
    # A device of its own (no lab): every line, no such note.
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower.stop()
    taken = follower.take()
    assert sum(e.message.startswith("wirespeed-lab[") for e in taken.kernel) == 2
    assert not taken.notes


def test_a_soak_that_ends_while_the_device_is_silent_keeps_the_silence_until_its_end() -> None:
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=0.02, answer_timeout=0.1)
    follower.start()
    device.thawed.clear()
    went_silent = time.time()
    _until(lambda: follower._silent_since is not None)
    # The chunk's end waits for the rotation it asked for as long as it says, no longer.
    follower.rotate()
    before = time.monotonic()
    assert follower.take(wait=0.3).device == []
    assert 0.29 <= time.monotonic() - before < 2.0
    ended = time.time()
    follower.stop()
    seen = follower.take()
    [silence] = seen.device
    assert (silence.kind, silence.host, silence.detail) == ("no-answer", "router", "")
    assert went_silent - 0.05 <= silence.at <= went_silent + 0.2
    assert ended <= silence.end <= ended + 1.0
    assert silence.describe() == f"router did not answer for {duration_text(silence.duration)}"
    assert not seen.notes  # the reader's lines were collected: nothing was lost
    device.thawed.set()


def test_an_uptime_of_a_day_or_more_is_said_in_days() -> None:
    assert restart_detail((86399.0, "a"), (5.0, "a")) == "uptime went from 24.0 h to 5 s"
    assert restart_detail((86400.0, "a"), (5.0, "a")) == "uptime went from 1.0 d to 5 s"
    assert restart_detail((3 * 86400.0, "a"), (5.0, "a")) == "uptime went from 3.0 d to 5 s"


def test_a_device_event_in_words_and_as_stored() -> None:
    restart = DeviceEvent("restart", "router", 100.12345, 130.98765, "new boot id")
    assert restart.describe() == "router restarted (new boot id)"
    assert DeviceEvent("restart", "router", 1.0, 2.0).describe() == "router restarted"
    silent = DeviceEvent("no-answer", "router", 100.0, 140.0)
    assert silent.describe() == "router did not answer for 40 s"
    assert DeviceEvent("no-answer", "router", 5.0, 4.0).duration == 0.0
    stored = restart.to_dict()
    assert stored == {
        "kind": "restart",
        "host": "router",
        "at": 100.123,  # to the millisecond
        "end": 130.988,
        "detail": "new boot id",
    }
    assert DeviceEvent.from_dict(stored) == DeviceEvent(
        "restart", "router", 100.123, 130.988, "new boot id"
    )
    with pytest.raises(AssertionError):
        DeviceEvent.from_dict({**stored, "end": "later"})
    with pytest.raises(AssertionError):
        DeviceEvent.from_dict({**stored, "at": "earlier"})


def test_a_silences_kernel_log_is_read_back_from_2_s_before_it_began() -> None:
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    try:
        # The read's last three lines, 0.3 s apart, the last at 641.51 s since boot.
        last = 641.514421
        device.dmesg_uptime = last + 2.5  # the last one written 2.5 s before the read
        follower._read_back(time.time())
        assert follower.take().kernel == []
        device.dmesg_uptime = last + 1.5  # 1.5 s before: it and the one 0.3 s before it
        read = time.time()
        follower._read_back(read)
        events = follower.take().kernel
    finally:
        follower.stop()
    assert [e.message.split(": ", 2)[-1] for e in events] == [
        "Detected Tx Unit Hang",
        "igb: wan NIC Link is Up 1000 Mbps Full Duplex",
    ]
    # Each dated on this machine's clock: the read's time less its age since boot.
    assert events[1].at == pytest.approx(read - 1.5 + 0.005, abs=0.05)
    assert events[0].at == pytest.approx(events[1].at - 0.301174, abs=1e-6)


def test_a_device_that_answers_is_asked_each_check_and_one_that_refuses_every_half_second() -> None:
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=0.02, answer_timeout=1.0)
    follower.start()
    try:
        _until(lambda: len(device.asked) >= 5)  # each from a question thread of its own
        asked = device.asked[1:5]
        assert len({id(thread) for thread in asked}) == 4
        assert all(t.name == "soak-device-ask" and t.daemon for t in asked)
        assert follower._thread.name == "soak-device" and follower._thread.daemon
        device.refusing = True
        refused_from = len(device.asked)
        time.sleep(2.2)
        refused = len(device.asked) - refused_from
        device.refusing = False
        _until(lambda: follower._silent_since is None)
    finally:
        follower.stop()
    # A quick refusal is asked again after half a second (4-5 times in 2.2 s), not at
    # once over and over, nor after 1.5 s (twice).
    assert 3 <= refused <= 6, refused
    [silence] = [e for e in follower.take().device if e.kind == "no-answer"]
    assert 2.0 <= silence.duration <= 5.0


def test_a_kernel_log_that_cannot_be_followed_from_the_start_is_said_once() -> None:
    # /dev/kmsg not readable (and so no sampler either): one note, not two.
    device = _Device(100.0, "a")
    device.kmsg_readable, device.sampler_fails = False, True
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower.stop()
    assert follower.take().notes == [
        "the kernel log could not be followed: router does not let /dev/kmsg be read"
    ]
    # The first question fails: its exit status said, once.
    device = _Device(100.0, "a")
    device.no_proc = device.sampler_fails = True
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower.stop()
    assert follower.take().notes == ["the kernel log could not be followed: router: exit status 1"]
    # Answered, but no sampler: said as the device not answering.
    device = _Device(100.0, "a")
    device.sampler_fails = True
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower.stop()
    assert follower.take().notes == [
        "the kernel log could not be followed: the device router does not answer"
    ]


def test_a_device_without_a_boot_id_is_followed_by_its_uptime() -> None:
    device = _Device(100.0, "")
    follower = DeviceFollower(device, check_every=60.0)
    assert follower._ask() == (100.0, "")
    follower.start()
    try:
        follower._check_boot((5.0, ""), time.time())
    finally:
        follower.stop()
    [restart] = follower.take().device
    assert restart.detail == "uptime went from 1.7 min to 5 s"


class _Counters:
    """The device's `ethtool -S` changes since the last read: one timeout each read."""

    def __init__(self) -> None:
        self.reads = 0

    def read(self) -> dict[str, dict[str, int]]:
        self.reads += 1
        return {"eth0": {"tx_timeout_count": 1, "rx_missed": 2}, "eth1": {"rx_missed": 0}}


def test_the_counters_changes_are_summed_per_chunk_and_not_read_in_a_silence() -> None:
    device, counters = _Device(100.0, "a"), _Counters()
    follower = DeviceFollower(device, check_every=0.02, counters=counters)
    follower.start()  # the first read: what changed before the soak
    try:
        for _ in range(2):
            follower.rotate()
            _until(follower._rotated.is_set)
        taken = follower.take()
        assert taken.counters == {
            "eth0": {"tx_timeout_count": 3, "rx_missed": 6},
            "eth1": {"rx_missed": 0},
        }
        device.thawed.clear()
        _until(lambda: follower._silent_since is not None)
        reads = counters.reads
        follower._attach()  # a sampler re-attached while the device is silent
        assert counters.reads == reads
    finally:
        device.thawed.set()
        follower.stop()


def test_each_kernel_line_is_dated_from_its_samplers_start_and_kept_once() -> None:
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    started = follower._sampler.started_at if follower._sampler is not None else 0.0
    follower.rotate()  # the thread does not run (a check a minute): attached by hand
    follower._attach()
    follower.stop()
    events = follower.take().kernel
    # Both samplers read the same two lines (the captured stream): kept once each.
    assert [e.message.rsplit(": ", 1)[-1] for e in events] == [
        "Detected Tx Unit Hang",
        "wan NIC Link is Up 1000 Mbps Full Duplex",
    ]
    assert events[0].at == pytest.approx(started + 1.024399, abs=1e-6)
    assert events[1].at == pytest.approx(started + 1.544876, abs=1e-6)


def test_an_uptime_in_days_is_rounded_at_its_tenth() -> None:
    # 25.2 h is 1.05 d: rounded up, as a day of 86,400 s makes it.
    assert restart_detail((90720.0, "a"), (5.0, "a")) == "uptime went from 1.1 d to 5 s"


def test_a_kernel_reader_that_never_starts_is_said_once_with_its_own_reason() -> None:
    device = _Device(100.0, "a")
    device.sampler_text = ""  # killed before it wrote a word
    start = device.start

    def killed(argv: Sequence[str], *, on_line: object = None) -> _Sampler:
        sampler = start(argv)
        sampler.status = 137
        return sampler

    device.start = killed  # type: ignore[method-assign]
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower.stop()
    assert follower.take().notes == [
        "the kernel log could not be followed: the sampler never started (exit status 137)"
    ]


def test_a_kernel_reader_that_cannot_be_stopped_is_said_lost_with_the_device_not_answering() -> (
    None
):
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    device.samplers[0].stop_fails = True
    follower.stop()
    taken = follower.take()
    assert taken.notes == ["a kernel log reader was lost: the device router does not answer"]
    assert taken.kernel == []


def test_a_kernel_reader_lost_before_any_kernel_line_is_said_lost_not_never_followed() -> None:
    device = _Device(100.0, "a")
    # The captured stream up to its first tick's end: before the kernel wrote anything.
    lines = device.sampler_text.splitlines(keepends=True)
    device.sampler_text = "".join(lines[: lines.index("@@end 1\n") + 1])
    follower = DeviceFollower(device, check_every=0.02, answer_timeout=1.0)
    follower.start()
    try:
        device.samplers[0].end()
        _until(lambda: len(device.samplers) == 2 and device.dmesg_reads == 1)
    finally:
        follower.stop()
    assert follower.take().notes == [
        "a kernel log reader was lost: the sampler ended before it was stopped (exit status "
        "137); a new one took its place, and what the kernel logged meanwhile was read back "
        "with dmesg"
    ]


def test_a_samplers_kernel_lines_are_known_by_their_microsecond_since_boot_as_dmesg_prints() -> (
    None
):
    # The captured stream: its sampler started at 34145.42 s since boot, and the kernel
    # dated its two lines 34146.444399 and 34146.964876 (`@@kmsg SEQ USEC ...`): so
    # would dmesg, and a line read by both is known as one.
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower.stop()
    hang = "wirespeed-lab[soak-capture]: igb 0000:01:00.0 wan: Detected Tx Unit Hang"
    up = "wirespeed-lab[soak-capture]: igb 0000:01:00.0 wan: igb: wan NIC Link is Up 1000 Mbps"
    assert sorted(follower._seen) == [(34146444399, hang), (34146964876, up + " Full Duplex")]


class _Clock:
    """This machine's clock at 1000.0 s, standing still while dmesg is read."""

    @staticmethod
    def time() -> float:
        return 1000.0


def test_a_silences_kernel_line_is_dated_to_the_microsecond_and_kept_from_exactly_2_s_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from wirespeed.soak import device as module

    device = _Device(100.0, "a")
    device.dmesg_uptime = 643.01  # the read's last line (641.514421 s) written 1.495579 s before
    follower = DeviceFollower(device, check_every=60.0)
    monkeypatch.setattr(module, "time", _Clock)
    last = 1000.0 - (643.01 - 641514421 / 1e6)
    follower._read_back(last + 2.0 + 0.0003)  # 0.3 ms too late for it
    assert follower.take().kernel == []
    since = last + 2.0
    assert since - 2.0 == last  # exactly at the edge
    follower._read_back(since)
    [event] = follower.take().kernel
    assert event.message.endswith("NIC Link is Up 1000 Mbps Full Duplex")
    assert event.at == pytest.approx(998.504421, abs=1e-6)
    assert event.host == "router"


def test_a_silences_kernel_log_that_cannot_be_read_says_what_the_device_said() -> None:
    device = _Device(100.0, "a")
    device.dmesg_missing = True
    follower = DeviceFollower(device, check_every=60.0)
    follower._read_back(time.time())
    taken = follower.take()
    assert taken.notes == [
        "the kernel log of the silence was not read: sh: cat: not found\nsh: dmesg: not found"
    ]
    assert taken.kernel == []


def test_lines_seen_or_of_another_lab_are_passed_over_and_the_rest_kept_by_host() -> None:
    follower = DeviceFollower(_Device(100.0, "a"), lab="this")
    follower._keep_new([(1, "wirespeed-lab[other]: eth0: link down", 1.0), (2, "eth0: up", 2.0)])
    assert [(e.message, e.host, e.at) for e in follower.take().kernel] == [
        ("eth0: up", "router", 2.0)
    ]
    follower._keep_new([(2, "eth0: up", 2.0), (3, "eth0: down", 3.0)])
    assert [e.message for e in follower.take().kernel] == ["eth0: down"]


def test_kernel_lines_are_compared_with_those_of_the_600_s_before_the_newest_and_no_more() -> None:
    follower = DeviceFollower(_Device(100.0, "a"))
    follower._keep_new([(0, "old", 0.0)])
    follower._keep_new([(600_000_000, "new", 600.0)])  # "old" exactly 600 s before
    follower._keep_new([(0, "old", 0.0)])
    assert [e.message for e in follower.take().kernel] == ["old", "new"]
    follower._keep_new([(600_000_001, "newer", 600.000001)])  # "old" 1 us too far back
    assert [e.message for e in follower.take().kernel] == ["newer"]
    follower._keep_new([(0, "old", 0.0), (600_000_000, "new", 600.0)])
    assert [e.message for e in follower.take().kernel] == ["old"]


def test_a_device_is_asked_its_proc_where_it_is_with_8_s_more_than_the_answer_timeout() -> None:
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    assert follower._ask() == (100.0, "a") and device.ask_timeouts == [10.0]
    for root in ("/srv/boardX", "/srv/boardX/"):  # a test's look-alike tree
        device.root = "/srv/boardX/"
        follower = DeviceFollower(device, root=root, answer_timeout=0.5)
        assert follower._ask() == (100.0, "a") and device.ask_timeouts[-1] == 8.5


def test_the_kernel_is_sampled_every_5_s() -> None:
    from wirespeed.sampling.script import sampler_argv

    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower.stop()
    assert device.sampler_argvs == [tuple(sampler_argv(5.0))]


def test_a_device_whose_first_question_failed_is_followed_from_its_first_answer() -> None:
    device = _Device(25200.0, "a")
    device.no_proc = True
    follower = DeviceFollower(device, check_every=0.02, answer_timeout=1.0)
    follower.start()
    try:
        device.no_proc = False
        _until(lambda: len(device.asked) >= 4)  # the thread goes on asking
    finally:
        follower.stop()
    assert follower.take().device == []  # its first answer is no restart


def test_a_restart_between_two_checks_is_dated_after_the_last_answer() -> None:
    device = _Device(25200.0, "a")
    follower = DeviceFollower(device, check_every=0.02, answer_timeout=1.0)
    follower.start()
    try:
        _until(lambda: len(device.asked) >= 3)
        heard = time.time()
        device.uptime, device.boot_id = 3.0, "b"
        _until(lambda: len(device.asked) >= 6)
    finally:
        follower.stop()
    [restart] = follower.take().device
    assert restart.kind == "restart"
    assert restart.detail == "uptime went from 7.0 h to 3 s; new boot id"
    assert heard - 0.5 <= restart.at <= restart.end <= time.time()


def test_a_reader_that_never_starts_and_cannot_be_stopped_is_said_both_ways() -> None:
    device = _Device(100.0, "a")
    device.sampler_text = ""
    start = device.start

    def lost(argv: Sequence[str], *, on_line: object = None) -> _Sampler:
        sampler = start(argv)
        sampler.status, sampler.stop_fails = 137, True
        return sampler

    device.start = lost  # type: ignore[method-assign]
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower._attach()  # and again at a rotation: not said again
    follower.stop()
    assert follower.take().notes == [
        "a kernel log reader was lost: the device router does not answer",
        "the kernel log could not be followed: router: the sampler did not start",
        "a kernel log reader was lost: the device router does not answer",
    ]


def test_a_sampler_that_cannot_start_is_said_once_however_often_it_is_tried() -> None:
    device = _Device(100.0, "a")
    device.sampler_fails = True
    follower = DeviceFollower(device, check_every=60.0)
    follower.start()
    follower._attach()
    follower._attach()
    follower.stop()
    assert follower.take().notes == [
        "the kernel log could not be followed: the device router does not answer"
    ]


class _BrokenCounters:
    def read(self) -> dict[str, dict[str, int]]:
        raise HostError("ethtool: no such device")


def test_counters_that_cannot_be_read_hold_up_nothing() -> None:
    device = _Device(100.0, "a")
    follower = DeviceFollower(device, check_every=0.02, counters=_BrokenCounters())
    follower.start()
    try:
        follower.rotate()
        _until(follower._rotated.is_set)
        asked = len(device.asked)
        _until(lambda: len(device.asked) >= asked + 2)  # the thread goes on
    finally:
        follower.stop()
    taken = follower.take()
    assert taken.counters == {} and taken.notes == []
