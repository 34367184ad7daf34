"""A SQLite store on a read-only mount is read by the commands that read, and refused up
front by those that write. Root: mount."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest
from store_mounts import LOOPBACK, SEED_OUTPUT, cli, read_only_view

from wirespeed.store import RunInfo, Store

pytestmark = pytest.mark.root


def test_runs_and_report_read_a_store_on_a_read_only_mount(tmp_path: Path) -> None:
    written = tmp_path / "written"
    status, _, err = cli("import", "--db", str(written / "runs.db"), str(SEED_OUTPUT))
    assert status == 0, err
    # Closed cleanly: no -shm file, which SQLite's mode=ro needs and cannot make here.
    assert sorted(p.name for p in written.iterdir()) == ["runs.db"]

    with read_only_view(written, tmp_path / "ro") as ro:
        db = str(ro / "runs.db")
        status, out, err = cli("runs", "--db", db)
        assert status == 0, err
        assert "import of 1 file(s)" in out
        status, out, err = cli("report", "--db", db, "--format", "json")
        assert status == 0, err
        assert json.loads(out)["run"]["id"] == 1
        status, out, err = cli("compare", "--db", db, "1", "1")
        assert status == 0, err
        assert sorted(p.name for p in ro.iterdir()) == ["runs.db"]


def test_a_store_a_run_is_writing_is_read_through_a_read_only_mount(tmp_path: Path) -> None:
    written = tmp_path / "written"
    written.mkdir()
    # The writer closes first: SQLite keeps a reader's descriptors of a file open while
    # the same process holds locks on it through another path (here, the writer's).
    with read_only_view(written, tmp_path / "ro") as ro, Store.open(written / "runs.db") as writer:
        writer.begin_run(RunInfo(title="first", started_at=time.time()))
        status, out, err = cli("runs", "--db", str(ro / "runs.db"))
        assert status == 0, err
        assert "first" in out
        # Its later commits are seen too: the reader reads the writer's -wal.
        writer.begin_run(RunInfo(title="second", started_at=time.time()))
        status, out, err = cli("runs", "--db", str(ro / "runs.db"))
        assert status == 0, err
        assert "second" in out


def test_writing_commands_refuse_a_read_only_mount_before_measuring(tmp_path: Path) -> None:
    written = tmp_path / "written"
    status, _, err = cli("import", "--db", str(written / "runs.db"), str(SEED_OUTPUT))
    assert status == 0, err
    plan = tmp_path / "loopback.yaml"
    plan.write_text(LOOPBACK)
    with read_only_view(written, tmp_path / "ro") as ro:
        db = str(ro / "runs.db")
        began = time.monotonic()
        status, _, err = cli("run", "--db", db, "--quiet", str(plan))
        took = time.monotonic() - began
        assert status == 2, err
        assert f"cannot write to the store at {db}: it is on a read-only file system" in err
        assert "`wirespeed runs` and `wirespeed report` can read it" in err
        assert took < 1.0  # three trials of 1 s would have been measured first
        status, _, err = cli("import", "--db", db, str(SEED_OUTPUT))
        assert status == 2 and "read-only file system" in err, err
    status, out, _ = cli("runs", "--db", str(written / "runs.db"))
    assert status == 0 and out.count("import of 1 file(s)") == 1


def test_soak_report_and_compare_read_a_store_on_a_read_only_mount(tmp_path: Path) -> None:
    from wirespeed.soak import records
    from wirespeed.soak.chunk import parse_chunk

    fixtures = Path(__file__).parents[2] / "fixtures" / "soak"
    probes = parse_chunk((fixtures / "link_fault.irtt.json").read_text(), 10**7)
    plan = "lab: {link: gbe}\npath: {name: R, topology: router}\nsoak: {duration: 3s}\n"
    written = tmp_path / "written"
    written.mkdir()
    with Store.open(written / "runs.db") as store:
        for _ in range(2):
            soak_id = records.begin(store, "t", plan, "soak-x", {})
            records.add_chunk(store, soak_id, records.ChunkRecord(0, "probes", 1.0, 4.0, probes))
            records.set_status(store, soak_id, "complete")

    with read_only_view(written, tmp_path / "ro") as ro:
        db = str(ro / "runs.db")
        status, out, err = cli("soak", "--report", "--db", db)
        assert status == 0, err
        assert "\n  soak 2 (complete)\n  1 outage in 3 s" in out
        status, out, err = cli("soak", "--compare", "--db", db, "--format", "json")
        assert status == 0, err
        assert [column["soak_id"] for column in json.loads(out)["columns"]] == [1, 2]
        assert sorted(p.name for p in ro.iterdir()) == ["runs.db"]
