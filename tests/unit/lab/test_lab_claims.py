"""Whose a lab is: a name a live process holds is passed over or refused, never taken."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.lab import claim, record, system
from wirespeed.lab import lab as lab_module
from wirespeed.lab.claim import LabInUseError, candidate_names, first_free, held_by_other

ME = "100:5"
RUN = "200:7"  # another process, alive in these tests unless said otherwise


def alive(owner: str) -> bool:
    return owner in {ME, RUN}


def test_a_lab_of_a_live_other_process_is_held_and_one_built_by_hand_or_mine_is_not() -> None:
    assert held_by_other(RUN, ME, alive)
    assert not held_by_other(None, ME, alive)  # built by hand: nobody's
    assert not held_by_other(ME, ME, alive)  # this process's own
    assert not held_by_other("300:9", ME, alive)  # its run died: an orphan


def test_a_default_name_gives_way_to_numbered_ones_and_a_chosen_one_does_not() -> None:
    assert list(candidate_names("bridge", rename=False)) == ["bridge"]
    names = list(candidate_names("bridge", rename=True))
    assert names[:3] == ["bridge", "bridge-2", "bridge-3"]
    assert len(names) == claim.MAX_ALTERNATIVES
    # A name that cannot grow a suffix within 40 characters has no alternatives.
    assert list(candidate_names("x" * 40, rename=True)) == ["x" * 40]


def test_the_first_name_no_live_process_holds_is_taken() -> None:
    owners = {"router": RUN, "router-2": "300:9", "router-3": None}
    name, passed = first_free(candidate_names("router", rename=True), owners.get, ME, alive)
    assert name == "router-2"  # its owner died: free to replace
    assert passed == [("router", RUN)]


def test_all_names_held_is_none_with_every_owner() -> None:
    name, passed = first_free(iter(["a", "b"]), lambda _: RUN, ME, alive)
    assert name is None
    assert passed == [("a", RUN), ("b", RUN)]


@pytest.mark.process
def test_the_refusal_names_the_process_and_is_a_usage_error() -> None:
    child = subprocess.Popen(["sleep", "30"])
    try:
        # Until the child has exec'd, /proc shows it as a copy of this Python.
        cmdline = Path(f"/proc/{child.pid}/cmdline")
        deadline = time.monotonic() + 10
        while cmdline.read_bytes() != b"sleep\x0030\x00" and time.monotonic() < deadline:
            time.sleep(0.01)
        error = LabInUseError("bridge", record.process_identity(child.pid))
    finally:
        child.kill()
        child.wait()
    assert error.exit_status == 2
    assert error.message == f"lab bridge is in use by PID {child.pid} (sleep 30)"
    assert error.hint and "--lab-name" in error.hint


def test_an_owner_gone_or_unreadable_is_described_by_its_pid() -> None:
    assert record.describe_owner("999999999:1") == "PID 999999999"
    assert record.describe_owner("junk") == "PID junk"


@pytest.mark.process
def test_the_lock_keeps_another_process_out_until_released(tmp_path: Path) -> None:
    path = str(tmp_path / "labs.lock")
    probe = (
        "import fcntl, os, sys\n"
        "fd = os.open(sys.argv[1], os.O_RDWR)\n"
        "try:\n"
        "    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n"
        "    print('free')\n"
        "except BlockingIOError:\n"
        "    print('held')\n"
    )

    def seen_by_another_process() -> str:
        done = subprocess.run(
            [sys.executable, "-c", probe, path], capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    with record.lock(path):
        with record.lock(path):  # re-entrant in this process: no deadlock
            assert seen_by_another_process() == "held"
        assert seen_by_another_process() == "held"
    assert seen_by_another_process() == "free"


@pytest.fixture
def machine(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, str | None]]:
    """Labs on a pretend machine, name -> owner; what was removed is dropped from it."""
    labs: dict[str, str | None] = {}
    me = record.process_identity()
    monkeypatch.setattr(system, "require_root", lambda what: None)
    monkeypatch.setattr(record, "lock", contextlib.nullcontext)
    monkeypatch.setattr(record, "names", lambda: sorted(labs))
    monkeypatch.setattr(lab_module, "_lab_namespaces", lambda: {n: [] for n in labs})
    monkeypatch.setattr(lab_module, "_owner_of", labs.get)
    monkeypatch.setattr(lab_module, "_remove", lambda name: labs.pop(name, 0) != 0)
    monkeypatch.setattr(record, "owner_alive", lambda owner: owner in {me, RUN})
    yield labs


def test_down_all_keeps_the_labs_of_live_runs_unless_forced(
    machine: dict[str, str | None],
) -> None:
    machine.update({"by-hand": None, "orphan": "300:9", "running": RUN})
    removal = lab_module.down_all()
    assert removal.removed == ("by-hand", "orphan")
    assert removal.kept == (("running", RUN),)
    assert lab_module.down_all(force=True).removed == ("running",)


def test_down_lab_refuses_a_live_runs_lab_and_forced_removes_it(
    machine: dict[str, str | None],
) -> None:
    machine.update({"running": RUN, "by-hand": None})
    with pytest.raises(LabInUseError, match="lab running is in use by PID 200"):
        lab_module.down_lab("running")
    assert "running" in machine
    assert lab_module.down_lab("by-hand")  # built by hand: lab down removes it
    assert lab_module.down_lab("running", force=True)
    assert machine == {}


def test_lab_down_says_which_labs_it_kept_and_why(
    machine: dict[str, str | None],
) -> None:
    machine.update({"by-hand": None, "running": RUN})
    status, out, err = run_cli("lab", "down")
    assert status == 0, err
    assert out == "removed: by-hand\nkept running: in use by PID 200 (--force removes it)\n"
    status, out, err = run_cli("lab", "down", "running")
    assert status == 2
    assert "wirespeed: error: lab running is in use by PID 200" in err
    assert "lab down --force running" in err
