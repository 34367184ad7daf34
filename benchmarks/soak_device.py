"""A soak through a lab SSH DUT that freezes, restarts, or whose SSH alone stops.

Each case is a lab soak (router, gbe, `dut_access: ssh`, 10 s chunks), repeated:

  - freeze-boundary: a 40 s freeze (every dropbear process stopped, `wan` down) at 10 s,
    a chunk's boundary, in a 60 s soak; a kernel line written 20 s into the freeze and
    one 5 s after it ended;
  - freeze-mid: the same freeze at 5 s, in the middle of a chunk;
  - ssh-only: dropbear stopped for 20 s from 15 s, the path up (done here, not by the
    plan): the stream must go on without a gap;
  - restart: every process of the DUT killed at 5 s, dropbear back 3 s later with a new
    boot id, in a 20 s soak.

Per soak: the outages (count, lengths) against the fault's true length, the device's
events, whether the two kernel lines were kept (and their time error), the stream's
span against the soak's duration, the probes sent against those due, and the command's
wall time.

    sudo .venv/bin/python -m benchmarks.soak_device [--repeat 3] [--case freeze-boundary]
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.common import emit
from wirespeed.soak.render import summary_of
from wirespeed.store import Store

WIRESPEED = str(Path(sys.executable).with_name("wirespeed"))
INTERVAL = 0.01

# case -> (duration s, faults, what runs beside the soak)
CASES: dict[str, tuple[float, str]] = {
    "freeze-boundary": (60, "[{at: 10s, down: 40s, kind: freeze}]"),
    "freeze-mid": (60, "[{at: 5s, down: 40s, kind: freeze}]"),
    "ssh-only": (40, "[]"),
    "restart": (20, "[{at: 5s, down: 3s, kind: restart}]"),
}


def wan_state(lab: str) -> str:
    shown = subprocess.run(
        ["ip", "netns", "exec", f"wirespeed-{lab}-dut", "ip", "-o", "link", "show", "wan"],
        capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    return "UP" if "state UP" in shown else ("DOWN" if shown else "")


def when(condition: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def kernel_line(text: str) -> float:
    with open("/dev/kmsg", "w") as kmsg:
        kmsg.write(f"<6>{text}\n")
    return time.time()


def dropbear(lab: str, sig: signal.Signals) -> None:
    listed = subprocess.run(
        ["ip", "netns", "pids", f"wirespeed-{lab}-dut"], capture_output=True, text=True,
        check=False,
    ).stdout.split()  # fmt: skip
    for pid in listed:
        try:
            if Path(f"/proc/{pid}/comm").read_text().strip() == "dropbear":
                os.kill(int(pid), sig)
        except OSError:
            continue


def beside(case: str, lab: str, written: dict[str, float]) -> None:
    """What the case does beside the soak's own faults."""
    if case.startswith("freeze"):
        if not when(lambda: wan_state(lab) == "DOWN", 90):
            return
        time.sleep(20)
        written["during"] = kernel_line(f"{lab}: written during the freeze")
        if not when(lambda: wan_state(lab) == "UP", 40):
            return
        time.sleep(5)
        written["after"] = kernel_line(f"{lab}: written after the freeze")
    elif case == "ssh-only":
        if not when(lambda: wan_state(lab) == "UP", 90):
            return
        time.sleep(15)
        dropbear(lab, signal.SIGSTOP)
        written["stopped"] = time.time()
        time.sleep(20)
        dropbear(lab, signal.SIGCONT)
        written["continued"] = time.time()


def one(case: str, index: int) -> dict[str, Any]:
    duration, faults = CASES[case]
    lab = f"fz-bench-{case[:8]}-{index}"
    written: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        plan = Path(tmp) / "p.yaml"
        plan.write_text(
            "title: device\nlab: {link: gbe}\npath: {name: R, topology: router}\n"
            f"soak: {{duration: {duration:g}s, chunk: 10s, dut_access: ssh, faults: {faults}}}\n"
        )
        db = Path(tmp) / "s.db"
        side = threading.Thread(target=beside, args=(case, lab, written), daemon=True)
        side.start()
        began = time.monotonic()
        done = subprocess.run(
            [WIRESPEED, "soak", str(plan), "--db", str(db), "--lab-name", lab],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        wall = time.monotonic() - began
        side.join(timeout=5)
        with Store.open(db, read_only=True) as store:
            found = summary_of(store, None)
    assert found is not None and found.started_at is not None and found.ended_at is not None
    row: dict[str, Any] = {
        "case": case,
        "exit": done.returncode,
        "command_wall_s": round(wall, 1),
        "stream_span_error_s": round(found.ended_at - found.started_at - duration, 3),
        "probes_sent": found.sent,
        "probes_due": round(duration / INTERVAL),
        "outages_s": [round(m.outage.duration, 3) for m in found.matched],
        "device_events": [
            (e.kind, round(e.at - found.started_at, 1), round(e.duration, 1), e.detail)
            for e in found.device
        ],
        "warnings": list(found.warnings),
        "sentence": found.sentence,
    }
    for fault in found.faults:
        row["fault_s"] = round(float(fault["end"]) - float(fault["start"]), 3)
    for moment in ("during", "after"):
        if moment in written:
            text = f"{lab}: written {moment} the freeze"
            kept = [e for e in found.events if e.message == text]
            row[f"line_{moment}"] = round(kept[0].at - written[moment], 3) if kept else None
    if "stopped" in written:
        row["ssh_stopped_s"] = round(written["continued"] - written["stopped"], 1)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--case", choices=sorted(CASES), action="append")
    args = parser.parse_args()
    for case in args.case or list(CASES):
        rows = [one(case, index) for index in range(args.repeat)]
        emit(f"soak_device_{case}", {"runs": rows})


if __name__ == "__main__":
    main()
