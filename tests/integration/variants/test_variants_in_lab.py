"""Variants in a lab run: applied for their trials, and every knob back as it was
afterwards, after SIGTERM mid-trial, and after SIGKILL once the next run has started."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from knobs import knobs, namespaces_of

from wirespeed.lab.lab import down_lab
from wirespeed.tune.model import mask_of

pytestmark = [pytest.mark.root, pytest.mark.slow]

SCRIPT = Path(__file__).with_name("run_with_variants.py")
ALL_CPUS = mask_of(tuple(range(os.cpu_count() or 1)))
_serial = iter(range(1, 1000))

# MTU 1500 vs 512 x default vs rps-spread, as the seed's table, with short trials.
AB_PLAN = """
title: variants in the lab
lab: {link: gbe}
paths: [{name: R, topology: router}]
defaults: {tool: iperf3, duration: 1}
variants:
  - {name: default}
  - {name: rps-spread, rps: spread}
  - {name: mtu512, mtu: 512}
  - {name: mtu512-rps-spread, mtu: 512, rps: spread}
  - {name: no-offloads, offloads: {gro: off, gso: off, tso: off}}
tests:
  - {id: tcp, name: TCP}
"""

# The changing variant first, so it is in force from the first trial, which is long.
SLOW_PLAN = """
title: interrupted with a variant applied
lab: {link: gbe}
paths: [{name: R, topology: router}]
defaults: {tool: iperf3, duration: 30}
variants:
  - {name: tuned, rps: spread, mtu: 512, offloads: {gso: off, tso: off}}
  - {name: default}
tests:
  - {id: tcp, name: TCP}
"""


def prefix(label: str) -> str:
    return f"v{os.getpid()}-{next(_serial)}-{label}"


def lines(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def open_entries(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        found = conn.execute(
            "select count(*) from tune_journal where state in ('pending', 'applied')"
        ).fetchone()
    return int(found[0])


def journaled(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("select count(*) from tune_journal").fetchone()[0])


def start(
    tmp_path: Path, plan: str, lab: str, name: str = "run"
) -> tuple[subprocess.Popen[str], Path]:
    plan_file, out = tmp_path / f"{name}.yaml", tmp_path / f"{name}.knobs"
    plan_file.write_text(plan)
    process = subprocess.Popen(
        [sys.executable, str(SCRIPT), str(plan_file), str(tmp_path / "runs.db"), lab, str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    return process, out


def wait_for_trial(process: subprocess.Popen[str], out: Path) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while True:
        during = [line for line in lines(out) if line["when"] == "during"]
        if during:
            return during[0]
        assert process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, "the first trial never started"
        time.sleep(0.1)


def changed(before: dict[str, str], now: dict[str, str]) -> dict[str, tuple[str, str]]:
    return {k: (before[k], now.get(k, "?")) for k in before if now.get(k) != before[k]}


def assert_tuned(before: dict[str, str], now: dict[str, str]) -> None:
    """SLOW_PLAN's first variant is in force on every veth end of the lab."""
    ends = {key.rsplit("/", 1)[0] for key in before}
    assert len(ends) >= 4  # client, server, and the DUT's two
    for end in ends:
        assert now[f"{end}/mtu"] == "512"
        assert now[f"{end}/rps"].strip().lstrip("0,") == ALL_CPUS.lstrip("0")
        assert now[f"{end}/tcp-segmentation-offload"] == "off"
        assert now[f"{end}/generic-segmentation-offload"] == "off"


def test_a_run_applies_each_variant_and_restores_every_knob(tmp_path: Path) -> None:
    lab = prefix("ab")
    process, out = start(tmp_path, AB_PLAN, lab)
    stdout, stderr = process.communicate(timeout=180)
    print(stdout)  # the report, with the A/B table
    assert process.returncode == 0, stderr
    assert "Variants against default at each MTU" in stdout

    found = lines(out)
    before, after = found[0]["knobs"], found[-1]["knobs"]
    assert (found[0]["when"], found[-1]["when"]) == ("before", "after")
    assert after == before, changed(before, after)
    during = {line["trial"]: line["knobs"] for line in found if line["when"] == "during"}
    assert changed(before, during["tcp/R/default/1"]) == {}
    spread = during["tcp/R/rps-spread/1"]
    assert {k for k, (_, new) in changed(before, spread).items()} == {
        k for k in before if k.endswith("/rps") and before[k].strip() != ALL_CPUS
    }
    assert all(v == "512" for k, v in during["tcp/R/mtu512/1"].items() if k.endswith("/mtu"))
    no_offloads = during["tcp/R/no-offloads/1"]
    assert all(v == "off" for k, v in no_offloads.items() if k.endswith("-offload"))
    assert journaled(tmp_path / "runs.db") > 0
    assert open_entries(tmp_path / "runs.db") == 0
    assert namespaces_of(lab) == []


def test_sigterm_mid_trial_restores_every_knob(tmp_path: Path) -> None:
    lab = prefix("term")
    process, out = start(tmp_path, SLOW_PLAN, lab)
    try:
        first = wait_for_trial(process, out)
        before = lines(out)[0]["knobs"]
        assert_tuned(before, first["knobs"])
        time.sleep(1.0)  # iperf is running
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        down_lab(f"{lab}-router")
    assert process.returncode == 143, stderr
    found = lines(out)
    assert found[-1]["when"] == "after"
    assert found[-1]["knobs"] == before, changed(before, found[-1]["knobs"])
    assert open_entries(tmp_path / "runs.db") == 0
    assert namespaces_of(lab) == []


def test_after_sigkill_the_next_run_restores_the_journal_first(tmp_path: Path) -> None:
    lab, next_lab = prefix("kill"), prefix("next")
    process, out = start(tmp_path, SLOW_PLAN, lab)
    try:
        first = wait_for_trial(process, out)
        before = lines(out)[0]["knobs"]
        time.sleep(1.0)
        os.kill(process.pid, signal.SIGKILL)  # no restore, no teardown
        process.wait()
        # The lab is left behind, as after a crash, with the variant still applied.
        left = knobs(lab)
        assert_tuned(before, left)
        assert left == first["knobs"]
        assert open_entries(tmp_path / "runs.db") > 0

        # The next run (another lab) restores the killed run's changes before it builds
        # or measures anything, then removes the lab the killed run left.
        quick = SLOW_PLAN.replace("duration: 30", "duration: 1")
        again, _ = start(tmp_path, quick, next_lab, name="next")
        stdout, stderr = again.communicate(timeout=120)
        assert again.returncode == 0, stderr
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        down_lab(f"{lab}-router")
        down_lab(f"{next_lab}-router")
    # The report's provenance says what was recovered "before the run:" (rich wraps lines).
    recovered = " ".join(stdout[stdout.index("before the run:") :].split())
    # Every journaled knob was written back (the MTU is the lab's own and goes with its
    # namespaces, variants.py says why), and only then was the orphaned lab removed.
    restored = [k for k in changed(before, left) if not k.endswith("/mtu")]
    assert restored and all(knob.split("/")[-1] in recovered for knob in restored), recovered
    assert recovered.index("restored") < recovered.index("left by a run that died")
    assert open_entries(tmp_path / "runs.db") == 0
    assert namespaces_of(lab) == []
