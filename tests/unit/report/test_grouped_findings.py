"""A finding that holds for many cells is said once, with how many and the range of its
figures; the run's provenance reads in words; JSON keeps every cell's own message."""

from __future__ import annotations

import dataclasses
import io
import json

from report_samples import BR0, TCP, WAN, ok, tcp_direction
from rich.console import Console

from support.run_report import render_markdown, render_terminal
from support.samples import run_record
from wirespeed.analysis.ceiling import ceiling_for
from wirespeed.analysis.findings import judge_result
from wirespeed.model import Flow, TestCase, TestSpec, Tool, TrialOutcome
from wirespeed.report import build_report, render_json
from wirespeed.report.html import render_html
from wirespeed.report.model import Report

WINDOWS = [
    TestCase(id=str(i), name=f"TCP -w {w}", tool=Tool.IPERF2, spec=TestSpec(duration=10))
    for i, w in enumerate(("64K", "128K", "256K"), start=1)
]
# The demo's figures: near the 941.5 Mbit/s ceiling on both paths, one cell well below.
MBIT = {("1", "WAN"): 934.4, ("2", "WAN"): 942.2, ("3", "WAN"): 500.0}
MBIT |= {("1", "Br0"): 941.7, ("2", "Br0"): 940.5, ("3", "Br0"): 931.5}
# As `wirespeed run` records a lab run: its labs' link, a variant that changes nothing.
PROVENANCE = {
    "labs": {
        "demo-bridge": {
            "topology": "bridge",
            "link": "gbe",
            "rate_bps": 1_000_000_000,
            "mtu": 1500,
            "server_address": "198.18.1.3",
            "dut_access": "netns",
        }
    },
    "variants": {"default": {}},
}


def judged(outcome: TrialOutcome) -> TrialOutcome:
    """The outcome with the findings a run stores with it."""
    return dataclasses.replace(
        outcome, findings=tuple(judge_result(outcome, ceiling_for(outcome.trial)))
    )


def demo_report() -> Report:
    outcomes = [
        judged(ok(test, path, tcp_direction(Flow.UP, MBIT[(test.id, path.name)])))
        for path in (WAN, BR0)
        for test in WINDOWS
    ]
    return build_report(run_record(*outcomes, provenance=PROVENANCE))


def terminal(report: Report) -> str:
    out = io.StringIO()
    render_terminal(report, Console(file=out, width=200, color_system=None))
    return out.getvalue()


SAID_ONCE = (
    "line rate reached in 5 of 6 cells (98.9\N{EN DASH}100.1 % of the ceiling): "
    "the link is the limit: the device is at least this fast"
)


def test_line_rate_in_many_cells_is_said_once_with_its_range_and_count() -> None:
    report = demo_report()
    text = terminal(report)
    assert f"[1] {SAID_ONCE}\n" in text
    assert "Mbit/s is" not in text  # no figure per cell in the notes
    assert "/WAN/default/" not in text
    # Each cell that reached it still points at the note; the one below does not.
    line_rate = report.notes[0]
    marked = [cell.notes for row in report.rows for cell in row.cells if cell]
    assert [1 in notes for notes in marked] == [True, True, True, True, False, True]
    assert line_rate.values and len(line_rate.values) == 5


def test_markdown_and_html_say_it_the_same_way() -> None:
    report = demo_report()
    assert f"\n- \\[1\\] {SAID_ONCE}" in render_markdown(report)
    page = render_html(report)
    assert SAID_ONCE.replace("'", "&#x27;") in page
    assert "5 trials</summary>" in page  # every trial still one click away


def test_json_keeps_every_cells_own_message() -> None:
    note = json.loads(render_json(demo_report()))["notes"][0]
    assert set(note) == {"number", "kind", "code", "text", "details", "trials"}
    assert note["code"] == "line-rate"
    assert "934.4 Mbit/s is 99.2% of the ceiling" in note["details"]
    assert len(note["details"]) == 5
    assert note["trials"][0] == "1/WAN/default/1"


def test_a_note_on_few_trials_names_them_in_words() -> None:
    outcomes = [judged(ok(TCP, WAN, tcp_direction(Flow.UP, 300.0)))]
    outcomes += [judged(ok(TCP, BR0, tcp_direction(Flow.UP, 940.0)))]
    text = terminal(build_report(run_record(*outcomes)))
    assert "[1] line rate reached (99.8 % of the ceiling): the link is the limit" in text
    assert "the device is at least this fast: test #1 on Br0\n" in text


def test_provenance_reads_in_words_without_internal_keys() -> None:
    report = demo_report()
    line = (
        "lab demo-bridge: bridge topology, link gbe: 1 Gbit/s shaped (tbf), MTU 1500, "
        "server at 198.18.1.3, DUT in its namespace"
    )
    for text in (terminal(report), render_markdown(report)):
        assert line in text
        assert "rate_bps" not in text
        assert "dut_access" not in text
        assert "variants" not in text and "default:" not in text


def test_a_variant_that_changes_something_is_said_in_words() -> None:
    provenance = {"variants": {"default": {}, "jumbo": {"mtu": 9000, "offloads": {"gro": "off"}}}}
    outcome = ok(TCP, WAN, tcp_direction(Flow.UP, 940.0))
    text = terminal(build_report(run_record(outcome, provenance=provenance)))
    assert "variant jumbo: MTU 9000, offloads gro off" in text
    assert "variant default" not in text
