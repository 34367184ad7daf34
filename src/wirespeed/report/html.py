"""The report as one self-contained HTML page: tables and notes as markup, plots as SVG
drawn by a small inline script from an inline JSON block. It makes no network request.
Between the header and the provenance, the report's sections (report/sections.py) in
their order: each its own markup where it has charts (OWN_MARKUP), else its tables.

Everything that comes from a plan, a device or a tool is escaped: html.escape in markup,
and in the JSON block `<`, `>` and `&` become \\u003c, \\u003e, \\u0026, so no label can
close the <script> element it travels in. The script writes labels with textContent only.
The format is described in docs/html-report.md.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Iterable, Sequence
from html import escape
from importlib import resources

from wirespeed.report.content import Note, NoteKind, Report
from wirespeed.report.device_timeline import device_timeline_section
from wirespeed.report.document import Document, Part, Tone
from wirespeed.report.html_data import report_data
from wirespeed.report.html_forwarding import forwarding_data, forwarding_section
from wirespeed.report.html_json import script_json, script_json_text
from wirespeed.report.html_latency import latency_section
from wirespeed.report.html_monitor import DeviceSamples
from wirespeed.report.note_text import NoteWords, more_text, note_words, trial_words
from wirespeed.report.sections import (
    SECTIONS,
    DeviceSection,
    ForwardingSection,
    LatencySection,
    NotesSection,
    Section,
    SectionTable,
    TrafficSection,
)
from wirespeed.report.static_page import static_page
from wirespeed.report.text import (
    column_text,
    host_tools,
    html_visible,
    paths_of,
    provenance_lines,
    run_line,
    single_run_text,
)
from wirespeed.report.timeline import timeline_section
from wirespeed.store.gc_pause import gc_paused

NO_SAMPLES = "No device samples in this run."
# A compared figure's tone (report/document.py Tone), only on a page that has one.
TONE_CSS = (
    "td.num.better{color:var(--ok);font-weight:600}"
    "td.num.worse{color:var(--bad);font-weight:600}td.num.same{color:var(--muted)}"
    "li.line-failed::marker{color:var(--bad)}li.line-caution::marker{color:var(--warn)}"
    "li.line-failed,li.line-caution{list-style:square}"
)


@functools.cache
def _asset(name: str) -> str:
    return (resources.files("wirespeed.report") / "assets" / name).read_text(encoding="utf-8")


def _e(text: object) -> str:
    return escape(html_visible(str(text)), quote=True)


def _rows(cells: Iterable[Iterable[str]], tag: str = "td") -> str:
    return "".join(
        "<tr>" + "".join(f"<{tag}>{cell}</{tag}>" for cell in row) + "</tr>" for row in cells
    )


def _header(report: Report) -> str:
    trials = len(report.trials)
    failed = sum(1 for d in report.trials if d.outcome.status.value != "ok")
    tests, paths = len(report.rows), len(report.columns)
    if not report.rows:
        # Benchmarks and searches only: counted from their trials, not the traffic table.
        tests = len({d.outcome.trial.test.id for d in report.trials})
        paths = len({d.outcome.trial.path.name for d in report.trials})
    chips = [
        f'<span class="badge {_e(report.status.value)}">{_e(report.status.value)}</span>',
        f'<span class="chip"><b>{trials}</b> trial{"s" if trials != 1 else ""}</span>',
        f'<span class="chip"><b>{tests}</b> test{"s" if tests != 1 else ""}'
        f" \N{MIDDLE DOT} <b>{paths}</b> "
        f"path{'s' if paths != 1 else ''}</span>",
    ]
    if failed:
        chips.append(f'<span class="chip"><b>{failed}</b> failed</span>')
    if report.notes:
        chips.append(f'<span class="chip"><b>{len(report.notes)}</b> notes</span>')
    return (
        '<header class="top"><div class="wrap">'
        f"<h1>{_e(report.title)}</h1>"
        f'<div class="run">{_e(run_line(report))}</div>'
        f'<div class="chips">{"".join(chips)}</div>'
        "</div></header>"
    )


def _cell_markup(lines: Sequence[str], tone: Tone | None = None) -> str:
    shown = "num" if tone is None else f"num {tone.value}"
    return f'<td class="{shown}">' + "<br>".join(_e(line) for line in lines) + "</td>"


def _table_markup(table: SectionTable, heading: str = "") -> str:
    """A section's table as markup: its title (unless the section's heading says it),
    the table, its legend; `heading`: the section's."""
    title = f"<h3>{_e(table.title)}</h3>" if table.title and table.title != heading else ""
    head = f"<tr><th>{_e(table.headings[0])}</th>" + "".join(
        f'<th class="num">{_e(h)}</th>' for h in table.headings[1:]
    )
    body = "".join(
        f"<tr><td>{_e(row.label)}</td>"
        + "".join(_cell_markup(cell, row.tone(index)) for index, cell in enumerate(row.cells))
        + "</tr>"
        for row in table.rows
    )
    legend = "".join(f'<p class="legend-text">{_e(line)}</p>' for line in table.legend)
    return (
        f'{title}<div class="scroll"><table class="results"><thead>{head}</tr></thead>'
        f"<tbody>{body}</tbody></table></div>{legend}"
    )


