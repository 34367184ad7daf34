"""A soak through a lab SSH DUT that freezes or restarts: the probe stream never waits
for the device, the silence and the restart are events beside the outage they explain,
and the kernel's lines written during the silence and just after it are kept."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from soak_helpers import namespaces

from support.cli import run_cli
from wirespeed.soak.render import summary_of
from wirespeed.soak.summary import SoakSummary
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

GOAL = 0.1
FREEZE = 16.0  # seconds the device is frozen, from 10 s into the soak
SOAK = 36.0


def soak(tmp_path: Path, lab_name: str, duration: float, fault: str) -> tuple[SoakSummary, float]:
    plan = tmp_path / "p.yaml"
    plan.write_text(
        "title: device\nlab: {link: gbe}\npath: {name: R, topology: router}\n"
        f"soak: {{duration: {duration:g}s, chunk: 10s, dut_access: ssh, faults: [{fault}]}}\n"
    )
    db = tmp_path / "s.db"
    status, _, err = run_cli("soak", str(plan), "--db", str(db), "--lab-name", lab_name)
    assert status == 0, err
    with Store.open(db, read_only=True) as store:
        found = summary_of(store, None)
    assert found is not None
    return found, time.time()


def wan_is(lab: str, state: str) -> bool:
    shown = subprocess.run(
        ["ip", "netns", "exec", f"wirespeed-{lab}-dut", "ip", "-o", "link", "show", "wan"],
        capture_output=True, text=True, check=False,
    ).stdout  # fmt: skip
    return f"state {state}" in shown or (state == "DOWN" and "state" in shown and "UP" not in shown)


def when(condition: Callable[[], bool], timeout: float) -> float | None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return time.time()
        time.sleep(0.05)
    return None


def kernel_line(text: str) -> float:
    """A line in the kernel's log (which the lab DUT's shares), and when it was written."""
    with open("/dev/kmsg", "w") as kmsg:
        kmsg.write(f"<6>{text}\n")
    return time.time()


def test_a_freeze_is_one_outage_beside_the_device_not_answering(
    tmp_path: Path, lab_name: str
) -> None:
    written: dict[str, float] = {}

    def write_lines() -> None:
        # One line while the device is frozen, one 5 s after it answers again.
        if when(lambda: wan_is(lab_name, "DOWN"), 60) is None:
            return
        time.sleep(FREEZE / 2)
        written["during"] = kernel_line(f"fz-{lab_name}: written during the freeze")
        if when(lambda: wan_is(lab_name, "UP"), FREEZE + 10) is None:
            return
        time.sleep(5)
        written["after"] = kernel_line(f"fz-{lab_name}: written after the freeze")

    writer = threading.Thread(target=write_lines, daemon=True)
    writer.start()
    # At 10 s: the first chunk's boundary. (The 40 s freeze of a 60 s soak is measured
    # by benchmarks/soak_device.py: docs/benchmarks.md.)
    found, _ = soak(tmp_path, lab_name, SOAK, f"{{at: 10s, down: {FREEZE:g}s, kind: freeze}}")
    writer.join(timeout=5)

    assert found.started_at is not None and found.ended_at is not None
    # The stream never waited for the device: it lasted the soak's duration.
    assert abs((found.ended_at - found.started_at) - SOAK) <= 1.0
    [fault] = found.faults
    start, end = float(fault["start"]), float(fault["end"])
    [hit] = [m for m in found.matched if abs(m.outage.start - start) <= 1.0]
    assert abs(hit.outage.start - start) <= GOAL
    assert abs(hit.outage.duration - (end - start)) <= GOAL
    [silent] = [e for e in found.device if e.kind == "no-answer"]
    assert abs(silent.duration - FREEZE) <= 4.0, silent
    assert abs(silent.at - start) <= 3.0 and abs(silent.end - end) <= 4.0, silent
    assert "did not answer" in found.sentence and "beside the outage" in found.sentence
    # Both kernel lines were read: the one written while the device was silent too.
    for moment in ("during", "after"):
        text = f"fz-{lab_name}: written {moment} the freeze"
        [line] = [e for e in found.events if e.message == text]
        assert abs(line.at - written[moment]) <= 1.0, moment
    assert not found.warnings
    assert not namespaces(lab_name)


def test_a_restart_is_an_event(tmp_path: Path, lab_name: str) -> None:
    found, _ = soak(tmp_path, lab_name, 20, "{at: 5s, down: 3s, kind: restart}")

    [fault] = found.faults
    start, end = float(fault["start"]), float(fault["end"])
    [restart] = [e for e in found.device if e.kind == "restart"]
    assert restart.detail == "new boot id"
    # Dated from when it went silent (the first question after the fault that it left
    # unanswered: a check each second, two to answer), never from its last answer
    # before; seen when it answered again, soon after its SSH server was back.
    assert start - 0.2 <= restart.at <= start + 3.5, (restart, start)
    assert restart.end <= end + 8, restart
    assert "restarted (new boot id) (beside the outage)" in found.sentence
    assert found.header.status == "complete"
    assert not namespaces(lab_name)
