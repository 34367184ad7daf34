"""A soak's summary from a chunk captured through a lab with an injected link fault
(tests/fixtures/soak/capture_soak.py): its probes, the DUT's kernel lines, the fault."""

from __future__ import annotations

import json
from pathlib import Path

from wirespeed.sampling.stream import parse_stream
from wirespeed.soak import records
from wirespeed.soak.chunk import parse_chunk
from wirespeed.soak.matching import kernel_event
from wirespeed.soak.summary import SoakSummary, summarize

FIXTURES = Path(__file__).parents[1] / "fixtures" / "soak"


def captured_summary() -> SoakSummary:
    truth = json.loads((FIXTURES / "link_fault.truth.json").read_text())
    probes = parse_chunk((FIXTURES / "link_fault.irtt.json").read_text(), 10**7)
    stream = parse_stream((FIXTURES / "link_fault.sampler.txt").read_text())
    events = tuple(
        kernel_event(truth["sampler_started_at"] + line.t, "dut", line.message)
        for line in stream.kernel
    )
    assert probes.first_send_ns is not None and probes.last_send_ns is not None
    chunk = records.ChunkRecord(
        position=0, kind="probes", started_at=probes.first_send_ns / 1e9,
        ended_at=probes.last_send_ns / 1e9, probes=probes, events=events,
        faults=tuple(truth["faults"]),
    )  # fmt: skip
    header = records.SoakHeader(
        id=1, title="link fault", plan_text="", lab="soak-x", status="complete",
        created_at=0.0, updated_at=0.0, owner=None, info={},
    )  # fmt: skip
    return summarize(header, [chunk])
