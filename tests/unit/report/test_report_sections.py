"""Every section of the report, in every format it belongs in.

The run holds every kind, all of it stored from real runs: the lab card of
tests/fixtures/cards/runs.db.xz (iperf TCP and UDP, the forwarding-rate search, RRUL's
latency under load, WireGuard and OpenVPN tunnels, openssl and 7-zip, the DUT's samples),
the tuned card of tuned.db.xz (its stock and tuned variants), the R4S's summary as the
real sampler made it (its thermal zones and clocks: the power and temperature section)
and 7-zip's figures under a name no report knows, as a kind added later would yield them.

The terminal, Markdown and HTML reports render the sections (report/sections.py); the
JSON report writes each section's part, or its figures in each trial's record. CSV is a
flat export of every trial's flows and measurements by design, not of sections: it is
checked for holding every trial and every measurement.
"""

from __future__ import annotations

import dataclasses
import html
import io
import json
import lzma
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from support.run_report import render_markdown, render_terminal
from wirespeed.model import Measurement, MonitorRecord, TrialOutcome
from wirespeed.report import build_report, render_csv, render_json
from wirespeed.report.device_samples import device_samples
from wirespeed.report.html import own_markup, render_html
from wirespeed.report.html_monitor import DeviceSamples
from wirespeed.report.model import Report
from wirespeed.report.run_json import section_part
from wirespeed.report.sections import SECTIONS, Section
from wirespeed.report.text import markdown_table_safe, markdown_text, terminal_safe
from wirespeed.store import Store
from wirespeed.store.records import RunRecord

FIXTURES = Path(__file__).parents[2] / "fixtures"
R4S_SUMMARY = Path(__file__).parent / "summary-r4s-whole-seconds.json"
# A kind the reports have never heard of: its figures are 7-zip's, renamed.
NEW_KIND = "frob"
NEW_MEASUREMENT = "frob rate"
NEW_UNIT = "frob/s"
# Sections whose tables the run's JSON does not hold, and why.
NOT_IN_JSON = {
    # The run's JSON format stays as it was; `compare N --variants` writes this table.
    "variants": "wirespeed compare N --variants ... --format json",
}


def _stored_run(tmp: Path, name: str, run: int) -> RunRecord:
    db = tmp / name.replace("/", "-").removesuffix(".xz")
    db.write_bytes(lzma.decompress((FIXTURES / name).read_bytes()))
    with Store.open(str(db), read_only=True) as store:
        return store.load_run(run)


def _new_kind(outcome: TrialOutcome) -> TrialOutcome:
    """A 7-zip trial as a kind added later: its test and measurements renamed."""
    assert outcome.result is not None and outcome.result.measurements
    renamed = tuple(
        Measurement(NEW_MEASUREMENT, NEW_UNIT, m.better, m.value, m.labels)
        for m in outcome.result.measurements
    )
    test = dataclasses.replace(outcome.trial.test, id=NEW_KIND, name="frobnicator")
    return dataclasses.replace(
        outcome,
        trial=dataclasses.replace(outcome.trial, test=test),
        result=dataclasses.replace(outcome.result, measurements=renamed),
    )


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunRecord]:
    tmp = tmp_path_factory.mktemp("sections")
    card = _stored_run(tmp, "cards/runs.db.xz", 1)
    tuned = _stored_run(tmp, "cards/tuned.db.xz", 1)
    r4s = MonitorRecord("r4s", "dut", 1.0, "", R4S_SUMMARY.read_text())
    first, *others = card.outcomes
    sevenzip = next(o for o in card.outcomes if o.trial.test.tool == "7zip")
    outcomes = (
        dataclasses.replace(first, monitors=(*first.monitors, r4s)),
        *others,
        *tuned.outcomes,
        _new_kind(sevenzip),
    )
    yield dataclasses.replace(card, outcomes=outcomes)


@pytest.fixture(scope="module")
def report(record: RunRecord) -> Report:
    return build_report(record)


@pytest.fixture(scope="module")
def samples(record: RunRecord) -> list[DeviceSamples]:
    return device_samples(record)


