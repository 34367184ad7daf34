"""The HTML report's device plots come from each summary's CPU timeline; a summary
stored before the timeline existed is drawn from its raw stream instead."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
from report_samples import sample_record

from wirespeed.model import ModelError, MonitorRecord
from wirespeed.report.device_samples import device_samples, needs_streams
from wirespeed.sampling.model import SampleSet
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import MonitorSummary, summarize
from wirespeed.store.records import RunRecord

SAMPLING = Path(__file__).parents[1] / "sampling"
# The version 1 sampler's own output on this machine (2 CPUs, every 0.5 s for 2 s), and
# the summary the version 1 code made of it: see tests/unit/sampling/test_sampling_stream.py.
STREAM = (SAMPLING / "stream-v1-x86-vm-2cpu.txt").read_text()
SUMMARY_V1 = (SAMPLING / "summary-v1-x86-vm-2cpu.json").read_text()


def _summary_v2() -> str:
    parsed = parse_stream(STREAM)
    samples = SampleSet(
        host="dut",
        interval=parsed.interval or 0.5,
        start_uptime=parsed.start_uptime or 0.0,
        device_epoch=parsed.device_epoch,
        info=parsed.info,
        snapshots=parsed.snapshots,
        kernel=parsed.kernel,
    )
    return summarize(samples).to_json()


def _record(*monitors: MonitorRecord) -> RunRecord:
    record = sample_record()
    first = dataclasses.replace(record.outcomes[0], monitors=monitors)
    return dataclasses.replace(record, outcomes=(first, *record.outcomes[1:]))


def test_the_timeline_of_a_summary_draws_what_its_stream_draws() -> None:
    from_summary = device_samples(_record(MonitorRecord("dut", "dut", 0.5, "", _summary_v2())))
    from_stream = device_samples(_record(MonitorRecord("dut", "dut", 0.5, STREAM, SUMMARY_V1)))
    assert len(from_summary) == 1 and from_summary == from_stream
    (samples,) = from_summary
    assert samples.cpus == (0, 1) and len(samples.t) == 4  # 5 ticks, 4 intervals
    assert all(0 <= value <= 100 for core in samples.cores for value in core.user)


def test_a_version_1_summary_needs_the_stream_and_without_it_draws_nothing() -> None:
    assert MonitorSummary.from_json(SUMMARY_V1).cpu_timeline is None
    without_stream = _record(MonitorRecord("dut", "dut", 0.5, "", SUMMARY_V1))
    assert needs_streams(without_stream)
    assert device_samples(without_stream) == []
    assert not needs_streams(_record(MonitorRecord("dut", "dut", 0.5, "", _summary_v2())))


def test_a_stored_timeline_with_a_value_that_is_no_number_is_refused_as_the_model_does() -> None:
    summary = json.loads(_summary_v2())
    summary["cpu_timeline"]["user"][1][0] = math.nan
    record = _record(MonitorRecord("dut", "dut", 0.5, "", json.dumps(summary)))
    with pytest.raises(ModelError, match="cpu 1 user: not every value is finite"):
        device_samples(record)
