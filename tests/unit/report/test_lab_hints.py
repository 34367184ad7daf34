"""The report never advises tuning an emulated device: a lab's DUT shares this machine's
cores, so a busy core there is the lab's limit (analysis/findings.py, EMULATED_HINTS)."""

from __future__ import annotations

import dataclasses

from report_samples import sample_record

from wirespeed.model import Finding, FindingKind, MonitorRecord
from wirespeed.report.model import build_report

LAB_DUT = "wirespeed-bridge-dut"  # a lab's DUT namespace, as lab/naming.py names it


def _notes_of_a_cpu_bound_trial(host: str) -> list[str]:
    record = sample_record()
    first = dataclasses.replace(
        record.outcomes[0],
        monitors=(MonitorRecord(host, "dut", 1.0, "", ""),),
        findings=(Finding(FindingKind.CPU_BOUND, f"{host}: cpu1 100 % busy"),),
    )
    record = dataclasses.replace(record, outcomes=(first, *record.outcomes[1:]))
    return [note.text for note in build_report(record).notes if note.code == "cpu-bound"]


def test_the_report_advises_tuning_a_real_device_only() -> None:
    (real,) = _notes_of_a_cpu_bound_trial("r4s")
    assert "tune suggest" in real
    (lab,) = _notes_of_a_cpu_bound_trial(LAB_DUT)
    assert "tune" not in lab.replace("nothing to tune", "") and "lab's limit" in lab
