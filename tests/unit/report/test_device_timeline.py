"""Device over time: a board's power, temperature and clocks as lanes, its firmware's
under-voltage and throttling as intervals, its kernel log as instants; taken from what
the real sampler made of the fake board trees (tests/support/board_samples.py)."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from support.board_samples import line_rate_trial, sampled_board
from support.samples import run_record
from wirespeed.model import MonitorRecord, RawOutput, Side
from wirespeed.report import build_report
from wirespeed.report.device_timeline import (
    device_timeline_section,
    throttle_spans,
    trial_timeline,
)
from wirespeed.report.html import render_html
from wirespeed.report.timeline import Series
from wirespeed.sampling.meter import METER_FORMAT, METER_HOST, format_reading

# Every test here reads samples a real sampler took from a fake board tree.
pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> MonitorRecord:
    return sampled_board(tmp_path_factory.mktemp("board"))


def test_the_boards_gauges_become_lanes_intervals_and_instants(board: MonitorRecord) -> None:
    timeline = trial_timeline(line_rate_trial(board))
    assert timeline is not None
    lanes = {lane.title: lane for lane in timeline.lanes}
    assert list(lanes) == ["power", "temperature", "CPU clock"]
    # INA3221 VDD_IN: 5.0 V x 0.44 A
    (power,) = lanes["power"].series
    assert power.label == "board" and list(power.v) == pytest.approx([2.2] * len(power.v))
    # the R4S's hottest zone (soc-thermal 52.777 °C)
    assert set(lanes["temperature"].series[0].v) == {52.777}
    clocks = {s.label: set(s.v) for s in lanes["CPU clock"].series}
    assert clocks == {"r4s policy0": {1416.0}, "r4s policy4": {1800.0}}
    # 0x50005 in every reading: under-voltage and throttled all along
    assert {(s.kind, s.label) for s in timeline.intervals} == {
        ("under-voltage", "r4s: under-voltage"),
        ("throttled", "r4s: throttled"),
    }
    assert all(s.end > s.start for s in timeline.intervals)
    # the four kernel log lines of the seed, named
    assert [m.label for m in timeline.instants] == [
        "tx-hang",
        "tx-hang",
        "adapter-reset",
        "link-up",
    ]
    assert "Detected Tx Unit Hang" in timeline.instants[1].text


def test_a_condition_lasts_from_the_reading_that_says_it_to_the_first_that_does_not() -> None:
    spans = throttle_spans("pi", [0.0, 1.0, 2.0, 3.0, 4.0], [0x0, 0x1, 0x5, 0x4, 0x0])
    assert [(s.kind, s.start, s.end) for s in spans] == [
        ("under-voltage", 1.0, 3.0),
        ("throttled", 2.0, 4.0),
    ]
    # sticky "has occurred" bits alone are no condition now
    assert throttle_spans("pi", [0.0, 1.0], [0x50000, 0x50000]) == []


def test_the_meters_readings_and_its_traffic_mark_are_drawn(board: MonitorRecord) -> None:
    log = "@@meter 1\n" + "".join(
        format_reading(t, w, f"{w} W") for t, w in ((0.0, 2.1), (1.0, 2.2))
    )
    log += "@@load 1.5\n" + format_reading(2.0, 4.9, "4.9 W") + "@@end 3.0\n"
    meter = RawOutput(METER_HOST, Side.CLIENT, ("meter.sh",), METER_FORMAT, log)
    outcome = dataclasses.replace(line_rate_trial(board), raw=(meter,))
    # the trial's goodput, seconds since its traffic began: drawn from the meter's mark
    goodput = Series("up", [1.0, 2.0], [941.0, 940.5])
    timeline = trial_timeline(outcome, [goodput])
    assert timeline is not None
    assert [lane.title for lane in timeline.lanes][:2] == ["throughput", "power"]
    (drawn,) = timeline.lanes[0].series
    assert (list(drawn.t), list(drawn.v)) == ([2.5, 3.5], [941.0, 940.5])
    power = {s.label: list(s.v) for s in timeline.lanes[1].series}
    assert power["power meter"] == [2.1, 2.2, 4.9]
    # without a meter no mark says when the traffic began: no throughput lane
    alone = trial_timeline(line_rate_trial(board), [goodput])
    assert alone is not None and alone.lanes[0].title == "power"
    assert [(s.start, s.end) for s in timeline.intervals if s.kind == "traffic"] == [(1.5, 3.0)]


def test_a_trial_without_gauges_has_no_timeline(board: MonitorRecord) -> None:
    bare = dataclasses.replace(line_rate_trial(board), monitors=())
    assert trial_timeline(bare) is None
    assert device_timeline_section(build_report(run_record(bare))) == ""


def test_the_page_has_a_device_timeline_per_trial(board: MonitorRecord, tmp_path: Path) -> None:
    record = run_record(line_rate_trial(board, 1), line_rate_trial(board, 2))
    page = render_html(build_report(record))
    section = page[page.index('id="device-timeline"') :]
    assert section.count('<figure class="ws-timeline">') == 2
    assert section.count("<option") == 2 and section.count(" hidden>") == 1
    block = re.search(r'class="ws-timeline-data">(.*?)</script>', section, re.S)
    assert block is not None
    data = json.loads(block.group(1))
    assert [lane["title"] for lane in data["lanes"]] == ["power", "temperature", "CPU clock"]
    assert {span[3] for span in data["spans"]} == {"under-voltage", "throttled"}
    # style and script once, for every chart of the section
    assert page.count("window.wsTimeline = ") == 1


def test_kernel_lines_alone_make_a_timeline_only_when_one_is_a_known_event(
    board: MonitorRecord,
) -> None:
    fields = json.loads(board.summary)
    for name in ("power_timeline", "clock_timeline", "throttle_timeline"):
        fields[name] = None
    # a lab's namespaces see the machine's log: a bridge port's state is no event
    noise = [e for e in fields["events"] if e["event"] is None] or [
        {**fields["events"][0], "event": None, "message": "br0: port 1(lan) entered blocking state"}
    ]
    quiet = dataclasses.replace(board, summary=json.dumps({**fields, "events": noise}))
    assert trial_timeline(line_rate_trial(quiet)) is None
    hung = dataclasses.replace(board, summary=json.dumps(fields))
    timeline = trial_timeline(line_rate_trial(hung))
    assert timeline is not None and timeline.lanes == () and len(timeline.instants) == 4


def test_a_labs_kernel_events_alone_make_no_timeline(board: MonitorRecord) -> None:
    # A lab's namespace reads the machine's whole log: another lab's veth coming up is
    # "link-up" there too, in every trial.
    fields = json.loads(board.summary)
    for name in ("power_timeline", "clock_timeline", "throttle_timeline"):
        fields[name] = None
    lab = dataclasses.replace(board, host="wirespeed-bridge-dut", summary=json.dumps(fields))
    assert trial_timeline(line_rate_trial(lab)) is None
    # with gauges, its events are drawn beside them
    gauged = dataclasses.replace(board, host="wirespeed-bridge-dut")
    timeline = trial_timeline(line_rate_trial(gauged))
    assert timeline is not None and len(timeline.instants) == 4
