"""The chunk parser reads irtt's round trips one at a time: it must see every one of
them, in order, as decoding the whole document would, and refuse output cut short."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wirespeed.soak.chunk import parse_chunk

FIXTURES = Path(__file__).parents[2] / "fixtures" / "soak"
INTERVAL_NS = 10**7
CAPTURES = ["link_fault.irtt.json", "across_a.irtt.json", "across_b.irtt.json"]


@pytest.mark.parametrize("name", CAPTURES)
def test_every_round_trip_is_seen_as_the_whole_document_has_it(name: str) -> None:
    text = (FIXTURES / name).read_text()
    trips = json.loads(text)["round_trips"]
    sends = [trip["timestamps"]["client"]["send"]["wall"] for trip in trips]
    lost = [trip["lost"] for trip in trips]

    probes = parse_chunk(text, INTERVAL_NS)

    assert probes.sent == len(trips)
    assert (probes.first_send_ns, probes.last_send_ns) == (sends[0], sends[-1])
    assert probes.lost_up == lost.count("true_up")
    assert probes.lost_down == lost.count("true_down")
    assert probes.lost == len(trips) - lost.count("false")
    rtts = sorted(trip["delay"]["rtt"] / 1e6 for trip in trips if trip["lost"] == "false")
    assert probes.rtt_max_ms == rtts[-1]


def test_output_cut_short_is_refused_wherever_it_ends() -> None:
    text = (FIXTURES / "link_fault.irtt.json").read_text().rstrip()
    starts = text.index('"round_trips"')
    for end in (starts + 5, starts + 20, len(text) // 2, len(text) - 3, len(text) - 1):
        with pytest.raises(ValueError, match="irtt's output"):
            parse_chunk(text[:end], INTERVAL_NS)


def test_output_that_goes_on_after_the_document_is_refused() -> None:
    text = (FIXTURES / "link_fault.irtt.json").read_text().rstrip()
    with pytest.raises(ValueError, match="goes on after"):
        parse_chunk(text + "\n{}", INTERVAL_NS)


def test_a_document_without_round_trips_says_so() -> None:
    with pytest.raises(ValueError, match="has no round_trips"):
        parse_chunk('{"version": {"irtt": "0.9.0"}}', INTERVAL_NS)
    with pytest.raises(ValueError, match="has no round_trips"):
        parse_chunk('{"version": {}, "round_trips": null}', INTERVAL_NS)


def test_no_round_trips_at_all_is_an_empty_chunk() -> None:
    probes = parse_chunk('{"version": {"irtt": "0.9.0"}, "round_trips": [ ]}', INTERVAL_NS)
    assert (probes.sent, probes.first_send_ns, probes.runs) == (0, None, ())
