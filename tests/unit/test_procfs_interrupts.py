"""The one /proc/interrupts parser, run on every reading captured in tests/fixtures.

Its two views, the sampler's (IrqLine: chip, hwirq, trigger, the handlers as one `name`)
and the facts' (InterruptLine: None where a line says nothing, x86's "5-edge" as printed,
`names` per action), must give what the two parsers it replaced gave:
procfs_interrupts_expected.json holds what they made of each reading, written by
make_procfs_interrupts_expected.py from their code at commit af1cc97.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from wirespeed import procfs_interrupts
from wirespeed.facts import interrupts as facts_interrupts
from wirespeed.sampling import procfs as sampling_procfs

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
EXPECTED: dict[str, Any] = json.loads(
    Path(__file__).with_name("procfs_interrupts_expected.json").read_text()
)
STREAM_HEADER = "@@file /proc/interrupts"


def captured_readings() -> dict[str, str]:
    """Every /proc/interrupts kept in tests/fixtures, by where it is: the files named so,
    the proc/*interrupts*.txt copies, and the first whole reading of each sampler stream."""
    readings: dict[str, str] = {}
    paths = sorted(FIXTURES.rglob("interrupts")) + sorted(FIXTURES.glob("proc/*interrupts*.txt"))
    for path in paths:
        readings[str(path.relative_to(FIXTURES))] = path.read_text()
    for path in sorted(FIXTURES.glob("sampling/*.txt")):
        reading = _first_whole_reading(path.read_text())
        if reading is not None:
            readings[f"{path.relative_to(FIXTURES)} {STREAM_HEADER}"] = reading
    return readings


def _first_whole_reading(stream: str) -> str | None:
    """The lines after the stream's first "@@file /proc/interrupts", up to the next marker."""
    rows: list[str] = []
    inside = False
    for row in stream.splitlines():
        if row.startswith("@@"):
            if inside:
                break
            inside = row == STREAM_HEADER
        elif inside:
            rows.append(row)
    return "\n".join(rows) + "\n" if rows else None


READINGS = captured_readings()
EXPECTED_BY_READING: dict[str, dict[str, Any]] = {
    reading: table for table in EXPECTED["tables"] for reading in table["readings"]
}


def test_every_captured_reading_has_what_the_old_parsers_made_of_it() -> None:
    # A new capture fails here until make_procfs_interrupts_expected.py has run on it.
    assert sorted(READINGS) == sorted(EXPECTED_BY_READING)
    assert len(READINGS) >= 12


def test_the_sampler_and_the_facts_call_the_same_parser() -> None:
    assert sampling_procfs.parse_interrupts is procfs_interrupts.parse_interrupts
    text = READINGS["boards/r4s/proc/interrupts"]
    shared = procfs_interrupts.parse_interrupts(text)
    facts = facts_interrupts.parse_interrupts(text)
    assert facts.lines == tuple(map(facts_interrupts.InterruptLine.of, shared.lines))


@pytest.mark.parametrize("reading", sorted(EXPECTED_BY_READING))
def test_the_sampling_view_is_what_sampling_procfs_gave(reading: str) -> None:
    expected = EXPECTED_BY_READING[reading]
    table = sampling_procfs.parse_interrupts(READINGS[reading])
    assert list(table.cpus) == expected["cpus"]
    assert [
        [line.irq, list(line.counts), [line.chip, line.hwirq, line.trigger, line.name]]
        for line in table.lines
    ] == [row[:3] for row in expected["lines"]]
    for line in table.lines:
        assert table.line(line.irq) == line
        per_cpu = table.per_cpu(line)
        assert per_cpu == (
            {}
            if len(line.counts) < len(table.cpus)
            else dict(zip(table.cpus, line.counts, strict=True))
        )


@pytest.mark.parametrize("reading", sorted(EXPECTED_BY_READING))
def test_the_facts_view_is_what_facts_interrupts_gave(reading: str) -> None:
    expected = EXPECTED_BY_READING[reading]
    table = facts_interrupts.parse_interrupts(READINGS[reading])
    assert list(table.cpus) == expected["cpus"]
    assert [
        [
            line.irq,
            list(line.counts),
            [line.chip, line.hwirq, line.trigger, list(line.names), line.number, line.controller],
        ]
        for line in table.lines
    ] == [[irq, counts, facts] for irq, counts, _, facts in expected["lines"]]
    for line in table.lines:
        if line.number is not None:
            assert table.by_number(line.number) == line


def test_the_x86_joined_form_is_split_for_the_sampler_and_kept_as_printed_for_the_facts() -> None:
    text = READINGS["boards/x86-virtio-vm/proc/interrupts"]
    sampled = procfs_interrupts.parse_interrupts(text).line("38")
    facts = facts_interrupts.parse_interrupts(text).by_number(38)
    assert sampled is not None and facts is not None
    assert (sampled.chip, sampled.hwirq, sampled.trigger, sampled.joined) == (
        "PCI-MSIX-0000:00:03.0",
        "1",
        "edge",
        True,
    )
    assert (facts.hwirq, facts.trigger, facts.controller) == (
        "1-edge",
        None,
        "PCI-MSIX-0000:00:03.0 1-edge",
    )


def test_a_shared_irq_is_one_name_for_the_sampler_and_one_name_per_action_for_the_facts() -> None:
    text = READINGS["boards/r4s/proc/interrupts"]
    sampled = procfs_interrupts.parse_interrupts(text).line("222")
    facts = facts_interrupts.parse_interrupts(text).by_number(222)
    assert sampled is not None and facts is not None
    assert sampled.name == "PCIe PME, aerdrv"
    assert sampled.actions == facts.names == ("PCIe PME", "aerdrv")
