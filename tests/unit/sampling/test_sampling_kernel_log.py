"""The kernel log of the live system is followed under dash and under busybox alone.

/dev/kmsg hands out one record per read(2) and refuses (EINVAL) a read whose buffer is
smaller than the record: awk reading it itself fails as soon as a record is longer than
what is left of its buffer, and this machine's log (like a real device's) holds records
of hundreds of bytes. A record of 900 bytes is written before the marker, so the reader
meets it whatever the log held before.
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
import uuid
from pathlib import Path

import pytest
from sampling_fixtures import BUSYBOX, busybox_path, run_sampler

from wirespeed.sampling.stream import parse_stream

KMSG = Path("/dev/kmsg")

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(
        os.geteuid() != 0 or not os.access(KMSG, os.W_OK), reason="writes /dev/kmsg: root"
    ),
]


def _write_records_later(marker: str) -> threading.Thread:
    def write() -> None:
        time.sleep(0.6)
        with KMSG.open("w") as log:
            log.write(f"<6>wirespeed-test: a long record {'x' * 900}\n")
            log.flush()
            log.write(f"<4>wirespeed-test: {marker}\n")

    writer = threading.Thread(target=write)
    writer.start()
    return writer


def test_under_dash_a_record_written_meanwhile_is_read_after_a_long_one() -> None:
    marker = f"marker {uuid.uuid4()}"
    writer = _write_records_later(marker)
    text = run_sampler(Path("/"), 2.0, interval=0.5, shell="dash")
    writer.join()
    messages = [line.message for line in parse_stream(text).kernel]
    assert any(marker in message for message in messages), messages[-5:]


@pytest.mark.skipif(BUSYBOX is None, reason="busybox not installed")
def test_under_busybox_alone_a_record_written_meanwhile_is_read(tmp_path: Path) -> None:
    marker = f"marker {uuid.uuid4()}"
    path = busybox_path(tmp_path / "bin")
    writer = _write_records_later(marker)
    text = run_sampler(Path("/"), 2.0, interval=0.5, shell="sh", path=path)
    writer.join()
    messages = [line.message for line in parse_stream(text).kernel]
    assert any(marker in message for message in messages), messages[-5:]


def _holders(path: Path) -> list[str]:
    """The processes that have `path` open."""
    found = []
    for fd in Path("/proc").glob("[0-9]*/fd/*"):
        try:
            if os.readlink(fd) == str(path):
                found.append(fd.parts[2])
        except OSError:  # gone meanwhile
            continue
    return found


@pytest.mark.parametrize("shell", ["dash", "busybox"])
def test_the_kernel_log_reader_ends_with_the_sampler_on_a_quiet_log(
    tmp_path: Path, shell: str
) -> None:
    # A quiet log: the reader blocks in read(2) for ever. Nothing wakes it at the end, so
    # the sampler must kill it, or it stays (on a router, until the next kernel line).
    if shell == "busybox" and BUSYBOX is None:
        pytest.skip("busybox not installed")
    root = tmp_path / "root"
    root.mkdir()
    (root / "proc").symlink_to("/proc")
    (root / "sys").symlink_to("/sys")
    (root / "dev").mkdir()
    fifo = root / "dev" / "kmsg"
    os.mkfifo(fifo)
    keep_open = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)  # a writer: the reader's open returns
    try:
        if shell == "dash":
            run_sampler(root, 1.0, interval=0.5, shell="dash")
        else:
            run_sampler(root, 1.0, interval=0.5, shell="sh", path=busybox_path(tmp_path / "bin"))
        deadline = time.monotonic() + 5
        while (left := [p for p in _holders(fifo) if p != str(os.getpid())]) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.05)
        assert left == []
    finally:
        os.close(keep_open)


def test_a_killed_samplers_jobs_file_is_removed_by_the_next_and_a_live_ones_kept() -> None:
    # The file the reader's PID passes through lives for two lines of shell; a sampler
    # killed between them leaves it behind, and the next sampler removes it.
    gone = subprocess.Popen(["true"])
    gone.wait()
    left = Path(f"/tmp/wirespeed-sampler-jobs.{gone.pid}.1")
    live = Path(f"/tmp/wirespeed-sampler-jobs.{os.getpid()}.1")
    left.write_text("1\n")
    live.write_text("1\n")
    try:
        run_sampler(Path("/"), 0.5, interval=0.5, shell="dash")
        assert not left.exists()
        assert live.exists()
    finally:
        left.unlink(missing_ok=True)
        live.unlink(missing_ok=True)
