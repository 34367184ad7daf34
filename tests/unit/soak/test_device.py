"""The DUT's own events in a soak: what `dmesg` read back says, when an answer means
the device restarted, how a silence and a restart read in the sentence and the report,
and that a kernel log that could not be followed is said at the top."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace

import pytest

from support.soak_samples import captured_summary
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
from wirespeed.soak.render import render
from wirespeed.soak.summary import summarize
from wirespeed.soak.timeline import soak_timeline

FIXTURES = Path(__file__).parents[2] / "fixtures" / "soak"


def test_busybox_dmesg_lines_are_read_with_their_time_since_boot() -> None:
    lines = parse_dmesg((FIXTURES / "dmesg_busybox.txt").read_text())
    assert len(lines) == 8
    assert lines[0] == (4149_611006, "br0: port 1(lan) entered disabled state")
    assert lines[-1][1].endswith("written after the freeze")
    assert parse_dmesg("not a kernel line\n") == []


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
    markdown = render(summary, "markdown")
    assert "## The device" in markdown and "router restarted (new boot id)" in markdown
    data = json.loads(render(summary, "json"))
    assert [e["kind"] for e in data["device_events"]] == ["no-answer", "restart"]
    timeline = soak_timeline(summary)
    assert "router did not answer for" in timeline and "device restarted" in timeline


def test_a_kernel_log_that_could_not_be_followed_is_said_at_the_top() -> None:
    note = "the kernel log could not be followed: the device router does not answer"
    chunk = _chunk(notes=(note,))
    summary = summarize(captured_summary().header, [chunk])

    assert summary.warnings == (note,)
    text = render(summary, "text").splitlines()
    assert text[1] == f"  warning: {note}"
    markdown = render(summary, "markdown").splitlines()
    assert markdown[2] == f"> **Warning:** {note}"
    assert markdown.index(f"**{summary.sentence}**") > 2
    page = render(summary, "html")
    assert page.index("Warning:") < page.index(summary.sentence)
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