def tables_markup(tables: Sequence[SectionTable], heading: str = "") -> str:
    return "".join(_table_markup(table, heading) for table in tables)


def _list(part: Part) -> str:
    if not part.lines:
        return ""
    items = []
    for index, line in enumerate(part.lines):
        tone = part.tone(index)
        toned = f' class="line-{tone.value}"' if tone is not None else ""
        items.append(f"<li{toned}>{_e(line)}</li>")
    return "<ul>" + "".join(items) + "</ul>"


def _summary(text: str) -> str:
    return f'<p class="summary"><b>{_e(text)}</b></p>' if text else ""


def _part_markup(part: Part, element: str, attributes: str, level: int) -> str:
    """A part as `element`: its heading, its summary, its lines as a list, its tables."""
    heading = f"<h{level}>{_e(part.heading)}</h{level}>"
    body = f"{_summary(part.summary)}{_list(part)}{tables_markup(part.tables, part.heading)}"
    return f"<{element} {attributes}>{heading}{body}</{element}>"


def render_document_html(document: Document) -> str:
    """A document as a page of its own: its title and lines, then each part as a card of
    its lines and tables, then its timelines, each a chart (the page's only script), and
    its data's JSON where the data asks to travel in the page."""
    parts = "".join(
        _part_markup(part, "section", f'class="card" id="{_e(part.key)}"', 2)
        for part in document.shown_parts
    )
    parts += "".join(
        timeline_section(t.heading, t.lanes, t.intervals, t.instants, lead=t.lead, section_id=t.key)
        for t in document.timelines
    )
    if document.data is not None and document.data.in_page:
        parts += (
            f'<script type="application/json" id="{_e(document.kind)}-data">'
            f"{script_json_text(document.data.json())}</script>"
        )
    header = (
        f'<header class="top"><div class="wrap"><h1>{_e(document.title)}</h1>'
        f"{_summary(document.summary)}"
        f'<div class="run">{"<br>".join(_e(line) for line in document.lines)}</div>'
        "</div></header>"
    )
    toned = any(
        part.tones or any(row.tones for t in part.tables for row in t.rows)
        for part in document.parts
    )
    style = _asset("report.css") + (TONE_CSS if toned else "")
    body = f"{header}<main>{parts}</main>"
    return static_page(document.title, style, body, scripts=bool(document.timelines))


def document_section(document: Document, element_id: str) -> str:
    """A document as one section of another page (a card before its run's report): its
    title, summary and lines, then each part as a box (`docpart`), each box's id the
    section's and the part's key."""
    boxes = "".join(
        _part_markup(part, "div", f'class="docpart" id="{_e(element_id)}-{_e(part.key)}"', 3)
        for part in document.shown_parts
    )
    said = _summary(document.summary) + "".join(
        f'<p class="line">{_e(line)}</p>' for line in document.lines
    )
    heading = f"<h2>{_e(document.title)}</h2>"
    element = f'<section class="card document" id="{_e(element_id)}">'
    return f'{element}{heading}{said}<div class="docparts">{boxes}</div></section>'


def _section_markup(section: Section, tables: Sequence[SectionTable]) -> str:
    """A section that is its tables; "" without any."""
    if not tables:
        return ""
    return (
        f'<section class="card" id="{_e(section.key)}"><h2>{_e(section.heading)}</h2>'
        f"{tables_markup(tables, section.heading)}</section>"
    )