@pytest.fixture(scope="module")
def rendered(report: Report, samples: list[DeviceSamples]) -> dict[str, str]:
    buffer = io.StringIO()
    # Wide enough that no cell wraps: what is checked is what is there, not the layout.
    render_terminal(report, Console(file=buffer, width=2000, color_system=None))
    return {
        "terminal": buffer.getvalue(),
        "markdown": render_markdown(report),
        "html": render_html(report, samples),
        "json": render_json(report),
        "csv": render_csv(report),
    }


def _key(section: Section) -> str:
    return section.key


def test_the_run_has_every_kind_and_every_section(
    record: RunRecord, report: Report, samples: list[DeviceSamples]
) -> None:
    tools = {o.trial.test.tool for o in record.outcomes}
    assert tools >= {"iperf2", "forwarding", "rrul", "openssl", "7zip"}
    assert {"tcp", "udp"} <= {o.trial.test.spec.protocol.value for o in record.outcomes}
    assert any(o.trial.path.tunnel is not None for o in record.outcomes)
    assert {"stock", "tuned"} <= {o.trial.variant for o in record.outcomes}
    for section in SECTIONS:
        shown = section.tables(report) or own_markup(section, report, samples)
        assert shown, f"the run has no {section.key} section: it checks nothing"


# How each format writes a label from a plan or a device, and a cell of our own words.
def _html_text(text: str) -> str:
    return html.escape(text, quote=True)


LABEL_ESCAPES: dict[str, Callable[[str], str]] = {
    "terminal": terminal_safe,
    "markdown": markdown_text,
    "html": _html_text,
}
CELL_ESCAPES = {**LABEL_ESCAPES, "markdown": markdown_table_safe}


@pytest.mark.parametrize("fmt", ["terminal", "markdown", "html"])
@pytest.mark.parametrize("section", SECTIONS, ids=_key)
def test_each_section_s_tables_are_in_every_format_that_reads(
    section: Section, fmt: str, report: Report, rendered: dict[str, str]
) -> None:
    text = rendered[fmt]
    label, cell = LABEL_ESCAPES[fmt], CELL_ESCAPES[fmt]
    for table in section.tables(report):
        if table.title:
            assert label(table.title) in text
        for heading in table.headings:
            assert label(heading) in text, f"{section.key}: heading {heading!r}"
        for row in table.rows:
            assert label(row.label) in text, f"{section.key}: row {row.label!r}"
            for lines in row.cells:
                for line in lines:
                    assert cell(line) in text, f"{section.key}: {row.label!r}: {line!r}"


@pytest.mark.parametrize("section", SECTIONS, ids=_key)
def test_each_section_s_own_markup_is_on_the_page(
    section: Section, report: Report, samples: list[DeviceSamples], rendered: dict[str, str]
) -> None:
    own = own_markup(section, report, samples)
    if own is not None:
        assert own in rendered["html"]


@pytest.mark.parametrize("section", SECTIONS, ids=_key)
def test_each_section_is_in_the_json(
    section: Section, report: Report, rendered: dict[str, str]
) -> None:
    document: dict[str, Any] = json.loads(rendered["json"])
    part = section_part(section, report)
    assert set(part) <= set(section.json_keys)
    for key, value in part.items():
        assert document[key] == json.loads(json.dumps(value)), key
    if not section.tables(report) or section.key in NOT_IN_JSON:
        return
    in_trials = any(key in trial for trial in document["trials"] for key in section.trial_keys)
    assert part or in_trials, f"{section.key} has tables and nothing in the JSON"


def test_the_notes_are_in_every_format(report: Report, rendered: dict[str, str]) -> None:
    assert report.notes
    for note in report.notes:
        assert f"[{note.number}]" in rendered["terminal"]
        assert f"\\[{note.number}\\] " in rendered["markdown"]
        assert f'id="note-{note.number}"' in rendered["html"]
    assert len(json.loads(rendered["json"])["notes"]) == len(report.notes)


def test_the_power_section_is_in_the_terminal_and_the_variants_on_the_page(
    rendered: dict[str, str],
) -> None:
    # Each was missing there before the formats rendered one list of sections.
    assert "Power and temperature" in rendered["terminal"]
    assert "52.8" in rendered["terminal"]  # the R4S's hottest zone
    assert 'id="variants"' in rendered["html"]
    assert "Variants against" in rendered["html"]


