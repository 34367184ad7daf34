"""What a forwarding table's figures mean, the same in every format: a figure the search
could go no higher than (the plan's max_rate below the link's ceiling) is a lower bound
and reads "≥"; `both` states each direction's rates, never their sum; and a trial that
failed after some of its searches finished keeps and shows those searches."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import replace

from rich.console import Console

from support.forwarding_samples import START, bridge_path, forwarding_outcome, forwarding_test
from support.run_report import render_markdown, render_terminal
from support.samples import run_record
from support.simulated_device import SimulatedDevice
from wirespeed.model import TrialOutcome, TrialStatus
from wirespeed.report import build_report, render_csv, render_json
from wirespeed.report.html import render_html
from wirespeed.report.model import Report
from wirespeed.search.frames import frames_per_second
from wirespeed.search.log import SearchLog
from wirespeed.search.mlrsearch import mlrsearch
from wirespeed.search.model import Goal, SearchLimits, TrialResult

GBE = 1_000_000_000
CEILING_1518 = frames_per_second(GBE, 1518)  # 81,274 frames/s
NDR = Goal("NDR", final_duration=2.0, width=0.01)


def _log(direction: str, max_load: float, capacity: float, legs: int = 1) -> SearchLog:
    device = SimulatedDevice(capacity=capacity)

    def measure(intended: float, duration: float) -> TrialResult:
        # Every leg at `intended`; the device forwards `capacity` a direction.
        one = device(intended, duration)
        return replace(one, sent=one.sent * legs, received=one.received * legs, legs=legs)

    limits = SearchLimits(max_load=max_load, min_load=100.0, initial_duration=0.5)
    result = mlrsearch(measure, [NDR], limits)
    return SearchLog(1518, direction, result, link_rate_bps=GBE, ceiling_pps=CEILING_1518)


def _report(*outcomes: TrialOutcome) -> Report:
    return build_report(run_record(*outcomes, started_at=START))


def _terminal(report: Report) -> str:
    buffer = io.StringIO()
    render_terminal(report, Console(file=buffer, width=200, color_system=None))
    return buffer.getvalue()


def test_max_rate_below_the_devices_capacity_is_a_lower_bound_everywhere() -> None:
    # max_rate 5kpps on a 15 kpps device: nothing up to 5,000 lost anything.
    test = forwarding_test(frames=(1518,), directions=("up",))
    log = _log("up", max_load=5_000.0, capacity=15_000.0)
    assert log.result.goal("NDR").lower == 5_000 and log.result.goal("NDR").upper is None
    report = _report(forwarding_outcome(test, bridge_path(), [log]))
    assert "\N{GREATER-THAN OR EQUAL TO} 5,000" in _terminal(report)
    markdown = render_markdown(report)
    assert "\N{GREATER-THAN OR EQUAL TO} 5,000" in markdown
    assert "a lower bound" in markdown  # the cell's note says why
    assert "\N{GREATER-THAN OR EQUAL TO} 5,000" in render_html(report)
    (table,) = json.loads(render_json(report))["forwarding"]
    (goal,) = table["rows"][0]["cells"][0]["searches"][0]["goals"]
    assert goal["lower_pps"] == 5_000 and goal["upper_pps"] is None and goal["at_least"] is True
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    bounds = {row["measurement"]: row["bound"] for row in rows}
    assert bounds["NDR"] == bounds["NDR L2"] == "at least"
    assert bounds["NDR forwarding rate"] == ""


def test_a_search_up_to_the_links_ceiling_is_the_line_rate_not_a_lower_bound() -> None:
    test = forwarding_test(frames=(1518,), directions=("up",))
    log = _log("up", max_load=CEILING_1518, capacity=1e6)
    assert log.result.goal("NDR").lower == CEILING_1518
    report = _report(forwarding_outcome(test, bridge_path(), [log]))
    assert "\N{GREATER-THAN OR EQUAL TO} 81,274" not in _terminal(report)
    (table,) = json.loads(render_json(report))["forwarding"]
    assert table["rows"][0]["cells"][0]["searches"][0]["goals"][0]["at_least"] is False


def test_both_directions_state_each_directions_rates() -> None:
    # A device forwarding 7,500 frames/s each way, both directions sent at once.
    test = forwarding_test(frames=(1518,), directions=("both",))
    log = _log("both", max_load=CEILING_1518, capacity=7_500.0, legs=2)
    report = _report(forwarding_outcome(test, bridge_path(), [log]))
    (table,) = report.forwarding
    (cell,) = table.cells
    ndr, rate = cell.figure("NDR"), cell.figure("NDR forwarding rate")
    assert ndr is not None and rate is not None
    assert 7_500 * 0.98 <= ndr.values[0] <= 7_500
    assert abs(rate.values[0] - ndr.values[0]) <= 1, (rate.values, ndr.values)
    assert "never their sum" in render_markdown(report)


def test_a_failed_trial_keeps_the_searches_it_finished() -> None:
    test = forwarding_test(frames=(1518,), directions=("out", "in"))
    done = _log("out", max_load=CEILING_1518, capacity=15_000.0)
    outcome = replace(
        forwarding_outcome(test, bridge_path(), [done]),
        status=TrialStatus.FAILED,
        reason="the iperf sender on workstation failed: udp connect failed",
    )
    report = _report(outcome)
    (table,) = report.forwarding
    assert (table.trials_ok, table.trials_failed) == (0, 1)
    assert [row.frame for row in table.rows] == [1518]
    (cell,) = table.cells
    assert cell.direction == "out" and cell.searches
    ndr = cell.figure("NDR")
    assert ndr is not None and 15_000 * 0.98 <= ndr.values[0] <= 15_000
    assert "| 1518 B |" in render_markdown(report)
    (data,) = json.loads(render_json(report))["forwarding"]
    assert data["rows"] and data["rows"][0]["cells"][0]["searches"]
