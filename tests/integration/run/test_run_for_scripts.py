"""`wirespeed run` in a script: -q prints only the run id, --json one document, over
loopback with real iperf (no root), the store chosen by WIRESPEED_DB."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from plans import LOOPBACK

from support.cli import run_cli


@pytest.fixture
def plan(tmp_path: Path) -> Path:
    path = tmp_path / "loopback.yaml"
    path.write_text(LOOPBACK)
    return path


def test_quiet_run_prints_only_its_id_on_stdout_for_the_store_wirespeed_db_names(
    plan: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = tmp_path / "chosen.db"
    monkeypatch.setenv("WIRESPEED_DB", str(db))
    status, out, err = run_cli("run", "-q", "--only", "1", str(plan))
    assert status == 0, err
    assert out == "1\n"  # id=$(wirespeed run -q plan.yaml)
    assert "stored" not in err  # -q: no notices, only the plan's warning
    status, out, _ = run_cli("runs", "--json")  # the same store, by WIRESPEED_DB
    assert [run["id"] for run in json.loads(out)["runs"]] == [1]
    assert db.is_file()


def test_run_prints_its_table_on_stdout_and_where_it_is_stored_on_stderr(
    plan: Path, tmp_path: Path
) -> None:
    status, out, err = run_cli("run", "--db", str(tmp_path / "r.db"), "--only", "1", str(plan))
    assert status == 0, err
    assert out.startswith("loopback\n  run 1, ")  # the report's head, then its table
    assert "run 1 stored; `wirespeed report 1` shows it again" in err


def test_run_as_json_gives_the_run_id_status_and_each_trials_figures(
    plan: Path, tmp_path: Path
) -> None:
    db = tmp_path / "r.db"
    status, out, err = run_cli("run", "--json", "-q", "--db", str(db), "--only", "1,2", str(plan))
    assert status == 0, err
    document = json.loads(out)
    assert document["format"] == "wirespeed-run" and document["version"] == 1
    assert document["run"] == 1 and document["status"] == "complete"
    assert document["store"] == f"sqlite:///{db}"
    assert document["report"] == "wirespeed report 1 --format json"
    assert document["expectations"]["verdict"] is None  # the plan expects nothing
    assert (document["trials_ok"], document["trials_failed"]) == (2, 0)
    tcp, udp = document["trials"]
    assert tcp["key"] == "1/lo/default/1" and tcp["status"] == "ok" and tcp["reason"] is None
    (up,) = udp["flows"]
    assert up["flow"] == "up" and up["goodput_source"] == "server"
    # 100 Mbit/s of payload asked for over loopback: a sanity bound, not a figure.
    assert 50e6 < up["goodput_bps"] < 110e6 and 0 <= up["loss_percent"] < 50
    assert tcp["flows"][0]["loss_percent"] is None
