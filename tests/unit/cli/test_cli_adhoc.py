"""`wirespeed run -c HOST ...`, `run -`, built-in plans and `wirespeed plans`, as typed.

`run` stops at preflight (run_cli_to_preflight): the plan loaded and expanded, nothing
built or measured."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from support.cli import run_cli, run_cli_to_preflight
from wirespeed.cli.parser import build_parser
from wirespeed.plan.adhoc import LAB_LINK, LAB_TOPOLOGY
from wirespeed.plan.sources import builtin_names, builtin_text

EXAMPLES = Path(__file__).parents[3] / "examples"


def test_an_adhoc_test_loads_and_save_plan_writes_the_plan_it_runs(tmp_path: Path) -> None:
    saved = tmp_path / "plan.yaml"
    outcome = run_cli_to_preflight(
        "run", "-c", "lab:router:fe", "-u", "-b", "100M", "-t", "2", "--save-plan", str(saved)
    )
    assert outcome.status is None, outcome.err
    text = saved.read_text()
    assert text.startswith("# wirespeed run -c lab:router:fe -u -b 100M -t 2\n")
    assert "rate: 100000000" in text  # iperf3's M: 10^6
    # The saved plan runs as a plan file.
    assert run_cli_to_preflight("run", str(saved)).status is None
    status, out, _ = run_cli("check", str(saved))
    assert status == 0 and "router     #1    iperf3 udp up    2 s  UDP 100.0 Mbit/s" in out


def test_lab_alone_is_what_lab_up_builds_when_given_nothing() -> None:
    defaults = build_parser().parse_args(["lab", "up"])
    assert (defaults.topology, defaults.link) == (LAB_TOPOLOGY.value, LAB_LINK)


@pytest.mark.parametrize(
    ("argv", "message", "hint"),
    [
        (["-u", "-b", "10M"], "-u -b: iperf's options describe one test", "wirespeed run -c HOST"),
        (["seed-matrix", "-t", "2"], "-t: iperf's options describe one test", "-c HOST"),
        (["seed-matrix", "-c", "lab"], "give a PLAN or -c HOST, not both", "-c runs one test"),
        (["-c", "lab", "-R", "--bidir"], "-R and --bidir cannot both be given", "choose one"),
        (["--resume", "4", "-c", "lab"], "leave out -c", "wirespeed run --resume 4"),
        (["--resume", "4", "--save-plan", "p.yaml"], "leave out --save-plan", "--resume 4"),
        (["-c", "lab", "-P", "300"], "<command line>: -P 300: parallel: must be at most 128", None),
        (["-c", "lab", "-b", "1Gbit"], "-b 1Gbit: not a rate", None),
        (
            ["-c", "lab", "-u", "-b", "10M", "-l", "70000"],
            "<command line>: -l 70000: test '1': UDP datagrams of 70000 bytes cannot be sent: "
            "a datagram carries at most 65,507 bytes",
            "set length: 65507 or less",
        ),
        (["-c", "lab:switch"], "-c lab:switch: no topology 'switch'", "lab:TOPOLOGY"),
    ],
)
def test_options_that_do_not_go_together_exit_2_with_a_hint(
    argv: list[str], message: str, hint: str | None, tmp_path: Path
) -> None:
    outcome = run_cli_to_preflight("run", *argv, "--db", str(tmp_path / "runs.db"))
    assert outcome.status == 2
    first, *rest = outcome.err.splitlines()
    assert first.startswith("wirespeed: error: ") and message in first
    if hint is not None:
        assert rest and rest[0].startswith("  hint: ") and hint in rest[0]
    assert not (tmp_path / "runs.db").exists()
    assert "Traceback" not in outcome.err


def test_a_plan_is_read_from_stdin(monkeypatch: pytest.MonkeyPatch) -> None:
    plan = (EXAMPLES / "seed-matrix.yaml").read_bytes()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(plan)))
    assert run_cli_to_preflight("run", "-", "--only", "1").status is None
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"paths: [\n")))
    outcome = run_cli_to_preflight("run", "-")
    assert outcome.status == 2
    assert outcome.err.startswith("wirespeed: error: <stdin>:2:1: not valid YAML")


def test_a_built_in_plan_runs_by_name_and_a_near_miss_lists_the_names() -> None:
    assert run_cli_to_preflight("run", "seed-matrix", "--duration", "1").status is None
    status, out, _ = run_cli("check", "mtu-matrix")
    assert status == 0 and out.startswith("<built-in mtu-matrix>: ok — 40 trials")
    outcome = run_cli_to_preflight("run", "seed-matrx")
    assert (outcome.status, outcome.err) == (
        2,
        "wirespeed: error: seed-matrx: no such plan file, and no built-in plan of that name "
        "(did you mean 'seed-matrix'?)\n"
        "  hint: built-in plans: compute, forwarding-rate, latency-under-load, mtu-matrix, "
        "rrul, seed-matrix, vpn-tunnels "
        "(`wirespeed plans` describes "
        "them)\n",
    )


def test_a_file_of_a_built_in_plans_name_is_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("seed-matrix").write_text("title: mine\n")
    status, _, err = run_cli("check", "seed-matrix")
    assert status == 2 and err.startswith("wirespeed: error: 2 problems in seed-matrix:")


def test_plans_lists_each_built_in_plan_on_one_line() -> None:
    status, out, _ = run_cli("plans")
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == (
        "compute             Compute benchmarks (openssl speed, 7-zip) on the lab DUT  "
        "(6 trials, 6 benchmarks)"
    )
    assert lines[1] == (
        "forwarding-rate     Forwarding rate through NAT, in and out (seed 004), lab DUT at "
        "15 kpps  (1 trial, 1 forwarding-rate search (about 6 min))"
    )
    assert lines[2] == (
        "latency-under-load  Latency under load, 100 Mbit/s router with a 40 ms queue  "
        "(4 trials, 40 s of traffic)"
    )
    assert lines[3] == (
        "mtu-matrix          NanoPi R4S — MTU 1500 vs 512, default vs tuned (lab)  "
        "(40 trials, 7 min of traffic)"
    )
    assert lines[4] == (
        "rrul                RRUL, 100 Mbit/s router with a 40 ms queue  (1 trial, 10 s of traffic)"
    )
    assert lines[5] == (
        "seed-matrix         NanoPi R4S — seed matrix (lab)  (12 trials, 2 min of traffic)"
    )
    assert "wirespeed run seed-matrix --duration 2" in out


def test_plans_name_prints_the_yaml_and_an_unknown_name_exits_2() -> None:
    status, out, _ = run_cli("plans", "seed-matrix")
    assert status == 0 and out == builtin_text("seed-matrix")
    status, _, err = run_cli("plans", "nope")
    assert status == 2 and "nope: no built-in plan of that name" in err


def test_the_examples_are_the_built_in_plans_not_copies() -> None:
    for name in builtin_names():
        example = EXAMPLES / f"{name}.yaml"
        assert example.is_symlink(), f"{example} should link to the packaged plan"
        assert example.read_text() == builtin_text(name)
