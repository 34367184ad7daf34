"""`--as`: each measured goodput also said as an application's budget, in every format."""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import json
from pathlib import Path

import pytest
from report_samples import BR0, TCP, WAN, ok, tcp_direction
from rich.console import Console

from support.cli import run_cli
from support.comparison_text import (
    compare_csv,
    compare_html,
    compare_json,
    compare_markdown,
    compare_terminal,
)
from support.run_report import render_markdown, render_terminal
from support.samples import run_record, store_runs
from wirespeed.analysis.compare_within import compare_paths
from wirespeed.errors import UsageError
from wirespeed.model import Flow
from wirespeed.report import build_report, render_csv, render_json
from wirespeed.report.budgets import parse_budget, parse_budgets
from wirespeed.report.html import render_html
from wirespeed.report.model import Report

# Seed 003: the PlutoSDR moved 85 MB/s, 680 Mbit/s: 21.25 Msps of 16-bit I/Q samples.
PLUTO_BPS = 680e6


def test_each_budget_follows_its_formula() -> None:
    assert parse_budget("sdr:sc16").value(PLUTO_BPS) == pytest.approx(21.25)
    assert parse_budget("sdr:cs8").value(PLUTO_BPS) == pytest.approx(42.5)
    assert parse_budget("MB/s").value(PLUTO_BPS) == pytest.approx(85.0)
    assert parse_budget("MiB/s").value(PLUTO_BPS) == pytest.approx(85e6 / 2**20)
    assert parse_budget("video:6M").value(941e6) == 156  # floor(941 / 6)
    headroom = parse_budget("video:6M,headroom=20%")
    assert headroom.value(941e6) == 125  # floor(941 x 0.8 / 6)
    assert headroom.text(941e6) == "125 streams of 6 Mbit/s (20 % headroom)"
    assert parse_budget("sdr:sc16").text(PLUTO_BPS) == "21.2 Msps sc16"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("sdr:sc12", "not a budget"),
        ("bogus", "not a budget"),
        ("video:", "not a budget"),
        ("video:fast", "not a rate"),
        ("video:6M,headroom=120%", "unknown option"),
        ("video:6M,burst=2", "unknown option"),
    ],
)
def test_an_unknown_budget_is_a_usage_error(given: str, said: str) -> None:
    with pytest.raises(UsageError, match=said) as error:
        parse_budget(given)
    assert error.value.exit_status == 2


def sdr_report() -> Report:
    outcomes = (
        ok(TCP, WAN, tcp_direction(Flow.UP, 680.0)),
        ok(TCP, BR0, tcp_direction(Flow.UP, 941.0)),
    )
    budgets = parse_budgets(["sdr:sc16", "video:6M,headroom=20%"])
    return dataclasses.replace(build_report(run_record(*outcomes)), budgets=budgets)


def test_terminal_markdown_and_html_show_the_budget_under_the_figure() -> None:
    report = sdr_report()
    out = io.StringIO()
    render_terminal(report, Console(file=out, width=200, color_system=None))
    beside = "= 21.2 Msps sc16, 90 streams of 6 Mbit/s (20 % headroom)"
    assert beside in out.getvalue()
    assert f"680 / 941.5<br>{beside}" in render_markdown(report)
    assert f"680 / 941.5<br>{beside}" in render_html(report)


def test_csv_and_json_carry_the_budgets_as_numbers() -> None:
    report = sdr_report()
    rows = list(csv.DictReader(io.StringIO(render_csv(report))))
    assert float(rows[0]["as sdr:sc16"]) == pytest.approx(21.25)
    assert rows[1]["as video:6M,headroom=20%"] == "125.0"
    cell = json.loads(render_json(report))["table"][0]["cells"][0]
    assert cell["flows"][0]["as"]["sdr:sc16"] == pytest.approx(21.25)
    # Without --as, nothing changes: no key at all.
    plain = json.loads(render_json(dataclasses.replace(report, budgets=())))
    assert "as" not in plain["table"][0]["cells"][0]["flows"][0]


def test_compare_shows_both_sides_in_the_budget() -> None:
    outcomes = (
        ok(TCP, WAN, tcp_direction(Flow.UP, 680.0)),
        ok(TCP, BR0, tcp_direction(Flow.UP, 941.0)),
    )
    comparison = compare_paths(run_record(*outcomes), "WAN", "Br0")
    budgets = parse_budgets(["MB/s"])
    markdown = compare_markdown(comparison, budgets)
    row = next(line for line in markdown.splitlines() if "goodput up" in line)
    assert "<br>= 85.0 MB/s |" in row and "<br>= 117.6 MB/s<br>+" in row
    first, second = list(csv.DictReader(io.StringIO(compare_csv(comparison, budgets))))[:2]
    assert float(first["as MB/s"]) == pytest.approx(85.0)
    assert float(second["as MB/s"]) == pytest.approx(117.625)
    cells = json.loads(compare_json(comparison, budgets))["rows"][0]["cells"]
    assert cells[1]["as"]["MB/s"] == pytest.approx(117.625)
    # Without --as, nothing changes: no key at all.
    assert "as" not in json.loads(compare_json(comparison))["rows"][0]["cells"][1]
    # Each format a person reads says both sides' budgets and figures.
    for text in (
        compare_terminal(comparison, budgets),
        markdown,
        html.unescape(compare_html(comparison, budgets)),
    ):
        for figure in ("= 85.0 MB/s", "= 117.6 MB/s", "680.0 Mbit/s", "941.0 Mbit/s", "+38.4 %"):
            assert figure in text, figure


def test_the_cli_takes_as_on_report_and_compare(tmp_path: Path) -> None:
    db = str(tmp_path / "w.db")
    outcomes = (
        ok(TCP, WAN, tcp_direction(Flow.UP, 680.0)),
        ok(TCP, BR0, tcp_direction(Flow.UP, 941.0)),
    )
    store_runs(db, run_record(*outcomes))
    shown = run_cli("report", "--db", db, "--as", "sdr:sc16", "--format", "markdown")
    assert shown.status == 0
    assert "680 / 941.5<br>= 21.2 Msps sc16" in shown.out
    compared = run_cli("compare", "--db", db, "--paths", "WAN", "Br0", "--as", "MiB/s")
    assert compared.status == 0 and "MiB/s" in compared.out
    refused = run_cli("report", "--db", db, "--as", "sdr:sc12")
    assert refused.status == 2
    assert "--as sdr:sc12: not a budget" in refused.err
    assert "Traceback" not in refused.err
