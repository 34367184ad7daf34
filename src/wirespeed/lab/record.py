"""What a lab was built from, kept where the next wirespeed process can read it.

A lab outlives the process that built it (`wirespeed lab up`, later `lab status` and
`lab down`), and the namespaces alone do not say which link model shapes them. A small
JSON file per lab under /run (a tmpfs: a reboot, which also removes the namespaces,
removes it too) records the spec. The file format is versioned:

    version 1: name, topology, link {name, rate_bps, mtu}, mtu (the current one),
               dut_access ("netns" or "ssh"; absent in older records: "netns"),
               owner ("PID:STARTTIME" of the run that built it and will remove it; null
               for a lab built by hand, which only `lab down` removes)
    version 2: as 1, and limit: the DUT's forwarding limit {pps, bps} (each int or null),
               or null for none. Version 1 records are still read (no limit); a lab
               with a limit is written as version 2, one without as version 1, so an
               older wirespeed still reads every lab it could describe correctly.
    version 3: as 2, and link.queue: seconds of data the bottleneck's queue holds (a
               float; absent or null: the lab's default queue). Written only for a lab
               with a queue, for the same reason.
    version 4: as 3, and limit.ring: the packets the DUT's ring holds (an int; absent:
               the lab's default ring, or the queue's at the packet rate). Written only
               for a lab whose limit names its ring.

Who may take a lab name, build under it or remove it is decided under one lock,
/run/wirespeed/labs.lock (flock): two runs starting at the same instant cannot both
find a name free, and a teardown cannot race a build of the same name (lab/claim.py).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

from wirespeed.errors import LabError
from wirespeed.model import ForwardingLimit, LinkModel, Topology

RECORD_DIR = "/run/wirespeed/labs"
RECORD_VERSION = 4
READABLE_VERSIONS = (1, 2, 3, 4)
LOCK_PATH = "/run/wirespeed/labs.lock"  # beside RECORD_DIR: not taken for a lab's record
# Another process holds the lock while it tears a lab down (seconds); beyond this it hangs.
LOCK_WAIT_SECONDS = 120.0


@dataclass(frozen=True)
class LabRecord:
    name: str
    topology: Topology
    link: LinkModel
    mtu: int  # the links' MTU now: the link's own, or the last set_mtu
    dut_access: str = "netns"  # "ssh": the DUT is a dropbear device (lab/ssh_dut.py)
    owner: str | None = None  # process_identity() of the run that owns it
    limit: ForwardingLimit | None = None  # the DUT's forwarding limit (lab/limits.py)


def process_identity(pid: int | None = None) -> str:
    """PID:STARTTIME of a process (this one by default): a PID alone may be reused."""
    pid = os.getpid() if pid is None else pid
    with open(f"/proc/{pid}/stat", encoding="utf-8") as handle:
        fields = handle.read().rpartition(")")[2].split()
    return f"{pid}:{fields[19]}"  # field 22, starttime, counted after the ")" of comm


def owner_alive(owner: str) -> bool:
    pid, _, _ = owner.partition(":")
    try:
        return process_identity(int(pid)) == owner
    except (OSError, ValueError, IndexError):
        return False


def describe_owner(owner: str) -> str:
    """'PID 4242 (wirespeed run plan.yaml)': whom to wait for, or whom to stop."""
    pid, _, _ = owner.partition(":")
    try:
        with open(f"/proc/{int(pid)}/cmdline", "rb") as handle:
            argv = handle.read().decode(errors="replace").split("\0")
    except (OSError, ValueError):
        return f"PID {pid}"
    words = [word for word in argv if word]
    if not words:
        return f"PID {pid}"
    # `python -m wirespeed.cli.app run ...` and the `wirespeed` script read the same.
    if "wirespeed.cli.app" in words:
        words = ["wirespeed", *words[words.index("wirespeed.cli.app") + 1 :]]
    else:
        words[0] = os.path.basename(words[0])
    command = " ".join(words)
    if len(command) > 60:
        command = command[:59] + "…"
    return f"PID {pid} ({command})"


class _ProcessLock:
    """An flock held by this process, re-entrant within it: flock on a second open of the
    same file would block the process against itself."""

    def __init__(self) -> None:
        self._guard = threading.RLock()
        self._depth = 0
        self._fd: int | None = None

    @contextlib.contextmanager
    def held(self, path: str) -> Iterator[None]:
        with self._guard:
            if self._depth == 0:
                self._fd = _acquire(path)
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
                if self._depth == 0 and self._fd is not None:
                    os.close(self._fd)  # closing the last descriptor releases the flock
                    self._fd = None


def _acquire(path: str) -> int:
    try:
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    except OSError as error:
        raise LabError(f"cannot open the labs' lock {path}: {error.strerror}") from None
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() >= deadline:
                os.close(fd)
                raise LabError(
                    f"another wirespeed process has held {path} for "
                    f"{LOCK_WAIT_SECONDS:.0f} s: cannot build or remove a lab now"
                ) from None
            time.sleep(0.05)


_PROCESS_LOCK = _ProcessLock()


def lock(path: str = LOCK_PATH) -> contextlib.AbstractContextManager[None]:
    """Hold the labs' lock: what is decided under it (a name is free, a lab is this
    process's to remove) stays true until it is released."""
    return _PROCESS_LOCK.held(path)


