"""What a lab was built from, kept where the next wirespeed process can read it.

A lab outlives the process that built it (`wirespeed lab up`, later `lab status` and
`lab down`), and the namespaces alone do not say which link model shapes them. A small
JSON file per lab under /run (a tmpfs: a reboot, which also removes the namespaces,
removes it too) records the spec. The file format is versioned:

    version 1: name, topology, link {name, rate_bps, mtu}, mtu (the current one),
               dut_access ("netns" or "ssh"; absent in older records: "netns"),
               owner ("PID:STARTTIME" of the run that built it and will remove it; null
               for a lab built by hand, which only `lab down` removes)
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass

from wirespeed.model import LinkModel, Topology

RECORD_DIR = "/run/wirespeed/labs"
RECORD_VERSION = 1


@dataclass(frozen=True)
class LabRecord:
    name: str
    topology: Topology
    link: LinkModel
    mtu: int  # the links' MTU now: the link's own, or the last set_mtu
    dut_access: str = "netns"  # "ssh": the DUT is a dropbear device (lab/ssh_dut.py)
    owner: str | None = None  # process_identity() of the run that owns it


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


def record_path(name: str, directory: str = RECORD_DIR) -> str:
    return os.path.join(directory, f"{name}.json")


def to_json(record: LabRecord) -> str:
    return json.dumps(
        {
            "version": RECORD_VERSION,
            "name": record.name,
            "topology": record.topology.value,
            "link": {
                "name": record.link.name,
                "rate_bps": record.link.rate_bps,
                "mtu": record.link.mtu,
            },
            "mtu": record.mtu,
            "dut_access": record.dut_access,
            "owner": record.owner,
        },
        indent=2,
    )


def from_json(text: str) -> LabRecord | None:
    """The record, or None for a file this version cannot read (then the lab is shown
    without its spec, and can still be torn down)."""
    try:
        data = json.loads(text)
        if data.get("version") != RECORD_VERSION:
            return None
        link = data["link"]
        return LabRecord(
            name=str(data["name"]),
            topology=Topology(data["topology"]),
            link=LinkModel(
                name=str(link["name"]),
                rate_bps=None if link["rate_bps"] is None else int(link["rate_bps"]),
                mtu=int(link["mtu"]),
            ),
            mtu=int(data["mtu"]),
            dut_access=str(data.get("dut_access", "netns")),
            owner=None if data.get("owner") is None else str(data["owner"]),
        )
    except (ValueError, KeyError, TypeError, AttributeError):
        return None


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
