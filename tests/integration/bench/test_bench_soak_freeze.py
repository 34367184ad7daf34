"""A soak through the foreign bench's router while it freezes: its SSH server stopped
(SIGSTOP, as a hung device's) and its WAN port down for a while, done by hand as a user's
router would do it by itself. The stream between the laptop and the workstation never
waits for the router; the silence is an event beside the outage it explains, and the
kernel's lines written during it and just after it are read back."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from bench_runs import HOSTS, WIRESPEED, MakeBench

from support.foreign_bench import ForeignBench

pytestmark = [pytest.mark.root, pytest.mark.slow]

DURATION = 30.0
FROZEN = 12.0


def _pids(namespace: str, name: str) -> list[int]:
    listed = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
    ).stdout.split()
    found = []
    for pid in listed:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == name:
                found.append(int(pid))
        except OSError:
            continue
    return found


def _kernel_line(text: str) -> float:
    with open("/dev/kmsg", "w") as kmsg:
        kmsg.write(f"<6>{text}\n")
    return time.time()


def _freeze_later(bench: ForeignBench, marks: dict[str, float]) -> None:
    """Once the stream runs (irtt on the laptop), 8 s later: the router freezes."""
    deadline = time.monotonic() + 60
    while not _pids(bench.pc, "irtt"):
        if time.monotonic() > deadline:
            return
        time.sleep(0.05)
    time.sleep(8)
    stopped = _pids(bench.router, "dropbear")
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    try:
        subprocess.run(["ip", "-n", bench.router, "link", "set", "wan", "down"], check=True)
        marks["down"] = time.time()
        time.sleep(FROZEN / 2)
        marks["during"] = _kernel_line(f"{bench.prefix}: written during the freeze")
        time.sleep(FROZEN / 2)
    finally:
        subprocess.run(["ip", "-n", bench.router, "link", "set", "wan", "up"], check=True)
        marks["up"] = time.time()
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
    time.sleep(3)
    marks["after"] = _kernel_line(f"{bench.prefix}: written after the freeze")


def test_a_frozen_router_is_one_outage_beside_it_not_answering(
    foreign_bench: MakeBench, tmp_path: Path
) -> None:
    bench = foreign_bench()
    plan = tmp_path / "soak.yaml"
    plan.write_text(
        "title: router freeze\n"
        + HOSTS
        + "path: {name: NAT, topology: nat, client: laptop, server: workstation, dut: router}\n"
        + f"soak: {{duration: {DURATION:g}s, chunk: 10s}}\n"
    )
    db = tmp_path / "soak.db"
    marks: dict[str, float] = {}
    freezer = threading.Thread(target=_freeze_later, args=(bench, marks), daemon=True)
    freezer.start()
    done = subprocess.run(
        [*WIRESPEED, "soak", str(plan), "--ssh-config", str(bench.ssh_config), "--db", str(db)],
        capture_output=True, text=True, timeout=180, check=False,
    )  # fmt: skip
    freezer.join(timeout=30)
    assert done.returncode == 0, done.stderr[-3000:]
    assert {"down", "up", "during", "after"} <= set(marks), marks
    report = subprocess.run(
        [*WIRESPEED, "soak", "--report", "--db", str(db), "--format", "json"],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    found = json.loads(report)

    # The stream never waited for the router's SSH: it lasted the soak's duration.
    assert abs(found["ended_at"] - found["started_at"] - DURATION) <= 1.0
    # One outage: the WAN port's time down, to the probe interval and this machine's
    # stalls (the port was taken down and up by hand, between two probes).
    [outage] = found["outages"]
    assert abs(outage["start"] - marks["down"]) <= 0.5, (outage, marks)
    assert abs(outage["duration"] - (marks["up"] - marks["down"])) <= 0.5, (
        outage,
        marks,
        json.dumps(found["chunks"]),
        found["notes"],
    )
    # The router's silence is an event of about the freeze's length.
    silences = [e for e in found["device_events"] if e["kind"] == "no-answer"]
    assert len(silences) == 1, found["device_events"]
    assert abs(silences[0]["end"] - silences[0]["at"] - FROZEN) <= 4.0, silences
    assert "did not answer" in found["sentence"]
    # Both kernel lines were read back, the one written while the router was silent too.
    messages = [e["message"] for e in found["events"]]
    for moment in ("during", "after"):
        assert f"{bench.prefix}: written {moment} the freeze" in messages, messages[-5:]
    assert not found.get("warnings")
