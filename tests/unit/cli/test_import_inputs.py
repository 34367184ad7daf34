"""`wirespeed import` on inputs that are not one plain test: --sum-only output, a
server's log of several tests, files that hold no measurement, JSON of another shape,
and files too large to be a saved output (never read whole)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from support.cli import run_cli
from wirespeed.cli.commands.import_ import MAX_FILE_BYTES

FIXTURES = Path(__file__).parents[2] / "fixtures"
IPERF2 = FIXTURES / "iperf2"


def imported(*files: Path) -> list[dict[str, object]]:
    status, out, err = run_cli("import", "--json", *map(str, files))
    assert status == 0, err
    files_: list[dict[str, object]] = json.loads(out)["files"]
    return files_


def refused(path: Path, db: Path) -> str:
    """The error of importing `path` with a good file: exit 2, nothing stored."""
    good = IPERF2 / "exact-tcp-up.client.txt"
    status, _, err = run_cli("import", "--db", str(db), str(good), str(path))
    assert status == 2
    assert "Traceback" not in err
    assert f"{path}: " in err and "nothing was imported" in err
    assert run_cli("runs", "--db", str(db))[1].count("import") == 0
    return err


def test_sum_only_client_output_is_its_sum() -> None:
    (item,) = imported(IPERF2 / "sumonly-tcp-p4.client.txt")
    (up,) = item["result"]["directions"]  # type: ignore[index]
    assert up["flow"] == "up" and up["goodput_bps"] == 100297127.0


def test_a_server_log_of_six_tests_is_six_results(tmp_path: Path) -> None:
    log = IPERF2 / "serverlog-six-tests.server.txt"
    items = imported(log)
    assert [item["test"] for item in items] == [1, 2, 3, 4, 5, 6]
    streams = [len(item["result"]["directions"][0]["streams"]) for item in items]  # type: ignore[index]
    assert streams == [1, 4, 2, 1, 8, 3]
    db = str(tmp_path / "runs.db")
    status, _, err = run_cli("import", "--db", db, str(log))
    assert status == 0 and "1 file(s) (6 tests)" in err
    status, out, _ = run_cli("report", "--db", db, "--format", "json")
    assert status == 0
    trials = json.loads(out)["trials"]
    assert len(trials) == 6 and all(t["status"] == "ok" for t in trials)


def test_an_output_without_a_measurement_is_refused_naming_the_file(tmp_path: Path) -> None:
    err = refused(IPERF2 / "err-refused.client.txt", tmp_path / "runs.db")
    assert "holds no measurement" in err and "Connection refused" in err


@pytest.mark.parametrize(
    ("end", "said"),
    [
        ("[]", "shape of iperf3's -J output"),
        ('"x"', "shape of iperf3's -J output"),
        ("7", "shape of iperf3's -J output"),
        ('{"streams": {}}', "holds no measurement"),
    ],
)
def test_iperf3_json_of_another_shape_is_refused_naming_the_file(
    end: str, said: str, tmp_path: Path
) -> None:
    path = tmp_path / "odd.json"
    path.write_text(f'{{"start": {{"version": "iperf 3.12"}}, "end": {end}}}\n')
    err = refused(path, tmp_path / "runs.db")
    assert "holds no measurement" in err and said in err


def test_a_huge_regular_file_is_refused_by_its_size_without_reading_it(tmp_path: Path) -> None:
    path = tmp_path / "huge.txt"
    with path.open("wb") as sparse:
        sparse.truncate(2**40)  # 1 TiB of holes: reading it would take minutes
    started = time.monotonic()
    err = refused(path, tmp_path / "runs.db")
    assert time.monotonic() - started < 10
    assert "1048576 MiB" in err and "64 MiB" in err


def test_a_file_just_over_the_bound_is_refused_and_one_at_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    path.write_bytes(b"x" * (MAX_FILE_BYTES + 1))
    assert "larger than a saved iperf output" in refused(path, tmp_path / "runs.db")
    os.truncate(path, MAX_FILE_BYTES)
    assert "not iperf output" in refused(path, tmp_path / "runs.db")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_an_endless_device_is_refused_after_reading_past_the_bound(tmp_path: Path) -> None:
    err = refused(Path("/dev/zero"), tmp_path / "runs.db")
    assert "more than 64 MiB" in err