def test_a_kind_s_own_measurements_show_in_every_format_with_nothing_added(
    rendered: dict[str, str],
) -> None:
    for fmt in ("terminal", "markdown", "html", "csv"):
        assert NEW_MEASUREMENT in rendered[fmt], fmt
        assert f"{NEW_KIND} " in rendered[fmt], fmt
    measured = json.loads(rendered["json"])["measured"]
    rows = [row for row in measured if row["test_id"] == NEW_KIND]
    assert rows and {row["name"] for row in rows} == {NEW_MEASUREMENT}
    assert {row["unit"] for row in rows} == {NEW_UNIT}


def test_the_csv_is_a_flat_export_of_every_trial_and_measurement(
    record: RunRecord, rendered: dict[str, str]
) -> None:
    csv = rendered["csv"]
    for outcome in record.outcomes:
        assert outcome.trial.key in csv
        for measurement in () if outcome.result is None else outcome.result.measurements:
            assert measurement.name in csv


def _markdown_tables(text: str) -> dict[str, dict[str, dict[str, str]]]:
    """Each Markdown table by its first heading: row label -> column heading -> cell."""
    tables: dict[str, dict[str, dict[str, str]]] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines[:-1]):
        if not (line.startswith("| ") and lines[i + 1].startswith("| --- |")):
            continue
        headings = [cell.strip() for cell in line.strip("|").split(" | ")]
        rows: dict[str, dict[str, str]] = {}
        for row in lines[i + 2 :]:
            if not row.startswith("| "):
                break
            cells = [cell.strip() for cell in row.strip().strip("|").split(" | ")]
            rows[cells[0]] = dict(zip(headings[1:], cells[1:], strict=True))
        tables[headings[0]] = rows
    return tables


def test_the_captured_figures_are_in_their_own_table_row_and_column(tmp_path: Path) -> None:
    # The lab card as stored (cards/runs.db.xz, run 1): its figures, as its tools
    # measured them, each in the one cell it belongs in and in no other.
    tables = _markdown_tables(
        render_markdown(build_report(_stored_run(tmp_path, "cards/runs.db.xz", 1)))
    )
    benchmarks = tables["Benchmark"]
    # openssl's 806,484,280 B/s of AES-256-GCM on 8 KB blocks; 7-zip's 3505 MIPS.
    assert benchmarks["crypto AES-256-GCM 8 KB, EVP ↑"] == {"NAT": "", "DUT": "806.5 MB/s [3][8]"}
    assert benchmarks["crypto AES-128-GCM 8 KB, EVP ↑"]["DUT"] == "1380 MB/s [3][8]"
    assert benchmarks["7z compress all threads ↑"] == {"NAT": "", "DUT": "3505 MIPS [8]"}
    assert benchmarks["7z decompress all threads ↑"]["DUT"] == "771.0 MIPS [8]"
    # RRUL's round trips on the NAT path, and its grade from the increase.
    assert benchmarks["rrul rtt loaded, p50 ↓"] == {"NAT": "7.15 ms [3][5][6]", "DUT": ""}
    latency = tables["Latency"]["rrul RRUL, 4 streams each way, NAT"]
    assert latency == {
        "idle p50": "0.50 ms",
        "loaded p50": "7.15 ms",
        "loaded p99": "44.01 ms",
        "increase": "6.64 ms",
        "grade": "A (6.64 ms)",
    }
    # The traffic table: each path's column, and the tunnel's only in its own.
    traffic = tables["Test"]
    assert traffic["tcp-up TCP up"]["NAT"].startswith("94.2 / 94.1<br>")
    assert traffic["tcp-up TCP up"]["WireGuard"] == traffic["tcp-up TCP up"]["OpenVPN"] == ""
    assert traffic["vpn TCP through the tunnel"]["NAT"] == ""
    assert traffic["vpn TCP through the tunnel"]["WireGuard"].startswith("88.0 / 90.1<br>")
    assert traffic["vpn TCP through the tunnel"]["OpenVPN"].startswith("86.9 / 90.7<br>")
    # The forwarding search's NDR each way, by frame size.
    forwarding = tables["Frame"]
    assert (forwarding["64 B"]["in NDR pps"], forwarding["64 B"]["out NDR pps"]) == (
        "14,818",
        "14,257",
    )
    assert forwarding["1518 B"]["in % of ceiling"] == "100.0 %"
