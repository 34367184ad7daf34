"""iputils' ping flood output, captured from the real tool (tests/fixtures/ping_flood)."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from wirespeed.model import Better
from wirespeed.tools import ping_flood

FIXTURES = Path(__file__).parents[2] / "fixtures" / "ping_flood"


def figures(name: str) -> dict[str, float]:
    return figures_of((FIXTURES / name).read_text())


def test_the_summary_gives_the_round_trips_loss_and_rate() -> None:
    assert figures("pf-1400-w1.txt") == {
        "flood rtt min": pytest.approx(0.001),
        "flood rtt mean": pytest.approx(0.001),
        "flood rtt max": pytest.approx(0.370),
        "flood rtt mdev": pytest.approx(0.001),
        "flood loss": 0.0,
        "flood rate": pytest.approx(340_280.0),  # answered requests over ping's 1000 ms
    }


def test_across_a_link_the_flood_runs_at_its_frame_rate_and_the_last_request_is_not_lost() -> None:
    # 1400 bytes of data: 1428 of IP, 1466 on the wire with the Ethernet header and the
    # 24 bytes of framing the token buckets count; 10 Mbit/s carries 852.6 such a second.
    found = figures("pf-1400-10mbit.txt")
    assert found["flood rate"] == pytest.approx(10e6 / (1466 * 8), rel=0.01)
    assert found["flood rtt mean"] == pytest.approx(1.138)
    # ping said 854 sent, 853 answered: the one in flight at the deadline is unknown.
    assert found["flood loss"] == 0.0


def test_each_figure_says_which_way_is_better() -> None:
    parsed = ping_flood.parse((FIXTURES / "pf-56-w1.txt").read_text())
    assert {m.name: m.better for m in parsed} == {
        "flood rtt": Better.LOWER,
        "flood loss": Better.LOWER,
        "flood rate": Better.HIGHER,
    }


def test_lost_requests_are_loss_and_the_rate_counts_only_the_answered() -> None:
    # Every other request dropped: the flood waits 10 ms for each, 57 answered in 1 s.
    # ping said 115 sent: the last, unanswered at the deadline, is left out.
    found = figures("pf-half-lost.txt")
    assert found["flood loss"] == pytest.approx(100 * 57 / 114)
    assert found["flood rate"] == pytest.approx(57 / 0.995)


def test_nothing_answered_is_an_error_not_a_figure() -> None:
    with pytest.raises(ValueError, match="none of the 61 echo requests was answered"):
        ping_flood.parse((FIXTURES / "pf-unanswered.txt").read_text())


def test_a_flood_refused_to_a_user_says_it_needs_root() -> None:
    with pytest.raises(ValueError, match=r"cannot flood.*needs root on the client"):
        ping_flood.parse((FIXTURES / "pf-not-root.txt").read_text())


def test_busyboxs_ping_says_which_package_floods() -> None:
    with pytest.raises(ValueError, match="install iputils-ping"):
        ping_flood.parse((FIXTURES / "pf-busybox.txt").read_text())


def test_a_flood_too_short_for_pings_clock_gives_no_rate() -> None:
    text = (FIXTURES / "pf-56-w1.txt").read_text().replace("time 1000ms", "time 40ms")
    assert "flood rate" not in figures_of(text)


def figures_of(text: str) -> dict[str, float]:
    return {m.item: m.value for m in ping_flood.parse(text)}


def test_the_client_floods_for_the_options_duration_and_size_and_no_server_runs() -> None:
    options = {"duration": 3, "size": 1400}
    assert ping_flood.client_argv(options, "198.19.1.2", ping_flood.DEFAULT_PORT) == [
        "ping", "-f", "-q", "-w", "3", "-s", "1400", "198.19.1.2",
    ]  # fmt: skip
    assert ping_flood.client_timeout(options) == 3 + ping_flood.CLIENT_MARGIN
    assert ping_flood.server_argv(options, ping_flood.DEFAULT_PORT) is None


def test_a_request_with_no_room_for_its_timestamp_is_refused_in_the_plan() -> None:
    with pytest.raises(ValidationError, match="greater than or equal to 16"):
        ping_flood.Options.model_validate({"size": 8})
    with pytest.raises(ValidationError, match="Extra inputs"):
        ping_flood.Options.model_validate({"interval": 0.1})
