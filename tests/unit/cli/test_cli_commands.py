"""`check`, `import`, `runs` and `report` on the real CLI, with the seeds' own outputs."""

from __future__ import annotations

import json
from pathlib import Path

from support.cli import run_cli

FIXTURES = Path(__file__).parents[2] / "fixtures"
SEEDS = FIXTURES / "seeds"
EXAMPLES = Path(__file__).parents[3] / "examples"


def test_check_lists_the_seed_matrix_trials() -> None:
    status, out, _ = run_cli("check", str(EXAMPLES / "seed-matrix.yaml"))
    assert status == 0
    assert "12 trials" in out
    assert "Br0        #6" in out


def test_check_reports_a_typo_a_wrong_type_and_an_unknown_host_at_once() -> None:
    plan = FIXTURES / "plans" / "three-problems.yaml"
    status, _, err = run_cli("check", str(plan))
    assert status == 2
    assert "Traceback" not in err
    lines = [line for line in err.splitlines() if line.startswith(f"{plan}:")]
    assert len(lines) == 3
    for line in lines:  # file:line:column: message
        _, line_number, column, _ = line[len(str(plan)) :].split(":", 3)
        assert line_number.isdigit() and column.isdigit()


def test_import_as_json_reads_the_r4s_wan_dual_test_both_ways() -> None:
    status, out, _ = run_cli("import", "--json", str(SEEDS / "r4s-wan-test4.txt"))
    assert status == 0
    document = json.loads(out)
    assert document["format"] == "wirespeed-import" and document["version"] == 1
    directions = {d["flow"]: d["goodput_bps"] for d in document["files"][0]["result"]["directions"]}
    assert set(directions) == {"up", "down"}
    assert 900e6 < directions["up"] < 945e6


def test_imported_seed_outputs_are_stored_and_reported(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    files = [str(SEEDS / f"r2s-br0-test{n}.txt") for n in range(1, 7)]
    status, _, err = run_cli("import", "--db", db, "--title", "R2S Br0", *files)
    assert status == 0, err
    status, out, _ = run_cli("runs", "--db", db)
    assert status == 0 and "R2S Br0" in out
    status, markdown, _ = run_cli("report", "--db", db, "--format", "markdown")
    assert status == 0
    assert "| 1 r2s-br0-test1.txt | 681 " in markdown  # the post's table: R2S Br0 #1 = 681
    status, csv, _ = run_cli("report", "--db", db, "--format", "csv")
    assert status == 0 and csv.count("\n") >= 7


def test_importing_something_that_is_not_iperf_output_imports_nothing(tmp_path: Path) -> None:
    db = tmp_path / "runs.db"
    stray = tmp_path / "notes.txt"
    stray.write_text("shopping list: cables, a switch\n")
    status, _, err = run_cli(
        "import", "--db", str(db), str(SEEDS / "r4s-wan-test1.txt"), str(stray)
    )
    assert status == 2
    assert "notes.txt" in err and "nothing was imported" in err
    # Refused before the store was opened: none was made, and `runs` reads none.
    assert not db.exists()
    status, _, err = run_cli("runs", "--db", str(db))
    assert status == 2 and "the file does not exist" in err


def test_report_of_an_unknown_run_is_a_usage_error(tmp_path: Path) -> None:
    db = str(tmp_path / "runs.db")
    run_cli("import", "--db", db, str(SEEDS / "r4s-wan-test1.txt"))
    status, _, err = run_cli("report", "42", "--db", db)
    assert status == 2
    assert "no run 42" in err


def test_facts_of_the_r4s_tree_name_its_nics_irqs_and_fast_cores() -> None:
    status, out, _ = run_cli("facts", "--root", str(FIXTURES / "boards" / "r4s"), "--json")
    assert status == 0
    document = json.loads(out)
    assert document["format"] == "wirespeed-facts"
    status, text, _ = run_cli("facts", "--root", str(FIXTURES / "boards" / "r4s"))
    assert "IRQ 27 eth0" in text and "IRQ 234 eth1" in text
    assert "cpu4-5     Cortex-A72    1.8 GHz  <- fastest" in text
