"""Kernel events near outages, from the DUT's sampler stream captured while a link fault
was injected (tests/fixtures/soak/capture_soak.py), and the sentence that tells them."""

from __future__ import annotations

import json
from pathlib import Path

from wirespeed.sampling.stream import parse_stream
from wirespeed.soak.chunk import parse_chunk
from wirespeed.soak.matching import KernelEvent, Matched, kernel_event, match
from wirespeed.soak.outages import Outage, find_outages
from wirespeed.soak.sentence import sentence

FIXTURES = Path(__file__).parents[2] / "fixtures" / "soak"


def captured_events() -> list[KernelEvent]:
    truth = json.loads((FIXTURES / "link_fault.truth.json").read_text())
    stream = parse_stream((FIXTURES / "link_fault.sampler.txt").read_text())
    started_at = float(truth["sampler_started_at"])
    return [kernel_event(started_at + line.t, "dut", line.message) for line in stream.kernel]


def captured_outages() -> list[Outage]:
    return find_outages([parse_chunk((FIXTURES / "link_fault.irtt.json").read_text(), 10**7)])


def test_the_injected_lines_are_named_as_the_igb_driver_would_be() -> None:
    events = [e for e in captured_events() if e.injected]

    assert [e.kind for e in events] == ["tx-hang", "link-up"]
    assert {e.driver for e in events} == {"igb"}
    assert {e.interface for e in events} == {"wan"}


def test_the_outage_is_matched_with_the_tx_hang_written_as_it_began() -> None:
    truth = json.loads((FIXTURES / "link_fault.truth.json").read_text())
    [matched] = match(captured_outages(), captured_events())

    assert matched.cause is not None
    assert matched.cause.kind == "tx-hang"
    assert matched.cause.injected
    # The line is written just before the link goes down: its time is the fault's.
    assert abs(matched.cause.at - truth["faults"][0]["start"]) < 0.1
    assert [e.kind for e in matched.events] == ["tx-hang", "link-up"]


def test_events_further_than_the_window_are_not_matched() -> None:
    [matched] = match(captured_outages(), captured_events(), window=0.0)
    # The Tx hang is written just before the link goes down (outside a zero window);
    # the link-up line just after it is back (outside too).
    assert all(o.start <= e.at <= o.end for o in [matched.outage] for e in matched.events)


def test_the_sentence_names_the_driver_the_words_and_the_interface() -> None:
    matched = match(captured_outages(), captured_events())

    said = sentence(matched, watched=3.0)

    [outage] = captured_outages()
    assert said == (
        f"1 outage in 3 s, {outage.duration:.2f} s, after `igb … Detected Tx Unit Hang` on wan"
    )


def test_the_seed_routers_kernel_lines_name_igb_and_eth1() -> None:
    lines = [
        line.split("] ", 1)[1]
        # The seed's dmesg lines, as its author pasted them.
        for line in (FIXTURES / "seed004_kernel.txt").read_text().splitlines()
    ]
    events = [kernel_event(0.0, "r4s", line) for line in lines]

    assert [e.kind for e in events] == ["tx-hang", "adapter-reset", "link-up"]
    assert [e.driver for e in events] == ["igb", "igb", "igb"]
    assert [e.interface for e in events] == [None, "eth1", "eth1"]


def test_seven_outages_in_fourteen_hours_each_after_the_same_line() -> None:
    hang = kernel_event(0.0, "r4s", "igb 0000:01:00.0 eth1: Detected Tx Unit Hang")
    lengths = [3.1, 4.0, 5.5, 9.8, 6.0, 3.3, 7.2]
    matched = [
        Matched(Outage(7200.0 * i, 7200.0 * i + length, 300, 300, 0, 0), (hang,))
        for i, length in enumerate(lengths)
    ]

    said = sentence(matched, watched=14 * 3600)

    assert said == (
        "7 outages in 14.0 h (one every 2.0 h), 3.1\N{EN DASH}9.8 s, "
        "each after `igb … Detected Tx Unit Hang` on eth1"
    )


def test_no_outage_is_said_as_such() -> None:
    assert sentence([], watched=86400) == "no outage in 24.0 h"
