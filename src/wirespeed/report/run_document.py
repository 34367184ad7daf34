"""A run's report as a result document (report/document.py): the run's header, then its
sections (report/sections.py) in their order, each its tables, the notes as numbered
lines. The page's charts of the device have no lines of their own: the other formats
say the same in figures (the DUT's busiest core in each traffic cell, the power table).
Its data (report/document.py DocumentData) is the run's JSON and CSV in full
(report/run_json.py render_json, report/run_csv.py render_csv): what a script
parses, versioned in docs/json-format.md.
"""

from __future__ import annotations

from dataclasses import dataclass

from wirespeed.report import text
from wirespeed.report.content import NoteKind, Report
from wirespeed.report.document import Document, DocumentData, Part, Tone
from wirespeed.report.note_text import more_text, note_words, trial_words
from wirespeed.report.run_csv import render_csv
from wirespeed.report.run_json import render_json
from wirespeed.report.sections import SECTIONS, NotesSection
from wirespeed.store.records import HostInfo


@dataclass(frozen=True)
class NoteLines:
    lines: tuple[str, ...]
    quotes: tuple[tuple[str, ...], ...]  # per line, the words it quotes (Part.quotes)
    tones: tuple[Tone | None, ...]  # per line, its mark's: a failure's red (Part.tones)


def note_lines(report: Report) -> NoteLines:
    """Which figures rest on one repetition, then each note as the terminal says it:
    "[3] no server report (`WARNING: ...`): test 7 on WAN"; per line the tool's or
    device's words it quotes, and how its mark reads."""
    single_run = text.single_run_text(report)
    lines = [single_run] if single_run else []
    quotes: list[tuple[str, ...]] = [()] if single_run else []
    tones: list[Tone | None] = [None] if single_run else []
    trials = trial_words(report)
    for note in report.notes:
        words = note_words(report, note, trials)
        line = f"[{note.number}] {words.text}"
        quoted = "; ".join(q for q in (*words.details, more_text(words.more)) if q)
        if words.details:
            line += f" ({quoted})"
        if words.where:
            line += f": {words.where}"
        lines.append(line)
        quotes.append(words.details)
        tones.append(Tone.FAILED if note.kind is NoteKind.FAILURE else Tone.CAUTION)
    return NoteLines(tuple(lines), tuple(quotes), tuple(tones))


def _host_line(host: HostInfo) -> str:
    facts = (host.role, host.os, host.kernel, text.host_tools(host))
    return f"{host.name}: " + ", ".join(fact for fact in facts if fact)


def run_document(report: Report) -> Document:
    hosts = (_host_line(host) for host in report.info.hosts)
    paths = text.paths_of(report)
    columns = (text.column_text(column, paths.get(column.path)) for column in report.columns)
    notes = note_lines(report)
    parts = tuple(
        Part(
            section.key,
            section.heading,
            notes.lines if isinstance(section, NotesSection) else (),
            section.tables(report),
            quotes=notes.quotes if isinstance(section, NotesSection) else (),
            tones=notes.tones if isinstance(section, NotesSection) else (),
        )
        for section in SECTIONS
    )
    lines = (text.run_line(report), *hosts, *columns, *text.provenance_lines(report))
    data = DocumentData(json=lambda: render_json(report), csv=lambda: render_csv(report))
    return Document("run", report.title, lines, parts, data)
