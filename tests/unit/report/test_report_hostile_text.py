"""Text from a plan or a device is shown, never run: not as a spreadsheet formula in CSV,
not as HTML in Markdown, not as control sequences on a terminal."""

from __future__ import annotations

import csv
import dataclasses
import io
from collections.abc import Callable, Mapping
from typing import TypeVar

import pytest
from markdown_it import MarkdownIt
from report_samples import BR0, TCP, UDP_512, WAN, ok, sample_record, tcp_direction
from rich.console import Console

from support.comparison_text import compare_csv, compare_markdown, compare_terminal
from support.run_report import render_markdown, render_terminal
from support.samples import measured
from wirespeed.analysis.compare_many import ManyComparison, compare_many
from wirespeed.analysis.compare_within import compare_paths
from wirespeed.model import DirectionResult, Flow, ToolWarning, Trial, WarningKind
from wirespeed.report import build_report, render_csv, render_runs
from wirespeed.report.csv_text import spreadsheet_safe, tidy_csv
from wirespeed.report.model import Note, NoteKind
from wirespeed.report.text import markdown_text, terminal_safe
from wirespeed.store import RunStatus, RunSummary
from wirespeed.store.records import RunRecord

T = TypeVar("T")
FORMULAS = [
    '=HYPERLINK("http://x","y")',
    "+1",
    "@SUM(A1)",
    "-2+3",
    "\t=1",
    # Spreadsheets trim leading blanks on import: these are formulas as well.
    ' =HYPERLINK("http://x","y")',
    "   +1",
    "\u00a0@SUM(A1)",
    " \t-2+3",
]
ORDINARY = ["TCP dual -P 2", "UDP 1000M, MTU 512", "a=b", "1+1", "mail@host", " a =b", "  42"]
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(1)>"
# Sets the window title, clears the screen, then reverses what follows.
TERMINAL_ATTACK = "R4S\x1b]0;pwned\x07\x1b[2J\u202eevil"
CONTROL_CHARACTERS = ["\x1b", "\x07", "\u202e", "\x9b", "\x00", "\x7f"]


def renamed(
    record: RunRecord,
    *,
    title: str | None = None,
    tests: Mapping[str, str] | None = None,
    paths: Mapping[str, str] | None = None,
) -> RunRecord:
    """The record with another title, and tests (by id) and paths renamed."""
    tests, paths = tests or {}, paths or {}

    def trial(old: Trial) -> Trial:
        return dataclasses.replace(
            old,
            test=dataclasses.replace(old.test, name=tests.get(old.test.id, old.test.name)),
            path=dataclasses.replace(old.path, name=paths.get(old.path.name, old.path.name)),
        )

    outcomes = tuple(dataclasses.replace(o, trial=trial(o.trial)) for o in record.outcomes)
    info = record.info if title is None else dataclasses.replace(record.info, title=title)
    return dataclasses.replace(record, info=info, outcomes=outcomes)


def with_host_os(record: RunRecord, os_name: str) -> RunRecord:
    hosts = {"r4s": {"role": "dut", "os": os_name, "kernel": "5.4.75"}}
    provenance = dict(record.info.provenance) | {"hosts": hosts}
    return dataclasses.replace(record, info=dataclasses.replace(record.info, provenance=provenance))


def with_failure_reason(record: RunRecord, reason: str) -> RunRecord:
    outcomes = tuple(
        dataclasses.replace(o, reason=reason) if o.reason else o for o in record.outcomes
    )
    return dataclasses.replace(record, outcomes=outcomes)


def with_tool_warning(record: RunRecord, message: str) -> RunRecord:
    warned = ok(
        UDP_512,
        WAN,
        DirectionResult(flow=Flow.UP, sent=measured(854.0)),
        warnings=(ToolWarning(WarningKind.NO_SERVER_REPORT, message),),
    )
    others = tuple(o for o in record.outcomes if o.trial.test.id != UDP_512.id)
    return dataclasses.replace(record, outcomes=(*others, warned))


def two_variants(names: tuple[str, str]) -> RunRecord:
    """Three repetitions of TCP on Br0 in each of two variants: an A/B table."""
    outcomes = []
    for repetition in (1, 2, 3):
        for variant, mbit in zip(names, (900.0, 940.0), strict=True):
            done = ok(TCP, BR0, tcp_direction(Flow.UP, mbit + repetition), repetition=repetition)
            trial = dataclasses.replace(done.trial, variant=variant)
            outcomes.append(dataclasses.replace(done, trial=trial))
    return dataclasses.replace(sample_record(), outcomes=tuple(outcomes))


