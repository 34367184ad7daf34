"""Outages found in real irtt output captured through a lab router while faults were
injected (tests/fixtures/soak/capture_soak.py), against the faults' true times."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wirespeed.soak.chunk import ChunkProbes, LossRun, blind_chunk, parse_chunk
from wirespeed.soak.outages import JOIN_NS, Outage, find_outages

FIXTURES = Path(__file__).parents[2] / "fixtures" / "soak"
INTERVAL_NS = 10_000_000
GOAL = 0.1  # seconds, the soak's promise for an outage's start and length


def chunk(name: str) -> ChunkProbes:
    return parse_chunk((FIXTURES / name).read_text(), INTERVAL_NS)


def truth(name: str) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((FIXTURES / name).read_text())
    return loaded


def fault_times(name: str) -> tuple[float, float]:
    faults = truth(name)["faults"]
    assert isinstance(faults, list)
    return float(faults[0]["start"]), float(faults[0]["end"])


def test_a_link_down_for_half_a_second_is_one_outage_of_its_start_and_length() -> None:
    probes = chunk("link_fault.irtt.json")
    start, end = fault_times("link_fault.truth.json")

    [outage] = find_outages([probes])

    assert abs(outage.start - start) <= GOAL
    assert abs(outage.duration - (end - start)) <= GOAL
    assert outage.direction == "up"  # the server never saw them: lost on the way there
    assert outage.lost == probes.lost_up == probes.lost
    assert not outage.blind


def test_the_chunk_keeps_its_probe_count_and_round_trips() -> None:
    probes = chunk("link_fault.irtt.json")

    # 3 s at 10 ms; irtt skips a send its timer missed (its stats count timer_misses).
    assert 290 <= probes.sent <= 300
    assert probes.first_send_ns is not None and probes.last_send_ns is not None
    assert 2.9e9 < probes.last_send_ns - probes.first_send_ns < 3.1e9
    assert probes.rtt_p50_ms is not None and 0 < probes.rtt_p50_ms < 50
    assert probes.rtt_max_ms is not None and probes.rtt_max_ms >= probes.rtt_p50_ms


def test_an_outage_across_two_chunks_and_the_blind_start_between_is_one_outage() -> None:
    first, second = chunk("across_a.irtt.json"), chunk("across_b.irtt.json")
    facts = truth("across.truth.json")
    start, end = fault_times("across.truth.json")
    asked, started = float(facts["b_asked_at"]), float(facts["b_started_at"])  # type: ignore[arg-type]
    blind = blind_chunk(round(asked * 1e9), round(started * 1e9), INTERVAL_NS)

    assert first.runs[-1].open_end  # the loss reached the first chunk's end

    [outage] = find_outages([first, blind, second])

    assert abs(outage.start - start) <= GOAL
    assert abs(outage.duration - (end - start)) <= GOAL
    assert outage.blind


def test_without_the_next_chunk_the_outage_ends_where_watching_ended() -> None:
    first = chunk("across_a.irtt.json")
    start, _ = fault_times("across.truth.json")
    assert first.last_send_ns is not None

    [outage] = find_outages([first])

    assert abs(outage.start - start) <= GOAL
    assert outage.end == pytest.approx((first.last_send_ns + INTERVAL_NS) / 1e9)


def test_chunks_apart_by_more_than_a_handover_are_not_joined() -> None:
    # Two runs that each reach a chunk's edge, 5 s apart: nobody watched in between
    # (wirespeed was not running), so they stay two.
    before = ChunkProbes(0, 10, 10, 5, 0, 0, (LossRun(5, 10, 5, up=5, open_end=True),))
    after = ChunkProbes(
        5_000_000_010, 5_000_000_020, 10, 5, 0, 0,
        (LossRun(5_000_000_010, 5_000_000_015, 5, up=5, open_start=True),),
    )  # fmt: skip

    assert len(find_outages([before, after], threshold=3)) == 2


@pytest.mark.parametrize(("lost", "outages"), [(2, 0), (3, 1), (4, 1)])
def test_an_outage_is_at_least_the_threshold_of_consecutive_losses(lost: int, outages: int) -> None:
    run = LossRun(0, lost * INTERVAL_NS, lost, down=lost)
    probes = ChunkProbes(0, 100 * INTERVAL_NS, 100, 0, lost, 0, (run,))

    assert len(find_outages([probes], threshold=3)) == outages


def test_a_loss_run_survives_the_store_encoding() -> None:
    run = LossRun(1, 2, 3, up=1, down=1, unknown=1, open_start=True, open_end=False, blind=True)

    assert LossRun.from_list(run.to_list()) == run


def test_direction_says_both_ways_when_both_lost() -> None:
    assert Outage(0, 1, 4, up=2, down=2, unknown=0).direction == "both"
    assert Outage(0, 1, 4, up=0, down=0, unknown=4).direction == "unknown"


def test_irtt_without_a_server_says_so() -> None:
    with pytest.raises(ValueError, match="no reply from server"):
        parse_chunk("[OpenTimeout] no reply from server\n", INTERVAL_NS)


def test_runs_joined_across_chunks_add_up_each_way_and_keep_the_whole_span() -> None:
    # The handover exactly JOIN_NS long still joins: the next chunk began within it.
    before = ChunkProbes(0, 10, 10, 2, 3, 0, (LossRun(5, 10, 5, up=2, down=3, open_end=True),))
    after = ChunkProbes(
        10 + JOIN_NS, 20 + JOIN_NS, 10, 1, 0, 4,
        (LossRun(10 + JOIN_NS, 15 + JOIN_NS, 5, up=1, unknown=4, open_start=True),),
    )  # fmt: skip
    (outage,) = find_outages([before, after], threshold=3)
    assert outage == Outage(
        start=5 / 1e9, end=(15 + JOIN_NS) / 1e9, lost=10, up=3, down=3, unknown=4
    )
    assert outage.duration == pytest.approx(1.00000001)
    assert outage.to_dict() == {
        "start": 0.0,
        "end": 1.0,
        "duration": 1.0,
        "lost": 10,
        "lost_up": 3,
        "lost_down": 3,
        "lost_unknown": 4,
        "direction": "both",
        "blind": False,
    }


def test_direction_says_the_only_way_that_lost() -> None:
    assert Outage(0, 1, 4, up=4, down=0, unknown=0).direction == "up"
    assert Outage(0, 1, 4, up=0, down=3, unknown=1).direction == "down"
    assert Outage(2.5004, 4.2516, 4, up=0, down=0, unknown=4, blind=True).to_dict() == {
        "start": 2.5,  # to the millisecond
        "end": 4.252,
        "duration": 1.751,
        "lost": 4,
        "lost_up": 0,
        "lost_down": 0,
        "lost_unknown": 4,
        "direction": "unknown",
        "blind": True,
    }


def test_outages_in_chunks_one_after_another_each_end_where_they_end() -> None:
    def chunk(start: int, *runs: LossRun) -> ChunkProbes:
        lost = sum(run.lost for run in runs)
        return ChunkProbes(start, start + 99, 100, lost, 0, 0, runs)

    closed = chunk(0, LossRun(10, 15, 5, up=5))
    quiet = chunk(100)
    at_the_end = chunk(200, LossRun(290, 299, 9, up=9, open_end=True))
    again = chunk(300, LossRun(350, 356, 6, up=6))
    found = find_outages([closed, quiet, at_the_end, quiet, again, closed], threshold=3)
    assert [(round(o.start * 1e9), o.lost) for o in found] == [(10, 5), (290, 9), (350, 6), (10, 5)]
