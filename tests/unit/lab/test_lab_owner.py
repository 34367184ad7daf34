"""Which labs a run owns: a lab whose owning process is gone is an orphan to remove."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from wirespeed.lab import record
from wirespeed.lab.links import parse_link
from wirespeed.model import Topology


@pytest.mark.process
def test_this_process_is_alive_and_a_finished_one_is_not() -> None:
    assert record.owner_alive(record.process_identity())
    child = subprocess.Popen(["true"])
    identity = record.process_identity(child.pid)
    child.wait()
    assert not record.owner_alive(identity)


def test_a_reused_pid_with_another_start_time_is_not_the_owner() -> None:
    pid, _, start = record.process_identity().partition(":")
    assert not record.owner_alive(f"{pid}:{int(start) + 1}")
    assert not record.owner_alive("not-a-pid")


def test_owner_and_dut_access_survive_the_record_and_old_records_still_read(
    tmp_path: Path,
) -> None:
    lab = record.LabRecord("x", Topology.BRIDGE, parse_link("gbe"), 1500, "ssh", "12:34")
    record.save(lab, str(tmp_path))
    assert record.load("x", str(tmp_path)) == lab
    assert record.names(str(tmp_path)) == ["x"]
    written_before = json.loads(record.to_json(lab))
    del written_before["dut_access"], written_before["owner"]
    loaded = record.from_json(json.dumps(written_before))
    assert loaded is not None
    assert (loaded.dut_access, loaded.owner) == ("netns", None)
