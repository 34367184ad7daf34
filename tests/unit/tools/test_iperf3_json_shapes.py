"""iperf3 -J: several streams' totals, and JSON that is not iperf3's shape."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wirespeed.model import Flow, Side, WarningKind
from wirespeed.tools import iperf3

CAPTURES = Path(__file__).parents[2] / "fixtures" / "iperf3"


@pytest.mark.parametrize("side", [Side.CLIENT, Side.SERVER])
def test_eight_streams_total_is_iperf3s_own_sum(side: Side) -> None:
    # tests/fixtures/capture_streams.sh: -P 8 over a 100 Mbit/s link.
    text = (CAPTURES / f"json-streams-tcp-p8.{side.value}.txt").read_text()
    up = iperf3.parse_json(text, side).direction(Flow.UP)
    assert up is not None and up.received is not None and len(up.streams) == 8
    own = json.loads(text)["end"]["sum_received"]
    assert up.received.bytes == own["bytes"]
    assert up.received.bits_per_second == pytest.approx(own["bits_per_second"], rel=1e-3)


@pytest.mark.parametrize(
    "document",
    [
        '{"start": {}, "end": []}',
        '{"start": [], "end": {}}',
        '{"start": {}, "end": {"streams": [{"sender": {"socket": 5}}]}}',
        '{"start": {}, "end": {"streams": ["x"]}}',
        '{"start": {}, "intervals": [{"streams": [{"socket": "five"}]}]}',
        '{"start": {}, "intervals": {"streams": 1}}',
    ],
)
def test_json_of_another_shape_holds_no_measurement_and_says_so(document: str) -> None:
    result = iperf3.parse_json(document, Side.CLIENT)
    assert result.directions == ()
    assert [w.kind for w in result.warnings] == [WarningKind.OTHER]
    assert "shape of iperf3's -J output" in result.warnings[0].message
