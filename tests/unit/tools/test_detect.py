"""A saved output tells which tool, format and end produced it."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.model import Side, Tool
from wirespeed.tools.detect import detect, parse_any

FIXTURES = Path(__file__).parents[2] / "fixtures"
OUTPUTS = sorted(
    p
    for p in FIXTURES.glob("*/*.txt")
    if not p.name.startswith("INDEX")
    and p.name != "version.txt"
    and p.parent.name in {"iperf2", "iperf3", "seeds"}
)


def expected(path: Path) -> tuple[Tool, str, Side]:
    tool = Tool.IPERF3 if path.parent.name == "iperf3" else Tool.IPERF2
    name = path.name
    output_format = (
        "json" if name.startswith("json-") else "csv" if name.startswith("csv-") else "text"
    )
    # iperf2 CSV does not say which end printed it: taken for the client's.
    server = ".server." in name and output_format != "csv"
    return tool, output_format, Side.SERVER if server else Side.CLIENT


@pytest.mark.parametrize("path", OUTPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_captured_output_is_recognized(path: Path) -> None:
    assert detect(path.read_text()) == expected(path)


@pytest.mark.parametrize("path", OUTPUTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_captured_output_parses(path: Path) -> None:
    result = parse_any(path.read_text())
    assert result.tool is expected(path)[0]
    assert result.directions or result.warnings


@pytest.mark.parametrize(
    "text",
    ["", "PING 10.0.0.1 (10.0.0.1) 56(84) bytes of data.\n", '{"not": "iperf"}\n'],
)
def test_something_that_is_not_iperf_output_is_refused_with_a_hint(text: str) -> None:
    with pytest.raises(UsageError) as raised:
        detect(text)
    assert "not iperf output" in raised.value.message
    assert raised.value.hint is not None
