"""Runs at the same time each measure in a lab of their own, and none removes another's.

Three `wirespeed run` processes with the same plan and no --lab-name, so all want the
default lab name, start at the same instant (the name is claimed under a lock). Each
set-up once removed the lab of that name another run measured in, and the first run to
end removed the lab the others still used. `lab down` keeps a lab a live run uses unless
--force; a --lab-name a live run holds is refused.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from lab_runs import WIRESPEED, namespaces_of, unique_prefix

from support.cli import run_cli
from wirespeed.lab import record
from wirespeed.lab.lab import Lab, LabSpec, attach, down_lab
from wirespeed.lab.links import parse_link
from wirespeed.lab.system import project_namespaces
from wirespeed.model import Topology, Trial, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.run.runner import NullProgress, Runner
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

# The default lab name of this plan's path is its topology's: "router" (router-2 ...).
TOPOLOGY = "router"
PLAN = f"""
title: at once
lab: {{link: fe}}
paths:
  - {{name: R, topology: {TOPOLOGY}}}
defaults: {{tool: iperf3, duration: 3}}
tests:
  - {{id: "1", name: first}}
  - {{id: "2", name: second}}
  - {{id: "3", name: third}}
  - {{id: "4", name: fourth}}
"""
FE_TCP_CEILING = 94.1e6  # TCP goodput of a 100 Mbit/s link at MTU 1500 (LIMITS.md)


def default_named_labs() -> set[str]:
    """Labs on this machine under the plan's default name or its numbered alternatives."""
    names = {ns.removeprefix("wirespeed-").rpartition("-")[0] for ns in project_namespaces()}
    names |= set(record.names())
    return {n for n in names if n == TOPOLOGY or n.removeprefix(f"{TOPOLOGY}-").isdigit()}


def report(db: Path) -> dict[str, object]:
    status, out, err = run_cli("report", "--db", str(db), "--format", "json")
    assert status == 0, err
    document: dict[str, object] = json.loads(out)
    return document


@pytest.fixture
def no_default_named_lab() -> Iterator[None]:
    found = default_named_labs()
    if found:
        # Someone's lab of that name (a hand-built one would be replaced): leave it be.
        pytest.skip(f"labs named {', '.join(sorted(found))} exist on this machine")
    yield
    for name in default_named_labs():  # whatever a failed run left, but only then
        owner = record.load(name)
        if owner is None or owner.owner is None or not record.owner_alive(owner.owner):
            down_lab(name)


def test_runs_started_together_each_get_their_own_lab_and_remove_only_it(
    tmp_path: Path, no_default_named_lab: None
) -> None:
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN)

    def start(label: str, *only: str) -> subprocess.Popen[str]:
        db = tmp_path / f"{label}.db"
        return subprocess.Popen(
            [*WIRESPEED, "run", str(plan), "--db", str(db), *only],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )

    # The same instant: all find the default name free unless it is claimed under a lock.
    # The short one tears its lab down while the others measure in theirs.
    runs: dict[str, subprocess.Popen[str]] = {}
    try:
        runs["short"] = start("short", "--only", "1,2")
        runs["b"] = start("b")
        runs["c"] = start("c")
        errors = {label: run.communicate(timeout=180)[1] for label, run in runs.items()}
    finally:
        for run in runs.values():
            if run.poll() is None:
                run.kill()
                run.wait()

    labs_used: dict[str, str] = {}
    spans: dict[str, tuple[float, float]] = {}
    for label, run in runs.items():
        assert run.returncode == 0, f"run {label}: {errors[label]}"
        assert "Traceback" not in errors[label]
        document = report(tmp_path / f"{label}.db")
        trials = document["trials"]
        assert isinstance(trials, list) and len(trials) == (2 if label == "short" else 4)
        assert all(trial["status"] == "ok" for trial in trials), trials
        for trial in trials:
            # Sanity only: two runs sharing one 100 Mbit/s lab would get about half each.
            goodput = trial["flows"][0]["goodput_bps"]
            assert 0.6 * FE_TCP_CEILING < goodput <= 1.02 * FE_TCP_CEILING, (label, goodput)
        run_info = document["run"]
        assert isinstance(run_info, dict)
        [lab_name] = run_info["provenance"]["labs"]
        labs_used[label] = lab_name
        spans[label] = (run_info["started_at"], run_info["finished_at"])
    # started_at is taken once a run's labs are built: all three labs stood at once.
    assert max(begun for begun, _ in spans.values()) < min(end for _, end in spans.values())
    assert sorted(labs_used.values()) == [TOPOLOGY, f"{TOPOLOGY}-2", f"{TOPOLOGY}-3"]
    # The runs that did not get the default name said why.
    for label, lab_name in labs_used.items():
        if lab_name != TOPOLOGY:
            assert f"lab {TOPOLOGY} is in use by PID " in errors[label]
            assert f"this run builds its own, lab {lab_name}" in errors[label]
    assert default_named_labs() == set()


