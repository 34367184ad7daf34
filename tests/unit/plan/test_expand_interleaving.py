"""Repetitions are spread over the whole run, so a slow drift (the DUT warming up, a
background job) cannot pass for a difference between tests or paths."""

from __future__ import annotations

from collections import defaultdict
from itertools import pairwise

from wirespeed.plan import expand, parse_plan

PLAN = """
lab: {link: gbe}
paths:
  - {name: WAN, topology: endpoint}
  - {name: Br0, topology: bridge}
repetitions: 5
tests:
  - {id: 1}
  - {id: 2, window: 64K}
  - {id: 3, protocol: udp, rate: 1000M}
"""


def _positions(repetitions: int | None = None) -> tuple[int, dict[tuple[str, str], list[int]]]:
    trials = expand(parse_plan(PLAN), repetitions=repetitions)
    positions: dict[tuple[str, str], list[int]] = defaultdict(list)
    for index, trial in enumerate(trials):
        positions[(trial.test.id, trial.path.name)].append(index)
    return len(trials), positions


def test_no_two_repetitions_of_a_test_run_back_to_back() -> None:
    _, positions = _positions()
    for places in positions.values():
        assert all(later - earlier > 1 for earlier, later in pairwise(places))


def test_each_repetition_of_a_test_comes_one_full_round_after_the_last() -> None:
    total, positions = _positions()
    round_length = total // 5  # 3 tests x 2 paths
    for places in positions.values():
        assert [b - a for a, b in pairwise(places)] == [round_length] * 4


def test_repetitions_span_the_run_from_its_first_round_to_its_last() -> None:
    total, positions = _positions()
    round_length = total // 5
    for places in positions.values():
        assert places[0] < round_length  # in the first round
        assert places[-1] >= total - round_length  # and in the last


def test_repeat_on_the_command_line_interleaves_the_same_way() -> None:
    # `wirespeed run --repeat 4` passes repetitions=4 to expand.
    total, positions = _positions(repetitions=4)
    assert total == 3 * 2 * 4
    for places in positions.values():
        assert [b - a for a, b in pairwise(places)] == [6, 6, 6]
