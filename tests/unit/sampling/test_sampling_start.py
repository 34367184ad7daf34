"""A sampler's start races nothing: its header comes whatever the kernel log writes
meanwhile, and a segment ended right after the start ends cleanly.

The kernel log reader, the ticker and the sampler's shell write into the same pipe to
awk. mawk -W interactive wrote a record and its newline in two write(2)s, and a line of
the others landing between them was glued to the record and lost: when it was the
ticker's first line, awk never wrote its header and the trial's samples held only
"@@exit feed-ended" (a lab's set-up logs kernel records just as its sampler starts).
Here the kernel log is a FIFO flooded with records while the sampler starts.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from wirespeed.hosts.local import LocalHost
from wirespeed.sampling.pool import SamplerPool
from wirespeed.sampling.session import Sampler
from wirespeed.sampling.stream import parse_stream

STARTS = 12
# A bound on a flood that nobody stops (a test that failed before it could).
MAX_FLOOD_SECONDS = 60


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """This machine's /proc and /sys, and a /dev/kmsg the test writes."""
    (tmp_path / "proc").symlink_to("/proc")
    (tmp_path / "sys").symlink_to("/sys")
    (tmp_path / "dev").mkdir()
    os.mkfifo(tmp_path / "dev" / "kmsg")
    return tmp_path


def _flood(fifo: Path, stop: threading.Event) -> None:
    """Kernel records until stopped (the sampler has started, ticked and stopped), each
    stamped with the uptime of its moment: the reader drops records from before its own
    start, which on a busy machine may come seconds after the flood's. The FIFO is
    opened read-write and without blocking: the test never waits on the sampler."""
    kmsg = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        seq = 0
        deadline = time.monotonic() + MAX_FLOOD_SECONDS
        while not stop.is_set() and time.monotonic() < deadline:
            if seq % 64 == 0:  # an uptime per batch: reading it costs more than a write
                usec = int(float(Path("/proc/uptime").read_text().split()[0]) * 1e6)
            record = f"6,{seq + 1},{usec},-;br0: port {seq} entered forwarding state\n"
            try:
                os.write(kmsg, record.encode())
                seq += 1
            except BlockingIOError:  # the reader is behind, or gone
                time.sleep(0.001)
    finally:
        os.close(kmsg)


@pytest.mark.process
def test_the_header_comes_while_the_kernel_log_floods_in(root: Path) -> None:
    host = LocalHost()
    for start in range(STARTS):
        stop = threading.Event()
        writer = threading.Thread(target=_flood, args=(root / "dev" / "kmsg", stop))
        writer.start()
        running = Sampler.start(host, 0.2, root=str(root), max_runtime=30)
        try:
            ticked = running.wait_for_ticks(1, timeout=5.0)
            # The reader's first records may come ticks after the header on a busy
            # machine (dd and awk waiting for a CPU): stopped before, it read none.
            deadline = time.monotonic() + 10
            while "@@kmsg " not in running.process.stdout() and time.monotonic() < deadline:
                time.sleep(0.05)
        finally:
            samples = running.stop()
            stop.set()
            writer.join()
        stream = parse_stream(samples.raw)
        assert ticked and stream.ready, (start, samples.raw[:200], samples.reason)
        assert stream.kernel, "the flood's records were read"


@pytest.mark.process
def test_a_segment_ended_right_after_the_start_ends_cleanly() -> None:
    host = LocalHost()
    for start in range(STARTS):
        pool = SamplerPool()  # a new sampler each time: its first segment
        try:
            samples = pool.start(host, interval=0.2).stop()  # no wait for a tick
        finally:
            pool.close()
        stream = parse_stream(samples.raw)
        assert not samples.partial, (start, samples.reason, samples.raw[:200])
        assert stream.ready and stream.exit_reason == "stopped" and stream.snapshots
