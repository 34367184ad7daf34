"""Soaks through a lab router with injected faults: each outage found at its true start
and length and matched with its injected kernel line; a soak killed with SIGKILL
resumed; Ctrl-C keeps what was measured and leaves nothing behind; memory stays flat."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from soak_helpers import namespaces

from support.cli import run_cli
from wirespeed.soak.render import summary_of
from wirespeed.soak.summary import SoakSummary
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

GOAL = 0.1
WIRESPEED = str(Path(sys.executable).with_name("wirespeed"))


def plan(
    path: Path, duration: float, chunk: float, faults: str = "[]", dut_access: str = "netns"
) -> Path:
    path.write_text(
        f"""title: lab soak
lab: {{link: gbe}}
path: {{name: R, topology: router}}
soak: {{duration: {duration:g}s, chunk: {chunk:g}s, ethtool: [wan], faults: {faults},
        dut_access: {dut_access}}}
"""
    )
    return path


def summary(db: Path) -> SoakSummary:
    with Store.open(db) as store:
        found = summary_of(store, None)
    assert found is not None
    return found


def unexplained(found: SoakSummary, outage_start: float) -> bool:
    """An outage no injected fault made is the shared machine's, if the DUT host's
    backlog dropped packets in its chunk (other tests' traffic fills the same per-CPU
    queues); otherwise it is a false outage."""
    for chunk in found.chunks:
        if chunk["start"] <= outage_start <= chunk["end"]:
            return not chunk["counters"].get("softnet", {}).get("dropped")
    return True


def test_each_injected_outage_is_found_at_its_time_and_matched_with_its_kernel_line(
    tmp_path: Path, lab_name: str
) -> None:
    # Chunks of 5 s: the link fault at 5 s and the forwarding stop at 14 s span a
    # chunk's start; and six chunks show whether memory grows with them.
    faults = (
        "[{at: 5s, down: 3.2s, kind: link}, {at: 14s, down: 2s, kind: forwarding}, "
        "{at: 22s, down: 0.5s, kind: link}]"
    )
    db, said = tmp_path / "s.db", tmp_path / "out.txt"
    with said.open("w") as out:
        process = subprocess.Popen(
            [WIRESPEED, "soak", str(plan(tmp_path / "p.yaml", 30, 5, faults)), "--db", str(db),
             "--lab-name", lab_name],
            stdout=out, stderr=subprocess.STDOUT,
        )  # fmt: skip
        samples = rss_samples(process)

    assert process.returncode == 0, said.read_text()
    found = summary(db)
    assert found.header.status == "complete"
    assert len(found.faults) == 3
    matched = list(found.matched)
    for fault in found.faults:
        start, end = float(fault["start"]), float(fault["end"])
        [hit] = [m for m in matched if abs(m.outage.start - start) <= 1.0]
        matched.remove(hit)
        assert abs(hit.outage.start - start) <= GOAL, fault
        assert abs(hit.outage.duration - (end - start)) <= GOAL, fault
        assert hit.cause is not None and hit.cause.injected
        assert hit.cause.kind == "tx-hang"
    assert not [m.outage for m in matched if unexplained(found, m.outage.start)]
    # Said on stdout, wrapped at its width as any line of the report.
    assert " ".join(found.sentence.split()) in " ".join(said.read_text().split())
    assert 29 <= found.watched <= 32
    assert not namespaces(lab_name)
    # Memory: the chunks after the first few hold no more than those did (a sanity
    # bound; the benchmark measures it over 30 minutes).
    settled = [kb for t, kb in samples if t >= 12]
    assert len(settled) >= 12
    assert max(settled[-6:]) <= max(settled[:6]) * 1.15


def test_the_kernel_log_of_a_dropbear_dut_is_followed_over_ssh(
    tmp_path: Path, lab_name: str
) -> None:
    faults = "[{at: 4s, down: 1.2s, kind: link}, {at: 15s, down: 2s, kind: forwarding}]"
    db = tmp_path / "s.db"
    status, _, err = run_cli(
        "soak", str(plan(tmp_path / "p.yaml", 25, 10, faults, dut_access="ssh")),
        "--db", str(db), "--lab-name", lab_name,
    )  # fmt: skip

    assert status == 0, err
    found = summary(db)
    assert len(found.faults) == 2
    for fault in found.faults:
        [hit] = [m for m in found.matched if abs(m.outage.start - float(fault["start"])) <= GOAL]
        assert hit.cause is not None and hit.cause.injected
        # The line came through the SSH device's sampler, named after its host.
        assert hit.cause.host == f"wirespeed-{lab_name}-dut"
    assert not namespaces(lab_name)


def test_a_soak_killed_with_sigkill_resumes_and_loses_at_most_its_chunk(
    tmp_path: Path, lab_name: str
) -> None:
    db = tmp_path / "s.db"
    process = subprocess.Popen(
        [WIRESPEED, "soak", str(plan(tmp_path / "p.yaml", 30, 5, "[{at: 20s, down: 1s}]")),
         "--db", str(db), "--lab-name", lab_name],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    time.sleep(16)
    killed_at = time.time()
    process.kill()
    process.wait()
    before = summary(db)
    assert before.header.status == "running"  # nobody could say otherwise
    assert before.ended_at is not None and killed_at - before.ended_at <= 5 + 2
    # The chunk in progress: its irtt lives on, writes its file at its end, and nobody
    # reads or removes it. (Unless another process's start removed the orphaned lab
    # first, its irtt with it: then the file the soak was about to read stands for it.)
    pattern = f"wirespeed-soak-{process.pid}-*.json"
    deadline = time.monotonic() + 10
    while not list(Path("/tmp").glob(pattern)) and time.monotonic() < deadline:
        time.sleep(0.2)
    (Path("/tmp") / pattern.replace("*", str(round(killed_at * 1000)))).write_text("{}")
    left = list(Path("/tmp").glob(pattern))
    try:
        status, _, err = run_cli("soak", "--resume", str(before.header.id), "--db", str(db))
        assert status == 0, err
        assert not [path for path in left if path.exists()]
        assert all(f"removed {path}" in err for path in left)
    finally:
        for path in left:
            path.unlink(missing_ok=True)
    after = summary(db)
    assert after.header.status == "complete"
    assert 29 <= after.watched <= 32
    assert [f["kind"] for f in after.faults] == ["link"]  # at 20 s of watching: after the kill
    [fault] = after.faults
    assert any(abs(m.outage.start - float(fault["start"])) <= GOAL for m in after.matched)
    assert not namespaces(lab_name)


def test_ctrl_c_keeps_the_finished_chunks_and_leaves_nothing_behind(
    tmp_path: Path, lab_name: str
) -> None:
    db = tmp_path / "s.db"
    process = subprocess.Popen(
        # Longer than the wait below: stopped while it runs, however slow the machine.
        [WIRESPEED, "soak", str(plan(tmp_path / "p.yaml", 120, 5, "[{at: 6s, down: 20s}]")),
         "--db", str(db), "--lab-name", lab_name],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    # Two chunks kept and the fault (from 6 s of watching) in progress: waited for, as
    # a busy machine may take seconds more to build the lab.
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.5)
        found = None
        if db.exists():
            with Store.open(db) as store:
                found = summary_of(store, None)
        if found is not None and len(found.chunks) >= 2 and found.watched >= 12:
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)

    assert process.returncode == 130, err
    found = summary(db)
    assert found.header.status == "interrupted"
    assert len(found.chunks) >= 2
    assert b"outage" in out
    assert not namespaces(lab_name)
    leftovers = subprocess.run(
        ["pgrep", "-af", f"wirespeed-{lab_name}"], capture_output=True, check=False
    )
    assert leftovers.stdout == b""


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def rss_samples(process: subprocess.Popen[bytes]) -> list[tuple[float, int]]:
    """The process's resident size each second until it ends: (seconds, kB)."""
    samples: list[tuple[float, int]] = []
    started = time.monotonic()
    while process.poll() is None:
        time.sleep(1)
        try:
            samples.append((time.monotonic() - started, rss_kb(process.pid)))
        except (OSError, AssertionError):
            break
    process.wait()
    return samples


def test_load_bursts_run_on_their_schedule_and_are_kept(tmp_path: Path, lab_name: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        """lab: {link: 100mbit}
path: {name: R, topology: router}
soak: {duration: 20s, chunk: 10s, bursts: {every: 5s, duration: 1s}}
"""
    )
    db = tmp_path / "s.db"
    status, _, err = run_cli("soak", str(path), "--db", str(db), "--lab-name", lab_name)

    assert status == 0, err
    found = summary(db)
    assert len(found.bursts) >= 3  # at 5, 10 and 15 s (one at 20 s ends with the soak)
    for start, end in found.bursts[:3]:
        assert 0.8 <= end - start <= 3
    # Nothing went wrong: the one note says the lab DUT's kernel log is this machine's.
    [note] = found.notes
    assert note.startswith("the lab DUT's kernel log is this machine's, shared by every lab")
    leftovers = subprocess.run(["pgrep", "-af", "iperf3 -s"], capture_output=True, check=False)
    assert f"wirespeed-{lab_name}" not in leftovers.stdout.decode()
