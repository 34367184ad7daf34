"""`wirespeed soak` as a user meets it before and after a soak: its outputs checked up
front and written in the format of each file's extension, the SSH options every command
that reaches devices takes, the soak a report picks by default, who holds a live soak,
and the chunk files a killed soak left behind."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.process_owner import process_owner
from wirespeed.soak import records
from wirespeed.soak.chunk import parse_chunk
from wirespeed.soak.render import report_dict, summary_of
from wirespeed.soak.stream import remove_left_outputs
from wirespeed.store import Store

FIXTURES = Path(__file__).parents[2] / "fixtures" / "soak"
PLAN = "lab: {link: gbe}\npath: {name: R, topology: router}\nsoak: {duration: 3s}\n"
REAL_HOSTS = """hosts:
  a: {ssh: "root@127.0.0.1:1"}
  b: {address: 127.0.0.1}
path: {name: R, topology: router, client: a, server: b}
soak: {duration: 3s}
"""


def stored(db: Path, *, streamed: int = 1, empty: int = 0) -> list[int]:
    """`streamed` soaks with a captured chunk each, then `empty` soaks without one."""
    probes = parse_chunk((FIXTURES / "link_fault.irtt.json").read_text(), 10**7)
    ids = []
    with Store.open(db) as store:
        for number in range(streamed + empty):
            soak_id = records.begin(store, f"soak {number}", PLAN, "soak-x", {})
            if number < streamed:
                records.add_chunk(
                    store, soak_id, records.ChunkRecord(0, "probes", 1.0, 4.0, probes)
                )
                records.set_status(store, soak_id, "complete")
            ids.append(soak_id)
    return ids


def test_an_output_that_cannot_be_written_is_refused_before_anything_is_read(
    tmp_path: Path,
) -> None:
    db = tmp_path / "s.db"
    stored(db)
    status, out, err = run_cli("soak", "--report", "1", "--db", str(db), "-o", "/nonexistent/x.md")
    assert status == 2, err
    assert "the directory /nonexistent does not exist" in err
    assert "Traceback" not in err and out == ""


def test_a_soak_with_an_output_that_cannot_be_written_is_refused_before_it_starts(
    tmp_path: Path,
) -> None:
    plan = tmp_path / "p.yaml"
    plan.write_text(PLAN)
    db = tmp_path / "s.db"
    status, _, err = run_cli("soak", str(plan), "--db", str(db), "-o", "/nonexistent/x.md")
    assert status == 2, err
    assert "the directory /nonexistent does not exist" in err
    assert not db.exists()  # nothing stored, no lab built


def test_each_output_is_written_in_its_extension_s_format(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    stored(db)
    files = [tmp_path / name for name in ("a.md", "a.json", "a.html", "a.txt")]
    status, _, err = run_cli(
        "soak", "--report", "--db", str(db), *(arg for f in files for arg in ("-o", str(f)))
    )
    assert status == 0, err
    md, js, page, text = (f.read_text() for f in files)
    assert md.startswith("# soak 0\n\n- soak 1 (complete)\n- 1 outage in 3 s") and "| 1 | " in md
    with Store.open(db, read_only=True) as store:
        summary = summary_of(store, 1)
    assert summary is not None
    # The JSON a script parses, byte for byte as the soak has always written it.
    assert js == json.dumps(report_dict(summary), indent=2) + "\n"
    assert json.loads(js)["soak"] == 1
    assert '<section class="card" id="outages">' in page and 'id="soak-timeline"' in page
    assert "\n  soak 1 (complete)\n  1 outage in 3 s" in text and "\nOutages\n" in text


@pytest.mark.parametrize("name", ["x.pdf", "report"])
def test_an_extension_that_names_no_format_is_refused(tmp_path: Path, name: str) -> None:
    db = tmp_path / "s.db"
    stored(db)
    status, _, err = run_cli("soak", "--report", "--db", str(db), "-o", str(tmp_path / name))
    assert status == 2, err
    assert "cannot tell the format" in err
    assert not (tmp_path / name).exists()


def test_a_comparison_is_written_in_every_format_of_compare(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    stored(db, streamed=2)
    files = [tmp_path / name for name in ("c.html", "c.csv", "c.markdown")]
    status, _, err = run_cli(
        "soak", "--compare", "--db", str(db), *(arg for f in files for arg in ("-o", str(f)))
    )
    assert status == 0, err
    page, table, markdown = (f.read_text() for f in files)
    # The table of soaks is the page's part `compare-soaks`, a column per soak.
    assert '<section class="card" id="compare-soaks"><h2>Measurements</h2>' in page
    assert '<th class="num">soak 1</th><th class="num">soak 2</th>' in page
    assert table.startswith("test_id,") and "soak_id" in table.splitlines()[0]
    assert markdown.startswith("# 2 soaks compared")


def test_a_soak_that_never_streamed_is_not_the_latest(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    first, second, _phantom = stored(db, streamed=2, empty=1)
    status, out, err = run_cli("soak", "--report", "--db", str(db))
    assert status == 0, err
    assert f"\n  soak {second} (complete)\n" in out
    status, out, err = run_cli("soak", "--compare", "--db", str(db), "--format", "json")
    assert status == 0, err
    assert [column["soak_id"] for column in json.loads(out)["columns"]] == [first, second]


def test_a_soak_whose_hosts_cannot_be_reached_is_stored_as_failed(tmp_path: Path) -> None:
    plan = tmp_path / "p.yaml"
    plan.write_text(REAL_HOSTS)
    db = tmp_path / "s.db"
    status, _, err = run_cli("soak", str(plan), "--db", str(db))
    assert status != 0 and "Traceback" not in err, err
    with Store.open(db, read_only=True) as store:
        [header] = records.list_soaks(store)
    assert header.status == "failed"
    # Reported, it says it watched nothing, not that nothing happened.
    status, out, _ = run_cli("soak", "--report", "--db", str(db))
    assert status == 0
    assert f"\n  soak {header.id} (failed)\n  nothing watched (no probe was sent)" in out


def test_soak_takes_the_ssh_options_of_run(tmp_path: Path) -> None:
    plan = tmp_path / "p.yaml"
    plan.write_text(REAL_HOSTS)
    db = tmp_path / "s.db"
    status, _, err = run_cli(
        "soak", str(plan), "--db", str(db), "--ssh-config", str(tmp_path / "none"),
        "--accept-new-host-key", usage_exit_as_status=True,
    )  # fmt: skip
    assert status == 2, err
    assert f"--ssh-config {tmp_path / 'none'}: no such file" in err
    assert not db.exists()


def test_resuming_a_live_soak_says_who_holds_it(tmp_path: Path) -> None:
    db = tmp_path / "s.db"
    [soak_id] = stored(db, streamed=0, empty=1)  # begun by this process: alive
    status, _, err = run_cli("soak", "--resume", str(soak_id), "--db", str(db))
    assert status == 2, err
    assert f"soak {soak_id} is still running: PID {os.getpid()} (" in err
    assert process_owner() not in err


@pytest.mark.process
def test_the_chunk_files_of_killed_soaks_are_removed_and_no_others(tmp_path: Path) -> None:
    ended = subprocess.Popen(["true"])
    ended.wait()
    left = tmp_path / f"wirespeed-soak-{ended.pid}-1795838695123.json"
    mine = tmp_path / f"wirespeed-soak-{os.getpid()}-1795838695123.json"
    other = tmp_path / f"wirespeed-soak-{ended.pid}-x.json"
    for path in (left, mine, other):
        path.write_text("{}")

    assert remove_left_outputs(tmp_path) == [left]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([mine.name, other.name])
