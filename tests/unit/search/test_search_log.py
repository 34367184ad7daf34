"""A search cell's log survives JSON, and its measurements say the throughput in packets/s,
L2 and wire bits/s and % of the frame-rate ceiling, as LIMITS.md computes them."""

from __future__ import annotations

import pytest

from wirespeed.model import ModelError
from wirespeed.search.frames import (
    frames_per_second,
    l1_bits_per_second,
    l2_bits_per_second,
    udp_payload_for_frame,
)
from wirespeed.search.log import Counters, SearchLog, from_json, to_json
from wirespeed.search.measurements import measurements_of
from wirespeed.search.model import Goal, GoalResult, SearchResult, TrialResult

NDR = Goal("NDR", loss_ratio=0.0, final_duration=10.0, width=0.01)
PDR = Goal("PDR", loss_ratio=0.005, final_duration=10.0, width=0.01)


def a_log(*, ceiling: float | None = 81_274.0) -> SearchLog:
    trials = (
        TrialResult(intended=81_274.0, duration=1.0, sent=81_270, received=15_020),
        TrialResult(intended=15_020.0, duration=10.0, sent=150_200, received=150_200),
        TrialResult(intended=15_170.0, duration=10.0, sent=151_700, received=151_050),
    )
    result = SearchResult(
        goals=(
            GoalResult(NDR, lower=15_020.0, upper=15_170.0, conditional_throughput=15_020.0),
            GoalResult(PDR, lower=15_170.0, upper=None, conditional_throughput=15_105.0),
        ),
        trials=trials,
        algorithm="mlrsearch",
    )
    counters = (Counters(81_275, 15_022), None, Counters(151_702, 151_052))
    return SearchLog(1518, "in", result, 1_000_000_000, ceiling, counters)


def test_the_log_survives_json() -> None:
    log = a_log()
    back = from_json(to_json(log))
    assert back == log
    assert back.argv() == ("wirespeed-search", "--frame", "1518", "--direction", "in")


def test_what_is_not_a_log_is_refused() -> None:
    with pytest.raises(ModelError, match="not a wirespeed-search log"):
        from_json('{"format": "something-else", "version": 1}')
    with pytest.raises(ModelError, match="not a readable search log"):
        from_json("[1, 2]")


def test_measurements_follow_the_frame_arithmetic() -> None:
    found = {m.name: m for m in measurements_of(a_log())}
    assert set(found) == {
        "NDR", "NDR L2", "NDR L1", "NDR of ceiling", "NDR forwarding rate",
        "PDR", "PDR L2", "PDR L1", "PDR of ceiling", "PDR forwarding rate",
        "search trials", "search time",
    }  # fmt: skip
    assert found["NDR"].value == 15_020.0 and found["NDR"].unit == "pps"
    assert found["NDR"].labels == (("frame", "1518 B"), ("direction", "in"))
    assert found["NDR L2"].value == pytest.approx(15_020 * 1518 * 8)
    assert found["NDR L1"].value == pytest.approx(15_020 * 1538 * 8)
    assert found["NDR of ceiling"].value == pytest.approx(100 * 15_020 / 81_274)
    assert found["search trials"].value == 3 and found["search time"].value == 21.0
    unshaped = {m.name for m in measurements_of(a_log(ceiling=None))}
    assert "NDR of ceiling" not in unshaped


def test_limits_md_frame_rates_and_padding() -> None:
    assert round(frames_per_second(10**9, 1518)) == 81_274
    assert round(frames_per_second(10**8, 64)) == 148_810
    assert round(frames_per_second(10**9, 60)) == round(frames_per_second(10**9, 64))
    # 64-byte frames: 512 bits of frame and 672 bits of wire each.
    assert l2_bits_per_second(1, 64) == 512 and l1_bits_per_second(1, 64) == 672
    assert udp_payload_for_frame(1518) == 1472 and udp_payload_for_frame(64) == 18
    assert udp_payload_for_frame(73) == 27