def record_path(name: str, directory: str = RECORD_DIR) -> str:
    return os.path.join(directory, f"{name}.json")


def to_json(record: LabRecord) -> str:
    limit = record.limit
    ring = {} if limit is None or limit.ring is None else {"ring": limit.ring}
    extra = {} if limit is None else {"limit": {"pps": limit.pps, "bps": limit.bps, **ring}}
    queue = {} if record.link.queue is None else {"queue": record.link.queue}
    # An older wirespeed reads the versions it knows only: a lab it would describe
    # wrongly (without its limit, its queue or its ring) is the only one it is not given.
    version = 4 if ring else 3 if queue else 2 if limit is not None else 1
    return json.dumps(
        {
            "version": version,
            "name": record.name,
            "topology": record.topology.value,
            "link": {
                "name": record.link.name,
                "rate_bps": record.link.rate_bps,
                "mtu": record.link.mtu,
                **queue,
            },
            "mtu": record.mtu,
            "dut_access": record.dut_access,
            "owner": record.owner,
            **extra,
        },
        indent=2,
    )


def from_json(text: str) -> LabRecord | None:
    """The record, or None for a file this version cannot read (then the lab is shown
    without its spec, and can still be torn down)."""
    try:
        data = json.loads(text)
        if data.get("version") not in READABLE_VERSIONS:
            return None
        link = data["link"]
        return LabRecord(
            name=str(data["name"]),
            topology=Topology(data["topology"]),
            link=LinkModel(
                name=str(link["name"]),
                rate_bps=None if link["rate_bps"] is None else int(link["rate_bps"]),
                mtu=int(link["mtu"]),
                queue=None if link.get("queue") is None else float(link["queue"]),
            ),
            mtu=int(data["mtu"]),
            dut_access=str(data.get("dut_access", "netns")),
            owner=None if data.get("owner") is None else str(data["owner"]),
            limit=_limit(data.get("limit")),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


def _limit(data: object) -> ForwardingLimit | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise TypeError("limit is not a mapping")
    pps, bps, ring = data.get("pps"), data.get("bps"), data.get("ring")
    return ForwardingLimit(
        pps=None if pps is None else int(pps),
        bps=None if bps is None else int(bps),
        ring=None if ring is None else int(ring),
    )


def save(record: LabRecord, directory: str = RECORD_DIR) -> None:
    os.makedirs(directory, mode=0o755, exist_ok=True)
    path = record_path(record.name, directory)
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(to_json(record))
    os.replace(temporary, path)  # a reader never sees half a file


def load(name: str, directory: str = RECORD_DIR) -> LabRecord | None:
    try:
        with open(record_path(name, directory), encoding="utf-8") as handle:
            return from_json(handle.read())
    except OSError:
        return None


def names(directory: str = RECORD_DIR) -> list[str]:
    try:
        found = os.listdir(directory)
    except FileNotFoundError:
        return []
    return sorted(f.removesuffix(".json") for f in found if f.endswith(".json"))


def remove(name: str, directory: str = RECORD_DIR) -> None:
    for path in (record_path(name, directory), f"{record_path(name, directory)}.tmp"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