def results_section(report: Report, tables: Sequence[SectionTable]) -> str:
    """The traffic table under its bars, which report.js draws; "" without the table."""
    if not tables:
        return ""
    (table,) = tables
    single = single_run_text(report)
    if single:  # said beside the legend: it qualifies this table's figures
        table = dataclasses.replace(table, legend=(" ".join((*table.legend, single)),))
    return (
        '<section class="card" id="results"><h2>Results</h2>'
        '<p class="lead">Median goodput per test and path, with the 95 % interval of the '
        "median as whiskers (n \N{GREATER-THAN OR EQUAL TO} 2) and the physical ceiling as "
        "a dashed mark. Hover a bar for the repetitions; click the legend to hide a "
        "series.</p>"
        f'<div class="plot" id="bars"></div>{_table_markup(table)}</section>'
    )


def _trials_section() -> str:
    return (
        '<section class="card" id="trials"><h2>Throughput over time</h2>'
        '<p class="lead">Each interval the tool reported, per direction and stream; '
        "dotted: the trial's goodput, dashed: the physical ceiling.</p>"
        f'{_trial_picker()}<div class="plot" id="trial-plot"></div></section>'
    )


def _trial_picker() -> str:
    return (
        '<div class="toolbar"><button type="button" id="trial-prev" '
        'aria-label="previous trial">\N{LEFTWARDS ARROW}</button>'
        '<select id="trial-select" aria-label="trial"></select>'
        '<button type="button" id="trial-next" aria-label="next trial">'
        "\N{RIGHTWARDS ARROW}</button></div>"
        '<div id="trial-info"></div>'
    )


def _monitor_section(samples: Sequence[DeviceSamples], *, picker: bool = False) -> str:
    """The device's CPU per trial; with `picker`, the choice of trial is here (a run of
    no traffic has no throughput section to hold it)."""
    inner = "" if samples else f'<p class="muted">{_e(NO_SAMPLES)}</p>'
    where = "the trial selected here" if picker else "the trial selected above"
    return (
        '<section class="card" id="device"><h2>Device during the trial</h2>'
        '<p class="lead">CPU time per core (user, system, softirq stacked) and where '
        f"interrupts were handled, for {where}.</p>"
        f'{_trial_picker() if picker else ""}<div id="monitor">{inner}</div></section>'
    )


def trial_sections(report: Report, samples: Sequence[DeviceSamples]) -> str:
    """Throughput over time and the device during each trial, for trials that carry
    traffic through a path (iperf, RRUL); a search's trials are its own charts', a
    benchmark has no throughput: a run of only those has no such section, and the
    device's samples, where it has any, get a trial picker of their own."""
    if any(d.outcome.trial.test.yields_flows for d in report.trials):
        return _trials_section() + _monitor_section(samples)
    return _monitor_section(samples, picker=True) if samples else ""


def _note(note: Note, words: NoteWords) -> str:
    details = ""
    if words.details:
        quoted = [f"<code>{_e(d)}</code>" for d in words.details]
        quoted += [_e(more_text(words.more))] if words.more else []
        details = " " + "; ".join(quoted)
    # Every trial stays one click away: the page's trial view links its notes here.
    trials = (
        _e(words.where)
        if words.where
        else f"<details><summary>{len(note.trials)} trials</summary>"
        f"{_e(', '.join(note.trials))}</details>"
    )
    css = "failure" if note.kind is NoteKind.FAILURE else "warning"
    return (
        f'<li class="{css}" id="note-{note.number}"><span class="num">[{note.number}]</span>'
        f'{_e(words.text)}{details}<div class="trials">{trials}</div></li>'
    )


def notes_section(report: Report) -> str:
    if not report.notes:
        body = '<p class="muted">Nothing to note: no failures, no warnings.</p>'
    else:
        names = trial_words(report)
        items = "".join(_note(n, note_words(report, n, names)) for n in report.notes)
        body = f'<ol class="notes">{items}</ol>'
    return f'<section class="card" id="notes"><h2>Findings and notes</h2>{body}</section>'