def terminal(print_to: Callable[[T, Console], None], shown: T) -> str:
    """What print_to(shown, console) writes to a terminal without colours."""
    out = io.StringIO()
    print_to(shown, Console(file=out, width=200, color_system=None, legacy_windows=False))
    return out.getvalue()


def csv_rows(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def rendered_html(markdown: str) -> str:
    """The Markdown as a CommonMark viewer with GitHub's tables renders it."""
    page: str = MarkdownIt("commonmark").enable("table").render(markdown)
    return page


def assert_no_control_characters(text: str) -> None:
    for character in CONTROL_CHARACTERS:
        assert character not in text, repr(character)


# -- CSV ------------------------------------------------------------------------------


@pytest.mark.parametrize("formula", FORMULAS)
def test_csv_text_that_a_spreadsheet_would_run_starts_with_a_quote(formula: str) -> None:
    record = renamed(sample_record(), tests={"#1": formula}, paths={"WAN": formula})
    record = with_failure_reason(record, formula)
    rows = csv_rows(render_csv(build_report(record)))
    tcp = [row for row in rows if row["test_id"] == "#1"]
    assert {row["test_name"] for row in tcp} == {"'" + formula}
    assert {row["path"] for row in rows} == {"'" + formula, "Br0"}
    assert {row["reason"] for row in rows if row["status"] == "failed"} == {"'" + formula}
    # The figures beside them are still numbers.
    assert [float(row["goodput_bps"]) for row in tcp] == [941.2e6, 941.6e6, 939.0e6, 940.0e6]
    assert float(tcp[0]["group_median_bps"]) == 941.2e6


@pytest.mark.parametrize(
    ("reason", "cell"),
    [
        ("\r=1", "'\n=1"),
        ('gone\r=HYPERLINK("http://x")', 'gone\n=HYPERLINK("http://x")'),
        ("gone\r\n-1", "gone\n-1"),
    ],
)
def test_csv_text_with_a_carriage_return_stays_one_field(reason: str, cell: str) -> None:
    # A bare CR ends a row for a spreadsheet: after it, "=HYPERLINK" would start a row.
    report = build_report(with_failure_reason(sample_record(), reason))
    rows = list(csv.reader(io.StringIO(render_csv(report), newline="")))
    assert {len(row) for row in rows} == {len(rows[0])}
    failed = [r for r in csv_rows(render_csv(report)) if r["status"] == "failed"]
    assert [row["reason"] for row in failed] == [cell, cell]


@pytest.mark.parametrize("name", ORDINARY)
def test_csv_text_that_is_no_formula_is_written_as_it_is(name: str) -> None:
    rows = csv_rows(render_csv(build_report(renamed(sample_record(), tests={"#1": name}))))
    assert {row["test_name"] for row in rows if row["test_id"] == "#1"} == {name}


@pytest.mark.parametrize("cell", [" =1+1", "  =cmd|' /C calc'!A0", "\n@SUM(A1)", " \r+1"])
def test_a_formula_after_leading_whitespace_is_guarded(cell: str) -> None:
    assert str(spreadsheet_safe(cell)).startswith("'")


def test_csv_numbers_stay_numbers_even_when_negative() -> None:
    assert spreadsheet_safe(-3.5) == -3.5
    assert spreadsheet_safe(-5.2) == -5.2
    assert spreadsheet_safe(-3) == -3
    assert spreadsheet_safe("-5.2") == "'-5.2"  # text, as a spreadsheet would read it
    text = tidy_csv(["figure", "name"], [{"figure": -5.2, "name": "-5.2"}])
    assert text == "figure,name\n-5.2,'-5.2\n"
    row = csv_rows(text)[0]
    assert float(row["figure"]) == -5.2


@pytest.mark.parametrize("formula", FORMULAS)
def test_compare_csv_text_that_a_spreadsheet_would_run_starts_with_a_quote(formula: str) -> None:
    a = renamed(sample_record(), tests={"#1": formula})
    b = renamed(sample_record(), tests={"#1": formula})
    rows = csv_rows(compare_csv(compare_many([a, b])))
    tcp = [row for row in rows if row["test_id"] == "#1" and row["measurement"] == "goodput"]
    assert tcp and {row["test_name"] for row in tcp} == {"'" + formula}
    assert float(tcp[0]["median"]) == 941.2e6
    assert float(tcp[1]["ratio"]) == 1.0

    by_path = compare_paths(renamed(sample_record(), paths={"WAN": formula}), formula, "Br0")
    first = csv_rows(compare_csv(by_path))[0]
    assert first["run_label"] == "run 7: path " + formula  # text after text: not a formula


# -- Markdown -------------------------------------------------------------------------


def hostile_markdown_record() -> RunRecord:
    record = renamed(sample_record(), title=SCRIPT, tests={"#1": IMG}, paths={"WAN": "<b>WAN"})
    record = with_host_os(record, "<iframe src=//x>")
    record = with_failure_reason(record, "refused <a href=//x>here</a> & gone")
    return with_tool_warning(record, f"WARNING: {IMG} `{SCRIPT}`")


def test_markdown_writes_html_from_a_plan_or_device_as_text() -> None:
    text = render_markdown(build_report(hostile_markdown_record()))
    assert text.startswith("# &lt;script&gt;alert(1)&lt;/script&gt;\n")
    assert "| #1 &lt;img src=x onerror=alert(1)&gt; |" in text
    assert "| Test | &lt;b&gt;WAN | Br0 |" in text
    assert "- r4s: dut, &lt;iframe src=//x&gt;, 5.4.75\n" in text
    assert "failed: refused &lt;a href=//x&gt;here&lt;/a&gt; &amp; gone" in text
    outside_code = text.replace(f"`` WARNING: {IMG} `{SCRIPT}` ``", "")
    for tag in ("<script", "<img", "<b>", "<iframe", "<a "):
        assert tag not in outside_code, tag


def test_markdown_rendered_by_a_viewer_holds_no_html_from_a_plan_or_device() -> None:
    page = rendered_html(render_markdown(build_report(hostile_markdown_record())))
    for tag in ("<script", "<img", "<b>", "<iframe", "<a "):
        assert tag not in page, tag
    assert "<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>" in page
    # The tool's own words, backticks and all, in code exactly as it wrote them.
    assert "<code>WARNING: &lt;img src=x onerror=alert(1)&gt; `&lt;script&gt;" in page


def test_markdown_names_cannot_become_links_or_images() -> None:
    name = "![x](http://192.0.2.1/x.png) [click](javascript:alert(1)) [ref]"
    record = renamed(sample_record(), title=name, tests={"#1": name}, paths={"WAN": name})
    page = rendered_html(render_markdown(build_report(record)))
    assert "<img" not in page and "<a " not in page
    assert f"<h1>{name}</h1>" in page  # shown as written, brackets and all
    assert f"<td>#1 {name}</td>" in page


def test_markdown_keeps_ordinary_names_and_details_as_before() -> None:
    text = render_markdown(build_report(sample_record()))
    assert "| #4 TCP dual -P 2 | " in text
    assert "| #7 UDP 1000M, MTU 512 | " in text
    assert "(`WARNING: did not receive ack of last datagram after 10 tries.`)" in text
    assert (
        "\\[1\\] failed: the reverse connection never arrived (iperf2 -d): test #4 on Br0, "
        "repetition 1\n"
    ) in text


def test_a_backtick_beside_a_detail_cannot_turn_the_detail_into_markup() -> None:
    report = build_report(sample_record())
    note = Note(1, NoteKind.FAILURE, "failed", "failed: a`", (f"x` {IMG} `y",), ("#1/WAN/1",))
    page = rendered_html(render_markdown(dataclasses.replace(report, notes=(note,))))
    assert "<img" not in page
    assert f"<code>x` {markdown_text(IMG)} `y</code>" in page


@pytest.mark.parametrize("line_break", ["\n", "\r", "\r\n"])
def test_a_line_break_cannot_start_a_block_of_raw_html(line_break: str) -> None:
    record = renamed(sample_record(), title=f"R4S{line_break}{SCRIPT}")
    record = with_tool_warning(record, f"oops{line_break}{SCRIPT}")
    page = rendered_html(render_markdown(build_report(record)))
    assert "<script" not in page
    assert "<h1>R4S &lt;script&gt;alert(1)&lt;/script&gt;</h1>" in page


def test_ab_markdown_writes_variant_names_as_text() -> None:
    text = render_markdown(build_report(two_variants(("<b>off</b>", IMG))))
    assert "## Variants against &lt;b&gt;off&lt;/b&gt;" in text
    assert "| Measurement | &lt;b&gt;off&lt;/b&gt; | &lt;img src=x onerror=alert(1)&gt; |" in text
    assert "<b>" not in text and "<img" not in text


def hostile_comparison() -> ManyComparison:
    a = renamed(sample_record(), title=SCRIPT, tests={"#1": IMG})
    b = renamed(sample_record(), title="<b>after</b>", paths={"Br0": IMG})
    return compare_many([a, b])


def test_compare_markdown_writes_titles_and_names_as_text() -> None:
    text = compare_markdown(hostile_comparison())
    assert "\N{EM DASH} &lt;script&gt;alert(1)&lt;/script&gt;\n" in text
    assert "\N{EM DASH} &lt;b&gt;after&lt;/b&gt;\n" in text
    assert "&lt;img src=x onerror=alert(1)&gt;" in text
    assert "<script" not in text and "<img" not in text and "<b>" not in text

    by_path = compare_paths(renamed(sample_record(), paths={"WAN": "<b>WAN"}), "<b>WAN", "Br0")
    text = compare_markdown(by_path)
    assert "| Measurement | &lt;b&gt;WAN | Br0 |" in text
    assert "<b>" not in text


# -- Terminal -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("character", "shown"),
    [
        ("\x00", "\\x00"),
        ("\x07", "\\x07"),
        ("\n", "\\x0a"),
        ("\x1b", "\\x1b"),
        ("\x7f", "\\x7f"),
        ("\x85", "\\x85"),
        ("\x9b", "\\x9b"),
        ("\u061c", "\\u061c"),
        ("\u200f", "\\u200f"),
        ("\u202e", "\\u202e"),
        ("\u2066", "\\u2066"),
    ],
)
def test_a_control_character_is_shown_as_its_escape(character: str, shown: str) -> None:
    assert terminal_safe(f"a{character}b") == f"a{shown}b"


