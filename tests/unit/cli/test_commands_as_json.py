"""The JSON documents of `runs --json` and `check --json` on the real CLI."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import run_cli
from wirespeed.store import Store

FIXTURES = Path(__file__).parents[2] / "fixtures"
SEED = FIXTURES / "seeds" / "r2s-br0-test1.txt"
EXAMPLES = Path(__file__).parents[3] / "examples"

RUN_KEYS = {"id", "title", "started_at", "finished_at", "status", "trials_ok"}
PROBLEM_KEYS = {"file", "line", "column", "severity", "message", "hint"}


def test_runs_as_json_lists_every_run_with_its_counts_and_the_store(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    for title in ("first", "second"):
        assert run_cli("import", "--db", str(db), "--title", title, str(SEED))[0] == 0
    status, out, _ = run_cli("runs", "--json", "--db", str(db))
    assert status == 0
    document = json.loads(out)
    assert document["format"] == "wirespeed-runs" and document["version"] == 1
    assert document["store"] == f"sqlite:///{db}"
    runs = document["runs"]
    assert [(run["id"], run["title"]) for run in runs] == [(1, "first"), (2, "second")]
    assert set(runs[0]) >= RUN_KEYS
    assert runs[0]["status"] == "complete" and runs[0]["trials_ok"] == 1
    assert runs[0]["trials_failed"] == 0


def test_runs_as_json_of_an_empty_store_is_an_empty_list(tmp_path: Path) -> None:
    Store.open(tmp_path / "runs.db").close()  # made by a writer, with nothing in it
    status, out, err = run_cli("runs", "--json", "--db", str(tmp_path / "runs.db"))
    assert status == 0 and err == ""
    assert json.loads(out)["runs"] == []


def test_check_as_json_gives_every_problem_with_its_position(tmp_path: Path) -> None:
    plan = FIXTURES / "plans" / "three-problems.yaml"
    status, out, err = run_cli("check", "--json", str(plan))
    assert status == 2 and err == ""
    document = json.loads(out)
    assert document["format"] == "wirespeed-check" and document["version"] == 1
    assert document["valid"] is False and document["trials"] == []
    problems = document["problems"]
    assert len(problems) == 3
    for problem in problems:
        assert set(problem) == PROBLEM_KEYS
        assert problem["file"] == str(plan) and problem["severity"] == "error"
        assert isinstance(problem["line"], int) and isinstance(problem["column"], int)
    assert problems[0]["hint"] == "hosts are r4s, workstation"


def test_check_as_json_of_a_missing_file_is_one_problem_without_a_position(
    tmp_path: Path,
) -> None:
    status, out, _ = run_cli("check", "--json", str(tmp_path / "nothing.yaml"))
    assert status == 2
    (problem,) = json.loads(out)["problems"]
    assert problem["line"] is None and problem["message"] == "no such plan file"


def test_check_as_json_lists_the_trials_and_the_warnings(tmp_path: Path) -> None:
    status, out, _ = run_cli("check", "--json", str(EXAMPLES / "seed-matrix.yaml"))
    assert status == 0
    document = json.loads(out)
    assert document["valid"] is True and document["problems"] == []
    assert len(document["trials"]) == 12 and document["traffic_seconds"] == 120
    assert document["trials"][0]["key"] == "1/WAN/default/1"

    plan = tmp_path / "loopback.yaml"
    plan.write_text(
        "hosts: {me: {address: 127.0.0.1}}\n"
        "paths: [{name: lo, topology: endpoint, client: me, server: me, dut: me}]\n"
        "tests: [{id: '1', name: tcp, tool: iperf3}]\n"
    )
    status, out, err = run_cli("check", "--json", str(plan))
    assert status == 0 and err == ""
    (warning,) = json.loads(out)["problems"]
    assert warning["severity"] == "warning" and "same host" in warning["message"]
