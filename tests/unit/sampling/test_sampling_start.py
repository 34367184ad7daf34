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
FLOOD_SECONDS = 1.5


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """This machine's /proc and /sys, and a /dev/kmsg the test writes."""
    (tmp_path / "proc").symlink_to("/proc")
    (tmp_path / "sys").symlink_to("/sys")
    (tmp_path / "dev").mkdir()
    os.mkfifo(tmp_path / "dev" / "kmsg")
    return tmp_path


def _flood(fifo: Path, stop: threading.Event) -> None:
    """Kernel records, stamped now (the reader drops older ones), until stopped. The FIFO
    is opened read-write and without blocking: the test never waits on the sampler."""
    usec = int(float(Path("/proc/uptime").read_text().split()[0]) * 1e6)
    kmsg = os.open(fifo, os.O_RDWR | os.O_NONBLOCK)
    try:
        seq = 0
        deadline = time.monotonic() + FLOOD_SECONDS
        while not stop.is_set() and time.monotonic() < deadline:
            record = f"6,{seq + 1},{usec + seq},-;br0: port {seq} entered forwarding state\n"
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
