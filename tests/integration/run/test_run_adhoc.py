"""Ad-hoc tests, built-in plans and a plan on stdin, run in the lab as a user types them."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from lab_runs import namespaces_of, unique_prefix
from plans import LAB_SLOW

from support.cli import run_cli
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

FE_TCP = 94.1e6  # TCP goodput ceiling at 100 Mbit/s, MTU 1500 (LIMITS.md)
FE_UDP = 95.7e6  # UDP, 1470-byte datagrams


def goodputs(db: Path) -> list[float]:
    status, out, _ = run_cli("report", "--db", str(db), "--format", "json")
    assert status == 0
    return [trial["flows"][0]["goodput_bps"] for trial in json.loads(out)["trials"]]


def test_an_adhoc_tcp_and_udp_test_run_through_the_lab_and_keep_their_plan(
    tmp_path: Path,
) -> None:
    prefix, db = unique_prefix("adhoc"), tmp_path / "runs.db"
    status, _, err = run_cli(
        "run", "-c", "lab:bridge:fe", "-t", "2", "--db", str(db), "--lab-name", prefix
    )
    assert status == 0, err
    (tcp,) = goodputs(db)
    assert FE_TCP * 0.5 < tcp <= FE_TCP * 1.005  # sanity bounds, not a benchmark
    with Store.open(db) as store:
        stored = store.load_run(1, intervals=False, outputs=False, commands=False)
    assert stored.info.plan_path == "<command line>"
    assert stored.info.plan_text is not None
    assert stored.info.plan_text.startswith("# wirespeed run -c lab:bridge:fe -t 2\n")

    status, _, err = run_cli(
        "run", "-c", "lab:bridge:fe", "-u", "-b", "100M", "-t", "2", "--db", str(db),
        "--lab-name", prefix, "--tool", "iperf2",
    )  # fmt: skip
    assert status == 0, err
    status, out, _ = run_cli("report", "--db", str(db), "--format", "json")
    (trial,) = json.loads(out)["trials"]
    assert trial["test"]["spec"]["rate"] == 100 * 2**20  # iperf2's M
    assert FE_UDP * 0.5 < trial["flows"][0]["goodput_bps"] <= FE_UDP * 1.005
    assert namespaces_of(prefix) == []


def test_a_built_in_plan_and_a_plan_on_stdin_run_like_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    prefix, db = unique_prefix("builtin"), tmp_path / "runs.db"
    status, _, err = run_cli(
        "run", "seed-matrix", "--duration", "1", "--only", "1", "--db", str(db),
        "--lab-name", prefix,
    )  # fmt: skip
    assert status == 0, err
    assert len(goodputs(db)) == 2  # test 1 on WAN and Br0

    plan = LAB_SLOW.replace("duration: 30", "duration: 1").replace("gbe", "fe")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(plan.encode())))
    status, _, err = run_cli("run", "-", "--db", str(db), "--lab-name", prefix, "--duration", "1")
    assert status == 0, err
    with Store.open(db) as store:
        stored = store.load_run(2, intervals=False, outputs=False, commands=False)
    assert (stored.info.plan_path, stored.info.plan_text) == ("<stdin>", plan)
    assert namespaces_of(prefix) == []
