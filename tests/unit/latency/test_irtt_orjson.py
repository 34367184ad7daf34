"""irtt's JSON read by orjson (a third of json's time): the document json reads, and
json's reading where orjson refuses what json accepts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wirespeed.tools import irtt

FIXTURES = Path(__file__).parents[2] / "fixtures" / "latency"


@pytest.mark.parametrize(
    "name", ["irtt-idle-router-100mbit.json", "irtt-loaded-router-100mbit-queue-40ms.json"]
)
def test_irtt_output_read_by_orjson_is_what_json_reads(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = (FIXTURES / name).read_text()
    fast = irtt.parse(text)
    monkeypatch.setattr(irtt, "_loads", json.loads)
    assert fast == irtt.parse(text)


def test_irtt_output_orjson_refuses_is_read_by_json() -> None:
    # A NaN (json reads it, orjson does not) in a member the series does not use.
    document = json.loads((FIXTURES / "irtt-idle-router-100mbit.json").read_text())
    with_nan = json.dumps({**document, "stats": {"rtt": {"mean": float("nan")}}})
    assert irtt.parse(with_nan) == irtt.parse(json.dumps(document))
    with pytest.raises(ValueError, match="connection refused"):
        irtt.parse("irtt: connection refused\n")
