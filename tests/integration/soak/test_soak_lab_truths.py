"""A lab soak's plan is taken at its word: a fault still in force when the soak ends is
reported until that end, the lab DUT's `forward_pps` limits what it forwards, and a lab
name another soak holds gives way to name-2."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.soak import records
from wirespeed.soak.render import summary_of
from wirespeed.soak.summary import SoakSummary
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

GOAL = 0.1


def soak(tmp_path: Path, lab_name: str, body: str, *extra: str) -> SoakSummary:
    plan = tmp_path / "p.yaml"
    plan.write_text(f"title: truths\n{body}")
    db = tmp_path / "s.db"
    status, _, err = run_cli("soak", str(plan), "--db", str(db), "--lab-name", lab_name, *extra)
    assert status == 0, err
    with Store.open(db, read_only=True) as store:
        found = summary_of(store, None)
    assert found is not None
    return found


def namespaces(lab: str) -> list[str]:
    listed = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=False
    ).stdout
    return [line for line in listed.splitlines() if f"wirespeed-{lab}-" in line]


# One chunk, the path down at its end; or chunks of 5 s, the last of which never opens
# (a blind span until the soak's time is up).
@pytest.mark.parametrize("chunk", ["60s", "5s"])
def test_a_fault_still_in_force_at_the_end_is_reported_until_the_end(
    tmp_path: Path, lab_name: str, chunk: str
) -> None:
    found = soak(
        tmp_path, lab_name,
        "lab: {link: gbe}\npath: {name: R, topology: router}\n"
        f"soak: {{duration: 12s, chunk: {chunk}, faults: [{{at: 8s, down: 30s, kind: link}}]}}\n",
    )  # fmt: skip

    assert found.ended_at is not None and found.started_at is not None
    [fault] = found.faults
    start, end = float(fault["start"]), float(fault["end"])
    assert abs(start - (found.started_at + 8)) <= 0.5
    # Undone when the soak's time was up, not 30 s later.
    assert abs(end - found.ended_at) <= 1.0
    [hit] = [m for m in found.matched if abs(m.outage.start - start) <= GOAL]
    assert hit.cause is not None and hit.cause.injected
    assert not namespaces(lab_name)


def test_the_lab_dut_forwards_no_more_than_its_forward_pps(tmp_path: Path, lab_name: str) -> None:
    # 200 probes a second each way: 400 packets/s offered to a DUT that forwards 300
    # (both directions together). Its ring is 8 packets: the default 256 would hold
    # 0.85 s of this slow a DUT and pass 32 packets/s more over 8 s (measured 345.5).
    found = soak(
        tmp_path, lab_name,
        "lab: {link: gbe, dut: {forward_pps: 300, ring: 8}}\npath: {name: R, topology: router}\n"
        "soak: {duration: 8s, interval: 5ms}\n",
    )  # fmt: skip

    chunks = found.chunks
    sent = sum(c["sent"] for c in chunks)
    up = sent - sum(c["lost_up"] + c["lost_unknown"] for c in chunks)
    down = up - sum(c["lost_down"] for c in chunks)
    forwarded = (up + down) / found.watched
    # The truth, give or take the ring's and the bucket's 13 packets: 300 packets/s.
    assert 270 <= forwarded <= 330, (forwarded, sent, up, down)
    assert not namespaces(lab_name)


# Another process that builds a lab and holds it until its stdin closes.
HOLDER = """
import sys
from wirespeed.lab.lab import Lab, LabSpec
from wirespeed.lab.links import parse_link
from wirespeed.model import Topology
lab = Lab.up(LabSpec(Topology.ROUTER, parse_link("gbe"), name=sys.argv[1]), owned=True)
print("up", flush=True)
sys.stdin.read()
lab.down()
"""


def test_a_lab_name_in_use_gives_way_to_a_numbered_one(tmp_path: Path, lab_name: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, lab_name],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "up\n"
        plan = tmp_path / "p.yaml"
        plan.write_text(
            "lab: {link: gbe}\npath: {name: R, topology: router}\nsoak: {duration: 2s}\n"
        )
        db = tmp_path / "s.db"
        # Given by name, the name is the user's: refused, and the soak stored as failed.
        status, _, err = run_cli("soak", str(plan), "--db", str(db), "--lab-name", lab_name)
        assert status == 2, err
        assert f"lab {lab_name} is in use by PID {holder.pid}" in err
        with Store.open(db, read_only=True) as store:
            [failed] = records.list_soaks(store)
            assert failed.status == "failed"
        # Resumed, it takes the next free name, and keeps it.
        status, _, err = run_cli("soak", "--resume", str(failed.id), "--db", str(db))
        assert status == 0, err
        assert f"built the lab {lab_name}-2 instead" in err
        with Store.open(db, read_only=True) as store:
            [done] = records.list_soaks(store)
        assert done.status == "complete" and done.lab == f"{lab_name}-2"
        assert not namespaces(f"{lab_name}-2")
    finally:
        holder.communicate(input="", timeout=60)
    assert not namespaces(lab_name)
