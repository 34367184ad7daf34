"""A lab trial on a machine saturated by other work is the lab's limit, not the device's,
and an emulated device is never advised to be tuned. Judged on the DUT sampler's streams
of real gigabit lab trials, with and without two `yes` on the cores
(tests/fixtures/capture_lab_saturated.py made them; INDEX-lab.txt says how)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from wirespeed.analysis.findings import EMULATED_HINTS, emulated, hint, judge_monitor
from wirespeed.model import Finding, FindingKind, Flow, Proto, TestSpec
from wirespeed.run.traffic_outcome import without_moot
from wirespeed.sampling.session import sample_set
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import MonitorSummary, ProcessLoad, summarize

SAMPLING = Path(__file__).parents[2] / "fixtures" / "sampling"
INDEX = (SAMPLING / "INDEX-lab.txt").read_text()
# The hogs' pids, as the capture wrote them down.
HOGS = [int(pid) for pid in re.search(r"pids ([\d, ]+)", INDEX).group(1).split(", ")]  # type: ignore[union-attr]
LAB_DUT = "wirespeed-capture-bridge-dut"  # a lab's DUT namespace, as lab/naming.py names it


def summary(name: str, host: str = LAB_DUT) -> MonitorSummary:
    text = (SAMPLING / name).read_text()
    return summarize(sample_set(host, 0.5, text, parse_stream(text), None))


def kinds(findings: list[Finding]) -> set[FindingKind]:
    return {f.kind for f in findings}


def test_a_lab_trial_on_a_machine_saturated_by_yes_is_lab_limited_and_names_them() -> None:
    findings = judge_monitor(summary("lab-saturated-yes.txt"))
    (limited,) = [f for f in findings if f.kind is FindingKind.LAB_LIMITED]
    assert limited.message.startswith(f"{LAB_DUT}: this machine's CPUs were saturated (")
    assert "the result is the lab's limit, not the device's" in limited.message
    # The busiest core is named only when it stood above the rest, never "cpu0 100 %
    # busy, every core at least 100 % busy".
    busy = re.findall(r"(\d+) % busy", limited.message)
    assert len(busy) == len(set(busy)), limited.message
    assert re.search(r"cpu\d ", limited.message), limited.message  # the busiest, by name
    for pid in HOGS:
        assert re.search(rf"yes \(pid {pid}\)( took)? \d+ %", limited.message), limited.message
    # Not the device's CPU, and the hogs are not said twice as background load.
    assert FindingKind.CPU_BOUND not in kinds(findings)
    assert not any("yes" in f.message for f in findings if f is not limited)


def test_the_same_samples_from_a_real_device_are_not_lab_limited() -> None:
    findings = judge_monitor(summary("lab-saturated-yes.txt", host="r4s"))
    assert FindingKind.LAB_LIMITED not in kinds(findings)
    loads = [f.message for f in findings if f.kind is FindingKind.BACKGROUND_LOAD]
    assert any(f"yes (pid {HOGS[0]})" in message for message in loads)


def test_a_lab_trial_without_other_work_is_not_lab_limited() -> None:
    # Gigabit keeps both cores of the capture's machine busy with the lab's own work
    # (iperf3, softirqs): saturated, but by the lab, so nobody is to blame.
    quiet = summary("lab-unsaturated.txt")
    assert FindingKind.LAB_LIMITED not in kinds(judge_monitor(quiet))


def test_the_run_itself_is_not_other_work() -> None:
    saturated = summary("lab-saturated-yes.txt")
    run = ProcessLoad(4242, "python3", 60.0)
    alone = dataclasses.replace(saturated, processes=(run,))
    assert FindingKind.LAB_LIMITED in kinds(judge_monitor(alone))
    assert FindingKind.LAB_LIMITED not in kinds(judge_monitor(alone, controller_pid=4242))
    # Another lab's iperf and the kernel's workers run for some lab: nobody to name.
    labs = (ProcessLoad(7, "iperf3", 80.0), ProcessLoad(8, "kworker/0:1-events", 40.0))
    assert FindingKind.LAB_LIMITED not in kinds(
        judge_monitor(dataclasses.replace(saturated, processes=labs))
    )


def test_lab_hosts_are_the_namespaces_of_a_lab() -> None:
    assert emulated("wirespeed-bridge-dut") and emulated("wirespeed-r12-1-gbe-router-dut")
    assert not emulated("r4s") and not emulated("root@192.168.1.1")


def test_an_emulated_device_is_never_advised_to_be_tuned() -> None:
    for kind in FindingKind:
        said = hint(kind, emulated=True)
        assert "tune" not in said.replace("nothing to tune", "") and "smp_affinity" not in said
    assert "tune suggest" in hint(FindingKind.CPU_BOUND)  # a real device is
    assert set(EMULATED_HINTS) <= set(FindingKind)


def test_a_busy_lab_did_not_limit_a_trial_at_line_rate() -> None:
    spec = TestSpec(protocol=Proto.TCP)
    limited = Finding(FindingKind.LAB_LIMITED, "this machine's CPUs were saturated")
    at_line_rate = [Finding(FindingKind.LINE_RATE, "941 Mbit/s", Flow.UP), limited]
    assert kinds(without_moot(at_line_rate, spec)) == {FindingKind.LINE_RATE}
    assert without_moot([limited], spec) == [limited]


def _with_steal(quiet: MonitorSummary, pct: float) -> MonitorSummary:
    # The capture's machine had no steal then; its cores as a busy VM host's would be.
    cores = tuple(dataclasses.replace(core, steal_pct=pct) for core in quiet.cores)
    return dataclasses.replace(quiet, cores=cores)


def test_time_the_hypervisor_took_is_the_labs_limit_in_a_lab_and_said_of_a_device() -> None:
    quiet = summary("lab-unsaturated.txt")
    stolen = judge_monitor(_with_steal(quiet, 22.0))
    (limited,) = [f for f in stolen if f.kind is FindingKind.LAB_LIMITED]
    assert "the hypervisor took 22 % of cpu0" in limited.message, limited.message
    assert "(steal time)" in limited.message
    device = summary("lab-unsaturated.txt", host="r4s")
    said = judge_monitor(_with_steal(device, 22.0))
    assert FindingKind.LAB_LIMITED not in kinds(said)
    assert any("hypervisor took 22 %" in f.message for f in said), said
    # A little steal is a VM's everyday jitter, not a cause.
    assert FindingKind.LAB_LIMITED not in kinds(judge_monitor(_with_steal(quiet, 2.0)))
