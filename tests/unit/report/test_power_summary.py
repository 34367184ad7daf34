"""Per trial in JSON and Markdown: idle and load power, energy per Mbit, the hottest
temperature and whether the board was throttled, from what the real sampler read of the
fake board (under-voltage and throttled by its firmware, 52.8 °C, 2.2 W on its INA3221)."""

from __future__ import annotations

import dataclasses
import json

import pytest

from support.board_samples import line_rate_trial, sampled_board
from support.run_report import render_markdown
from support.samples import run_record
from wirespeed.analysis.power import power_measurements
from wirespeed.model import MonitorRecord, TrialOutcome
from wirespeed.report import build_report, render_json
from wirespeed.report.power_summary import power_summary

# Every test here reads samples a real sampler took from a fake board tree.
pytestmark = pytest.mark.process


@pytest.fixture(scope="module")
def board(tmp_path_factory: pytest.TempPathFactory) -> MonitorRecord:
    return sampled_board(tmp_path_factory.mktemp("board"))


def _with_power(board: MonitorRecord) -> TrialOutcome:
    outcome = line_rate_trial(board)
    assert outcome.result is not None
    # what run/trial.py with_power gives a trial from the board's own gauges
    figures = power_measurements([2.2, 2.2], [3.1, 3.3], 941e6, "hwmon")
    result = dataclasses.replace(outcome.result, measurements=figures)
    return dataclasses.replace(outcome, result=result)


def test_the_board_was_throttled_hot_and_drew_power(board: MonitorRecord) -> None:
    found = power_summary(_with_power(board))
    assert found is not None
    assert [found.idle_w, found.load_w] == pytest.approx([2.2, 3.2])
    assert found.energy_mj_per_mbit == pytest.approx(1.0 / 941 * 1000)
    assert found.source == "hwmon"
    assert found.temperature_max_c == pytest.approx(52.777)
    assert found.throttled is True and found.conditions == ("under-voltage", "throttled")


def test_a_board_read_and_not_throttled_says_no_and_one_never_sampled_nothing(
    board: MonitorRecord,
) -> None:
    fields = json.loads(board.summary)
    calm = {**fields, "throttled": [], "throttle_timeline": None}
    outcome = dataclasses.replace(
        line_rate_trial(board), monitors=(dataclasses.replace(board, summary=json.dumps(calm)),)
    )
    found = power_summary(outcome)
    assert found is not None and found.throttled is False and found.conditions == ()
    assert power_summary(dataclasses.replace(outcome, monitors=())) is None


def test_json_and_markdown_carry_it_per_trial(board: MonitorRecord) -> None:
    record = run_record(_with_power(board), line_rate_trial(board, 2))
    report = build_report(record)
    trials = json.loads(render_json(report))["trials"]
    first = trials[0]["power_summary"]
    assert first["throttled"] is True and first["conditions"] == ["under-voltage", "throttled"]
    assert first["idle_w"] == pytest.approx(2.2) and first["temperature_max_c"] == 52.777
    assert trials[1]["power_summary"]["idle_w"] is None
    markdown = render_markdown(report)
    table = markdown[markdown.index("### Power and temperature") :].splitlines()
    assert table[2] == "| Trial | Idle W | Load W | mJ/Mbit | Max °C | Throttled |"
    assert table[4] == (
        "| #1/WAN/default/1 | 2.20 | 3.20 | 1.06 | 52.8 | yes (under-voltage, throttled) |"
    )
    none = "\N{EN DASH}"
    assert table[5].startswith(f"| #1/WAN/default/2 | {none} | {none} | {none} | 52.8 | yes")
