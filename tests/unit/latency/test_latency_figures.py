"""The latency figures of a trial and its bufferbloat grade."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.analysis.findings import judge_probes
from wirespeed.analysis.latency import grade, latency_measurements, percentile
from wirespeed.model import Better, FindingKind
from wirespeed.sampling.session import sample_set
from wirespeed.sampling.stream import parse_stream
from wirespeed.sampling.summary import MonitorSummary, summarize
from wirespeed.tools import irtt, ping
from wirespeed.tools.probing import ProbeSeries

FIXTURES = Path(__file__).parents[2] / "fixtures" / "latency"


@pytest.mark.parametrize(
    ("increase", "letter"),
    [
        (-0.2, "A+"),
        (4.99, "A+"),
        (5.0, "A"),
        (29.9, "A"),
        (30.0, "B"),
        (40.0, "B"),
        (59.99, "B"),
        (60.0, "C"),
        (199.0, "C"),
        (200.0, "D"),
        (399.9, "D"),
        (400.0, "F"),
        (2500.0, "F"),
    ],
)
def test_grades_follow_the_published_thresholds(increase: float, letter: str) -> None:
    assert grade(increase) == letter


def test_percentiles_interpolate_between_ranks() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 90) == pytest.approx(4.6)
    assert percentile([7.0], 99) == 7.0
    with pytest.raises(ValueError):
        percentile([], 50)


def test_the_lab_queue_makes_grade_b_with_the_increase_on_the_way_up() -> None:
    idle = irtt.parse((FIXTURES / "irtt-idle-router-100mbit.json").read_text())
    loaded = irtt.parse((FIXTURES / "irtt-loaded-router-100mbit-queue-40ms.json").read_text())
    figures = {m.item: m for m in latency_measurements(idle, loaded)}
    assert set(figures) == {
        *(f"rtt {load}, {s}" for load in ("idle", "loaded") for s in ("p50", "p90", "p99", "max")),
        "probe loss idle",
        "probe loss loaded",
        "latency increase round trip",
        "latency increase up",
        "latency increase down",
        "bufferbloat grade",
    }
    increase = figures["latency increase round trip"].value
    assert 25 < increase < 41
    assert figures["latency increase up"].value == pytest.approx(increase, abs=1.0)
    assert abs(figures["latency increase down"].value) < 1.0
    assert figures["bufferbloat grade"].unit == "grade"
    assert figures["bufferbloat grade"].value == increase
    assert grade(increase) == "B"
    p50, p90, p99, top = (figures[f"rtt loaded, {s}"].value for s in ("p50", "p90", "p99", "max"))
    assert p50 <= p90 <= p99 <= top


def test_each_statistic_is_its_own_percentile_to_the_microsecond() -> None:
    # The loaded capture's 150 round trips spread from 27.8 ms (the queue still filling)
    # to 40 ms: p50, p90 and p99 differ by milliseconds, and each is checked against the
    # ranks of the capture's sorted probes (irtt gives microseconds), so a figure taken
    # from the wrong percentile cannot pass.
    idle = irtt.parse((FIXTURES / "irtt-idle-router-100mbit.json").read_text())
    loaded = irtt.parse((FIXTURES / "irtt-loaded-router-100mbit-queue-40ms.json").read_text())
    assert (len(idle.rtt_ms), len(loaded.rtt_ms)) == (99, 150)
    figures = {m.item: m.value for m in latency_measurements(idle, loaded)}
    exact = {
        "rtt idle, p50": 0.118111,  # the 50th of 99
        "rtt idle, p90": 0.163878 + 0.2 * (0.167444 - 0.163878),  # rank 88.2
        "rtt loaded, p50": (37.562865 + 37.641123) / 2,  # between the 75th and 76th of 150
        "rtt loaded, p90": 39.360806 + 0.1 * (39.40013 - 39.360806),  # rank 134.1
        "rtt loaded, max": 40.009564,
        # Each increase is loaded p50 minus idle p50, of the way it is.
        "latency increase round trip": (37.562865 + 37.641123) / 2 - 0.118111,
        "latency increase up": (37.493395 + 37.52302) / 2 - 0.06386,
        "latency increase down": (0.068749 + 0.06942) / 2 - 0.050003,
    }
    for item, value in exact.items():
        assert figures[item] == pytest.approx(value, abs=1e-9), item
    assert figures["rtt loaded, p90"] - figures["rtt loaded, p50"] > 1.7
    ping_idle = ping.parse((FIXTURES / "iputils-ping-idle.txt").read_text())
    ping_loaded = ping.parse((FIXTURES / "iputils-ping-loaded-queue-40ms.txt").read_text())
    by_ping = {m.item: m.value for m in latency_measurements(ping_idle, ping_loaded)}
    # ping prints 3 digits: p50 35.7 and 0.077 are printed values, p90 38.89 is not.
    assert by_ping["rtt loaded, p50"] == pytest.approx(35.7, abs=1e-9)
    assert by_ping["rtt loaded, p90"] == pytest.approx(38.89, abs=1e-9)
    assert by_ping["latency increase round trip"] == pytest.approx(35.7 - 0.077, abs=1e-9)


def test_each_figure_carries_its_unit_direction_and_labels() -> None:
    idle = ProbeSeries("irtt", sent=4, rtt_ms=(1.0, 3.0), up_ms=(0.5,), down_ms=(0.5,))
    loaded = ProbeSeries("irtt", sent=2, rtt_ms=(41.0,), up_ms=(40.5,), down_ms=(0.5,))
    shape = {(m.name, m.unit, m.better, m.labels) for m in latency_measurements(idle, loaded)}
    lower = Better.LOWER
    assert shape == {
        *(
            ("rtt", "ms", lower, (("load", load), ("statistic", statistic)))
            for load in ("idle", "loaded")
            for statistic in ("p50", "p90", "p99", "max")
        ),
        ("probe loss", "%", lower, (("load", "idle"),)),
        ("probe loss", "%", lower, (("load", "loaded"),)),
        *(
            ("latency increase", "ms", lower, (("way", way),))
            for way in ("round trip", "up", "down")
        ),
        ("bufferbloat grade", "grade", lower, ()),
    }
    losses = {m.labels: m.value for m in latency_measurements(idle, loaded) if m.unit == "%"}
    assert losses == {(("load", "idle"),): 50.0, (("load", "loaded"),): 50.0}


def test_no_increase_where_one_side_has_no_probes() -> None:
    irtt_idle = ProbeSeries("irtt", sent=2, rtt_ms=(1.0, 3.0), up_ms=(0.5,), down_ms=(0.5,))
    ping_loaded = ProbeSeries("ping", sent=2, rtt_ms=(41.0, 43.0))
    items = {m.item for m in latency_measurements(irtt_idle, ping_loaded)}
    assert "latency increase round trip" in items
    assert "latency increase up" not in items and "latency increase down" not in items
    all_lost = ProbeSeries("ping", sent=3, rtt_ms=())
    items = {m.item for m in latency_measurements(irtt_idle, all_lost)}
    assert "latency increase round trip" not in items and "probe loss loaded" in items
    with pytest.raises(ValueError, match=r"^no values$"):
        percentile([], 50)


def test_ping_gives_round_trips_only_and_no_way_of_its_own() -> None:
    idle = ping.parse((FIXTURES / "iputils-ping-idle.txt").read_text())
    loaded = ping.parse((FIXTURES / "iputils-ping-loaded-queue-40ms.txt").read_text())
    items = {m.item for m in latency_measurements(idle, loaded)}
    assert "latency increase round trip" in items
    assert "latency increase up" not in items and "latency increase down" not in items


def test_without_a_baseline_there_is_no_increase_and_no_grade() -> None:
    loaded = ProbeSeries("ping", sent=3, rtt_ms=(30.0, 31.0))
    items = {m.item for m in latency_measurements(None, loaded)}
    assert "bufferbloat grade" not in items and "latency increase round trip" not in items
    assert "probe loss loaded" in items


SAMPLING = Path(__file__).parents[2] / "fixtures" / "sampling"
LAB_DUT = "wirespeed-capture-bridge-dut"


def lab_summary(name: str) -> MonitorSummary:
    text = (SAMPLING / name).read_text()
    return summarize(sample_set(LAB_DUT, 0.5, text, parse_stream(text), None))


def test_a_saturated_lab_machine_is_said_beside_the_probes() -> None:
    saturated = judge_probes(None, [], [lab_summary("lab-saturated-yes.txt")], measured=True)
    (said,) = saturated
    assert said.kind is FindingKind.PROBES
    assert "the probes and the load shared this machine's cores" in said.message
    quiet = judge_probes(None, [], [lab_summary("lab-unsaturated.txt")], measured=True)
    assert quiet == []


def test_the_fallback_and_failures_are_said() -> None:
    found = judge_probes(
        "irtt not found on r4s: latency by ping (round trips only)",
        ["the idle probes (ping) failed: ping printed nothing"],
        [],
        measured=False,
    )
    assert [f.message for f in found] == [
        "irtt not found on r4s: latency by ping (round trips only)",
        "the idle probes (ping) failed: ping printed nothing",
    ]