def _provenance(report: Report) -> str:
    info = report.info
    parts = ['<section class="card" id="provenance"><h2>Provenance</h2>']
    if info.hosts:
        head = _rows([["Host", "Role", "OS", "Kernel", "Machine", "Tools"]], "th")
        body = _rows(
            [_e(v or "") for v in (h.name, h.role, h.os, h.kernel, h.machine, host_tools(h))]
            for h in info.hosts
        )
        parts.append(f'<div class="scroll"><table><thead>{head}</thead><tbody>{body}</tbody>')
        parts.append("</table></div>")
    paths = paths_of(report)
    facts = [("Paths", "<br>".join(_e(column_text(c, paths.get(c.path))) for c in report.columns))]
    tool_versions = sorted(
        {
            f"{d.outcome.result.tool} {d.outcome.result.tool_version}"
            for d in report.trials
            if d.outcome.result is not None and d.outcome.result.tool_version
        }
    )
    if tool_versions:
        facts.append(("Tools", _e(", ".join(tool_versions))))
    facts += [("Other", "<br>".join(_e(line) for line in provenance_lines(report)))]
    facts += [
        ("Plan", _e(info.plan_path or "\N{EN DASH}")),
        ("Command", f"<code>{_e(' '.join(info.argv))}</code>" if info.argv else "\N{EN DASH}"),
        ("wirespeed", _e(info.wirespeed_version)),
    ]
    parts.append(
        '<dl class="facts">'
        + "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in facts if v)
        + "</dl></section>"
    )
    return "".join(parts)


def _results(section: Section, report: Report, samples: Sequence[DeviceSamples]) -> str:
    return results_section(report, section.tables(report))


def _latency(section: Section, report: Report, samples: Sequence[DeviceSamples]) -> str:
    outcomes = [detail.outcome for detail in report.trials]
    return latency_section(outcomes, tables_markup(section.tables(report), section.heading))


def _forwarding(section: Section, report: Report, samples: Sequence[DeviceSamples]) -> str:
    tables = section.tables(report)
    return forwarding_section([tables_markup((t,), section.heading) for t in tables])


def _device(section: Section, report: Report, samples: Sequence[DeviceSamples]) -> str:
    return trial_sections(report, samples) + device_timeline_section(report)


def _notes(section: Section, report: Report, samples: Sequence[DeviceSamples]) -> str:
    return notes_section(report)


# The sections the page shows as markup of their own, with charts, rather than as their
# tables alone.
OWN_MARKUP: dict[type[Section], Callable[[Section, Report, Sequence[DeviceSamples]], str]] = {
    TrafficSection: _results,
    LatencySection: _latency,
    ForwardingSection: _forwarding,
    DeviceSection: _device,
    NotesSection: _notes,
}


def own_markup(section: Section, report: Report, samples: Sequence[DeviceSamples]) -> str | None:
    """The section's own markup on the page; None: the page shows its tables."""
    own = OWN_MARKUP.get(type(section))
    return None if own is None else own(section, report, samples)


def _sections(report: Report, samples: Sequence[DeviceSamples]) -> str:
    """Every section in its order: its own markup, or its tables'."""
    parts = []
    for section in SECTIONS:
        own = own_markup(section, report, samples)
        parts.append(own if own is not None else _section_markup(section, section.tables(report)))
    return "".join(parts)


@gc_paused
def render_html(
    report: Report,
    samples: Sequence[DeviceSamples] = (),
    *,
    preface: str = "",
    preface_style: str = "",
) -> str:
    """The whole page; `samples` adds the device section's plots (html_monitor);
    `preface` is HTML shown before the report's sections (a device card's summary),
    styled by `preface_style`."""
    data = script_json(report_data(report, samples))
    # A run with searches gets their section, its own style and script; a run without
    # them is written as it was.
    searches = bool(report.forwarding)
    style = _asset("report.css") + (_asset("forwarding.css") if searches else "") + preface_style
    scripts = ""
    if searches:
        scripts = (
            '<script type="application/json" id="ws-forwarding">'
            f"{script_json(forwarding_data(report))}</script>"
            f"<script>{_asset('forwarding.js')}</script>"
        )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        # No request may leave the page, even if a label slipped through unescaped.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">"
        '<meta name="generator" content="wirespeed">'
        f"<title>{_e(report.title)} \N{EN DASH} wirespeed</title>"
        f"<style>{style}</style></head><body>"
        f"{_header(report)}<main>{preface}"
        f"{_sections(report, samples)}{_provenance(report)}"
        f"<footer>wirespeed {_e(report.info.wirespeed_version)} \N{MIDDLE DOT} "
        f"run {report.run_id}</footer></main>"
        f'<script type="application/json" id="ws-data">{data}</script>'
        f"<script>{_asset('report.js')}</script>{scripts}</body></html>\n"
    )