def test_lab_down_keeps_a_lab_a_live_run_uses_unless_forced(tmp_path: Path) -> None:
    name = unique_prefix("live")
    status, _, err = run_cli("lab", "up", "--topology", "bridge", "--link", "fe", "--name", name)
    assert status == 0, err
    run = subprocess.Popen(["sleep", "60"])  # stands in for the run that owns the lab
    try:
        owner = record.process_identity(run.pid)
        lab_record = record.load(name)
        assert lab_record is not None and lab_record.owner is None  # built by hand
        record.save(record.LabRecord(name, lab_record.topology, lab_record.link, 1500, owner=owner))

        status, out, err = run_cli("lab", "down", name)
        assert status == 2
        assert f"lab {name} is in use by PID {run.pid} (sleep 60)" in err
        assert "--force" in err
        assert attach(name) is not None, "a live run's lab was removed"

        status, _, err = run_cli("lab", "up", "--topology", "bridge", "--name", name)
        assert status == 2 and f"in use by PID {run.pid}" in err
        assert attach(name) is not None, "lab up replaced a live run's lab"

        status, out, err = run_cli("lab", "down", "--force", name)
        assert status == 0 and f"lab {name} removed" in out, err
        assert namespaces_of(name) == []
        assert not os.path.exists(record.record_path(name))
    finally:
        run.kill()
        run.wait()
        down_lab(name, force=True)


def test_a_lab_name_given_for_a_run_is_refused_while_a_live_run_uses_it(
    tmp_path: Path,
) -> None:
    prefix = unique_prefix("taken")
    plan = tmp_path / "plan.yaml"
    plan.write_text(PLAN)
    run = subprocess.Popen(["sleep", "60"])
    name = f"{prefix}-{TOPOLOGY}"
    try:
        # Only the record: a run that has just claimed the name and is building its lab.
        record.save(
            record.LabRecord(
                name,
                Topology.ROUTER,
                parse_link("fe"),
                1500,
                owner=record.process_identity(run.pid),
            )
        )
        db = tmp_path / "runs.db"
        status, _, err = run_cli("run", str(plan), "--db", str(db), "--lab-name", prefix)
        assert status == 2
        assert f"lab {name} is in use by PID {run.pid}" in err
        assert "Traceback" not in err
        assert record.load(name) is not None, "the other run's claim was removed"
    finally:
        run.kill()
        run.wait()
        down_lab(name, force=True)
    assert namespaces_of(prefix) == []


class LabTakenOver(NullProgress):
    """Before the second trial, someone forces the run's lab down and builds one by hand
    under the same name: same namespaces, same addresses, another owner."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.started = 0

    def trial_started(self, trial: Trial) -> None:
        self.started += 1
        if self.started == 2:
            down_lab(self.name, force=True)
            Lab.up(LabSpec(Topology.ROUTER, parse_link("fe"), name=self.name))


def test_trials_measured_in_a_lab_that_is_no_longer_the_runs_are_failed_not_stored_ok(
    tmp_path: Path,
) -> None:
    prefix = unique_prefix("stolen")
    name = f"{prefix}-{TOPOLOGY}"
    plan = parse_plan(PLAN.replace("duration: 3", "duration: 1"))
    try:
        with Store.open(tmp_path / "runs.db") as store:
            runner = Runner(plan, store, LabTakenOver(name), lab_prefix=prefix)
            outcome = runner.run(expand(plan, only=["1", "2", "3"]))
        statuses = [(o.status, o.reason) for o in outcome.outcomes]
        assert statuses[0] == (TrialStatus.OK, None)
        for status, reason in statuses[1:]:
            assert status is TrialStatus.FAILED
            assert reason and f"lab {name} was removed, or taken over" in reason
        # The run's teardown left the lab that is not its own.
        assert attach(name) is not None
    finally:
        down_lab(name, force=True)
    assert namespaces_of(prefix) == []


class LabTakenOverMidBenchmark(NullProgress):
    """During the first benchmark (its first tick), someone forces the run's lab down and
    builds one by hand under the same name."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.done = False

    def tick(self, elapsed: float) -> None:
        if not self.done:
            self.done = True
            down_lab(self.name, force=True)
            Lab.up(LabSpec(Topology.ENDPOINT, parse_link("gbe"), name=self.name))


def test_a_benchmark_measured_in_a_lab_that_is_no_longer_the_runs_is_failed_not_stored_ok(
    tmp_path: Path,
) -> None:
    prefix = unique_prefix("stolenbench")
    name = f"{prefix}-endpoint"
    plan = parse_plan(
        "lab: {link: gbe}\npaths: [{name: D, topology: device}]\n"
        "tests: [{id: aes, tool: openssl, "
        "options: {ciphers: [aes-128-cbc], blocks: [1K], seconds: 1}}]\n"
    )
    try:
        with Store.open(tmp_path / "runs.db") as store:
            runner = Runner(plan, store, LabTakenOverMidBenchmark(name), lab_prefix=prefix)
            outcome = runner.run(expand(plan))
        [(status, reason)] = [(o.status, o.reason) for o in outcome.outcomes]
        assert status is TrialStatus.FAILED
        assert reason and f"lab {name} was removed, or taken over" in reason
        assert attach(name) is not None  # the run's teardown left the lab not its own
    finally:
        down_lab(name, force=True)
    assert namespaces_of(prefix) == []
