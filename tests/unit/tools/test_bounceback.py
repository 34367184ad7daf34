"""iperf2's bounceback output, captured from the real tool (tests/fixtures/bounceback)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from wirespeed.model import Better
from wirespeed.tools import bounceback

FIXTURES = Path(__file__).parents[2] / "fixtures" / "bounceback"


def figures(name: str) -> dict[str, float]:
    parsed = bounceback.parse((FIXTURES / name).read_text())
    assert all(m.unit == "ms" and m.better is Better.LOWER for m in parsed)
    return {m.item: m.value for m in parsed}


def test_the_summary_line_gives_mean_min_and_max() -> None:
    assert figures("bb-100-t2.txt") == {
        "bounceback rtt mean": pytest.approx(0.083),
        "bounceback rtt min": pytest.approx(0.013),
        "bounceback rtt max": pytest.approx(1.681),
    }


def test_after_the_interval_lines_the_summary_is_the_last() -> None:
    # A one-second run: its interval saw 10 round trips (mean 0.053 ms), the whole run 11.
    assert figures("bb-20000-t1.txt")["bounceback rtt mean"] == pytest.approx(0.528)
    assert figures("bb-100-t3-i1.txt")["bounceback rtt mean"] == pytest.approx(0.200)


def test_a_refused_connection_is_an_error_quoting_iperf_not_an_empty_success() -> None:
    # iperf exits 0 here: only the parser can tell.
    with pytest.raises(ValueError, match="tcp connect failed: Connection refused"):
        bounceback.parse((FIXTURES / "bb-refused.txt").read_text())


def test_an_output_cut_short_is_an_error_quoting_its_last_line() -> None:
    # A client killed before its summary leaves only its header (the first lines of a run).
    header = "".join((FIXTURES / "bb-100-t2.txt").read_text().splitlines(keepends=True)[:5])
    with pytest.raises(ValueError) as raised:
        bounceback.parse(header)
    assert str(raised.value) == (
        "iperf reported no bounceback round trip: Bounce-back test (size= 100 Byte) "
        "(server hold req=0 usecs & tcp_quickack)"
    )


def test_the_client_asks_for_the_options_duration_and_size() -> None:
    argv = bounceback.client_argv({"duration": 3, "size": 12000}, "198.19.1.2", 5001)
    assert argv == [
        "iperf", "-c", "198.19.1.2", "-p", "5001", "--bounceback", "-t", "3", "-l", "12000",
    ]  # fmt: skip
    assert bounceback.client_timeout({"duration": 3}) == 3 + bounceback.CLIENT_MARGIN


def test_a_message_too_small_for_iperf_is_refused_in_the_plan() -> None:
    # iperf 2.1.8 hangs below 64 bytes, ignoring SIGTERM.
    with pytest.raises(ValidationError, match="greater than or equal to 64"):
        bounceback.Options.model_validate({"size": 48})
    with pytest.raises(ValidationError, match="Extra inputs"):
        bounceback.Options.model_validate({"parallel": 2})