def test_printable_text_is_left_as_it_is() -> None:
    text = "R4S | [bold]x[/bold] <b> é ß 日本 🙂 ± \N{RIGHTWARDS ARROW} \\x1b"
    assert terminal_safe(text) == text


def test_the_terminal_report_escapes_control_characters_from_a_plan_or_device() -> None:
    record = renamed(sample_record(), title=TERMINAL_ATTACK, tests={"#1": "TCP\x9b2J"})
    record = with_host_os(record, "OpenWrt\x1b[31m")
    record = with_failure_reason(record, "gone\x07\x00")
    record = with_tool_warning(record, "WARNING:\x1b[2K")
    text = terminal(render_terminal, build_report(record))
    assert_no_control_characters(text)
    assert text.splitlines()[0] == "R4S\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil"
    assert "#1 TCP\\x9b2J" in text
    assert "r4s: dut, OpenWrt\\x1b[31m, 5.4.75" in text
    assert "failed: gone\\x07\\x00" in text
    assert "(WARNING:\\x1b[2K)" in text
    assert "941 ±2 / 941.5 (n=3, CV 0.1 %)" in text  # the figures as before


def test_the_ab_table_escapes_control_characters_in_variant_names() -> None:
    text = terminal(render_terminal, build_report(two_variants(("off\x1b[2J", "on\u202e"))))
    assert_no_control_characters(text)
    assert "Variants against off\\x1b[2J" in text
    assert "on\\u202e" in text


def test_the_terminal_comparison_escapes_control_characters() -> None:
    a = renamed(sample_record(), title=TERMINAL_ATTACK, tests={"#1": "TCP\x1b[2J"})
    b = renamed(sample_record(), title="after\x07", tests={"#1": "TCP\x1b[2J"})
    text = compare_terminal(compare_many([a, b]))
    assert_no_control_characters(text)
    assert "\N{EM DASH} R4S\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil" in text
    assert "\N{EM DASH} after\\x07" in text

    by_path = compare_paths(
        renamed(sample_record(), paths={"WAN": "W\u202eAN"}), "W\u202eAN", "Br0"
    )
    text = compare_terminal(by_path)
    assert_no_control_characters(text)
    assert "run 7: path W\\u202eAN" in text


def test_the_list_of_runs_escapes_control_characters() -> None:
    runs = [
        RunSummary(1, 1607544000.0, None, TERMINAL_ATTACK, RunStatus.COMPLETE, 8, 0, ("W\x1bAN",)),
    ]
    text = terminal(render_runs, runs)
    assert_no_control_characters(text)
    assert "R4S\\x1b]0;pwned\\x07\\x1b[2J\\u202eevil" in text
    assert "W\\x1bAN" in text
