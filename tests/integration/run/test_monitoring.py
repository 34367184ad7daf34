"""The DUT is watched during every trial, and the findings say what limited the result."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import threading
from pathlib import Path

import pytest
from lab_runs import unique_prefix

from wirespeed.model import FindingKind, Role, TrialOutcome, TrialStatus
from wirespeed.plan import expand, parse_plan
from wirespeed.run.runner import Runner
from wirespeed.run.trial import Endpoints, run_trial
from wirespeed.store import Store

pytestmark = [pytest.mark.root, pytest.mark.slow]

PLAN = """
title: watched
lab: {{link: {link}}}
paths: [{{name: Br0, topology: bridge}}]
tests:
  - {{id: "1", name: "TCP, default window", tool: iperf3, duration: 3, parallel: {parallel}}}
"""


def run_lab(link: str, tmp_path: Path, parallel: int = 1) -> TrialOutcome:
    plan = parse_plan(PLAN.format(link=link, parallel=parallel))
    with Store.open(tmp_path / "runs.db") as store:
        run = Runner(plan, store, lab_prefix=unique_prefix(link)).run(expand(plan))
        record = store.load_run(run.run_id)
        shown = store.load_run(run.run_id, intervals="packed", outputs=False)
    (stored,) = record.outcomes
    assert stored.status is TrialStatus.OK, stored.reason
    # The HTML report draws the DUT's cores from the summary's CPU timeline, without
    # the raw stream (as `wirespeed report` loads a run), and as the stream says.
    from wirespeed.report import build_report
    from wirespeed.report.device_samples import device_samples, needs_streams
    from wirespeed.report.html import NO_SAMPLES, render_html

    assert not needs_streams(shown) and shown.outcomes[0].monitors[0].raw == ""
    (samples,) = device_samples(shown)
    assert samples.role == "dut" and len(samples.t) >= 2 and samples.cores
    assert NO_SAMPLES not in render_html(build_report(shown), [samples])
    (monitor,) = stored.monitors
    from_stream = device_samples(
        dataclasses.replace(
            record,
            outcomes=(
                dataclasses.replace(
                    stored, monitors=(dataclasses.replace(monitor, summary='{"version": 1}'),)
                ),
            ),
        )
    )
    assert from_stream == [samples]
    return stored


def test_a_gigabit_bridge_trial_has_per_core_series_net_rx_and_line_rate(
    tmp_path: Path,
) -> None:
    outcome = run_lab("gbe", tmp_path)
    (monitor,) = outcome.monitors
    assert monitor.role == "dut" and not monitor.partial
    summary = json.loads(monitor.summary)
    # The lab's namespaces share this machine's kernel: the DUT's cores are its cores.
    stat = Path("/proc/stat").read_text().splitlines()
    cpus = [int(line.split()[0][3:]) for line in stat if re.match(r"cpu\d+ ", line)]
    assert summary["cpus"] == cpus and [core["cpu"] for core in summary["cores"]] == cpus
    for core in summary["cores"]:
        assert 0.0 <= core["busy_pct"] <= core["peak_busy_pct"] <= 100.0
    assert summary["ticks"] >= 3  # about one a second over 3 s
    # A gigabit of frames crossed the bridge: every NET_RX softirq is some core's share.
    assert sum(summary["net_rx_share_pct"]) == pytest.approx(100.0)
    assert "@@tick" in monitor.raw  # the raw stream is kept: parsing can be redone
    assert FindingKind.LINE_RATE in {f.kind for f in outcome.findings}


def test_an_unshaped_trial_on_two_cores_is_cpu_bound_and_names_the_core(tmp_path: Path) -> None:
    # Four streams: one TCP flow is a pipeline between a sending and a receiving core and
    # leaves both short of full; four keep a core saturated (measured: 99 %, peak 100 %).
    # On a machine saturated by other work as well (another job's `yes`), the same core
    # is named in the lab-limited finding instead: the lab's limit, not the device's.
    outcome = run_lab("unshaped", tmp_path, parallel=4)
    limits = (FindingKind.CPU_BOUND, FindingKind.LAB_LIMITED)
    cpu_bound = [f for f in outcome.findings if f.kind in limits]
    summary = json.loads(outcome.monitors[0].summary)
    cores = [(c["cpu"], round(c["busy_pct"]), round(c["peak_busy_pct"])) for c in summary["cores"]]
    assert cpu_bound, (cores, [f.message for f in outcome.findings])
    assert "% busy" in cpu_bound[0].message
    busiest = json.loads(outcome.monitors[0].summary)["busiest"]
    assert f"cpu{busiest['cpu']} " in cpu_bound[0].message


def test_a_sampler_that_dies_mid_trial_leaves_the_result_and_says_partial(
    make_lab: object,
) -> None:
    from collections.abc import Callable

    from wirespeed.lab.lab import Lab

    assert callable(make_lab)
    build: Callable[..., Lab] = make_lab
    lab = build("bridge", "gbe")
    dut_namespace = lab.namespaces[Role.DUT]

    def kill_everything_in_the_dut() -> None:
        # Only the sampler runs there: iperf's ends are in the client and server namespaces.
        pids = subprocess.run(
            ["ip", "netns", "pids", dut_namespace], capture_output=True, text=True, check=False
        ).stdout.split()
        subprocess.run(["kill", "-KILL", *pids], check=False)

    plan = parse_plan(PLAN.format(link="gbe", parallel=1))
    trial = expand(plan)[0]
    killer = threading.Timer(1.5, kill_everything_in_the_dut)
    killer.start()
    try:
        outcome = run_trial(
            trial,
            Endpoints(lab.hosts[Role.CLIENT], lab.hosts[Role.SERVER], lab.server_address),
            watch=[("dut", lab.hosts[Role.DUT])],
        )
    finally:
        killer.cancel()
    assert outcome.status is TrialStatus.OK and outcome.result is not None
    (monitor,) = outcome.monitors
    assert monitor.partial and monitor.reason
    assert FindingKind.PARTIAL_SAMPLES in {f.kind for f in outcome.findings}
    assert outcome.finished_at - outcome.started_at < 3 + 5
