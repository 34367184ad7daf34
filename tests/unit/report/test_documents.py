"""Every format renders every result document: a run's report, a card, a soak, a
comparison and one of cards, each built from captured fixtures (the lab cards of
tests/fixtures/cards/runs.db.xz, the soak of tests/fixtures/soak), each rendered to the
terminal, Markdown, HTML, JSON and CSV, and each part's heading, lines and tables looked
for in each. The check is shown to fail when a format leaves a part out.
"""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import json
import lzma
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from support.soak_samples import captured_summary
from wirespeed.analysis.compare_many import compare_many
from wirespeed.card.compare import cards_result, compare_cards
from wirespeed.card.output import card_report
from wirespeed.card.render import card_result
from wirespeed.card.summary import card_summary
from wirespeed.report import build_report
from wirespeed.report.compare_many_render import render_many_csv, render_many_json
from wirespeed.report.csv_export import render_document_csv
from wirespeed.report.document import Document, DocumentData, Part, Timeline
from wirespeed.report.html import render_document_html
from wirespeed.report.json_export import DOCUMENT_FORMAT, document_to_dict, render_document_json
from wirespeed.report.many_document import comparison_document
from wirespeed.report.markdown import render_document_markdown
from wirespeed.report.run_csv import render_csv
from wirespeed.report.run_document import run_document
from wirespeed.report.run_json import render_json
from wirespeed.report.terminal import render_document
from wirespeed.report.text import html_visible, markdown_table_safe, markdown_text, terminal_safe
from wirespeed.report.timeline import Lane, Mark, Series, Span
from wirespeed.soak.render import soak_result
from wirespeed.store import Store
from wirespeed.store.records import RunRecord

CARDS = Path(__file__).parents[2] / "fixtures" / "cards" / "runs.db.xz"


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunRecord, ...]]:
    db = tmp_path_factory.mktemp("documents") / "runs.db"
    db.write_bytes(lzma.decompress(CARDS.read_bytes()))
    with Store.open(str(db), read_only=True) as store:
        yield tuple(
            store.load_run(run, intervals="packed", outputs=True, commands=True) for run in (1, 2)
        )


@pytest.fixture(scope="module")
def documents(records: tuple[RunRecord, ...]) -> dict[str, Document]:
    first = records[0]
    card = card_report(first)
    return {
        "run": run_document(build_report(first)),
        "card": card_result(card_summary(card), card),
        "soak": soak_result(captured_summary()),
        "comparison": comparison_document(compare_many(records)),
        "card comparison": cards_result(compare_cards(records)),
    }


def _terminal(document: Document) -> str:
    buffer = io.StringIO()
    # Wide enough that no cell wraps: what is checked is what is there, not the layout.
    render_document(document, Console(file=buffer, width=2000, color_system=None))
    return buffer.getvalue()


RENDERERS: dict[str, Callable[[Document], str]] = {
    "terminal": _terminal,
    "markdown": render_document_markdown,
    "html": render_document_html,
    "json": render_document_json,
    "csv": render_document_csv,
}


def _html_text(text: str) -> str:
    return html.escape(html_visible(text), quote=True)


# How each text format writes words (a label, a line) and a cell's lines.
WORDS: dict[str, Callable[[str], str]] = {
    "terminal": terminal_safe,
    "markdown": markdown_text,
    "html": _html_text,
}
CELLS = {**WORDS, "markdown": markdown_table_safe}


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _csv_values(text: str) -> set[str]:
    return {value.removeprefix("'") for row in csv.reader(io.StringIO(text)) for value in row}


def _unspaced(text: str) -> str:
    return "".join(text.split())


def _unquoted(part: Part, fmt: str) -> tuple[list[str], list[str]]:
    """A part's lines as words and quotes: where the Markdown writes a line's quotes as
    code (Part.quotes), each quote as written, and the words around them (a backtick of
    theirs written as an entity) each stretch on its own."""
    if fmt != "markdown":
        return list(part.lines), []
    words: list[str] = []
    quotes: list[str] = []
    for index, line in enumerate(part.lines):
        if not part.quoted(index):
            words.append(line)
            continue
        rest = line
        for quote in part.quoted(index):
            before, _, rest = rest.partition(quote)
            words += before.split("`")
            quotes.append(quote)
        words += rest.split("`")
    return [w for w in words if w.strip()], quotes


def missing(document: Document, fmt: str, text: str) -> list[str]:
    """What of the document the rendered `text` does not hold, as "part: what"."""
    if fmt in WORDS:
        words, cells = WORDS[fmt], CELLS[fmt]
        # The terminal wraps a table's legend at the table's width: words are compared
        # without the white space between them.
        flat = _unspaced if fmt == "terminal" else str
        rendered = flat(text)

        def holds(value: str, cell: bool = False) -> bool:
            return flat((cells if cell else words)(value)) in rendered

    else:
        found = set(_strings(json.loads(text))) if fmt == "json" else _csv_values(text)

        def holds(value: str, cell: bool = False) -> bool:
            return value in found

    lost = [f"title: {document.title}"] if not holds(document.title) else []
    said = document.summary
    lost += [f"summary: {said}"] if said and not holds(said) else []
    lost += [f"lines: {line}" for line in document.lines if not holds(line)]
    for part in document.shown_parts:
        plain, quotes = _unquoted(part, fmt)
        lost += [f"{part.key}: {quote}" for quote in quotes if quote not in text]
        wanted = [part.heading, *([part.summary] if part.summary else []), *plain]
        for table in part.tables:
            wanted += [*table.legend, *(row.label for row in table.rows)]
            wanted += [table.title] if table.title else []
            # CSV names each cell's column: the label column's heading is not a column.
            wanted += table.headings[1:] if fmt == "csv" else table.headings
        lost += [f"{part.key}: {value}" for value in wanted if not holds(value)]
        for table in part.tables:
            for row in table.rows:
                for lines in row.cells:
                    shown = ["\n".join(lines)] if fmt == "csv" else list(lines)
                    lost += [f"{part.key}: {line}" for line in shown if not holds(line, True)]
    return lost


def test_every_document_has_parts_with_tables_and_lines(documents: dict[str, Document]) -> None:
    for kind, document in documents.items():
        assert document.kind == kind
        shown = document.shown_parts
        assert shown, f"the {kind} shows nothing: it checks nothing"
        assert any(part.tables for part in shown), kind
        assert any(part.lines for part in shown) or document.lines, kind
    run = {part.key for part in documents["run"].shown_parts}
    assert {"results", "benchmarks", "latency", "forwarding", "notes"} <= run


@pytest.mark.parametrize("fmt", RENDERERS)
@pytest.mark.parametrize("kind", ["run", "card", "soak", "comparison", "card comparison"])
def test_every_format_renders_every_part_of_every_document(
    kind: str, fmt: str, documents: dict[str, Document]
) -> None:
    document = documents[kind]
    rendered = RENDERERS[fmt](document)
    if fmt in DATA_FORMATS and document.data is not None:
        # What a script parses: the document's data, with every part of it.
        made = document.data.json if fmt == "json" else document.data.csv
        if made is not None:
            assert rendered == made() and rendered.strip()
            if fmt == "json" and document.kind in PARTS_NAMED_IN_DATA:
                said = set(_strings(json.loads(rendered)))
                assert {part.key for part in document.shown_parts} <= said
            # Its words, the same as any document's, where the data is not asked for.
            rendered = RENDERERS[fmt](dataclasses.replace(document, data=None))
    assert missing(document, fmt, rendered) == []


DATA_FORMATS = ("json", "csv")
# A card's JSON names each of its parts; a soak's and a comparison's figures have no parts.
PARTS_NAMED_IN_DATA = ("card", "card comparison")


def test_a_comparison_carries_its_json_and_csv(records: tuple[RunRecord, ...]) -> None:
    comparison = compare_many(records)
    document = comparison_document(comparison)
    assert render_document_json(document) == render_many_json(comparison)
    assert render_document_csv(document) == render_many_csv(comparison)
    assert json.loads(render_document_json(document))["format"] == "wirespeed-compare-runs"


def test_a_run_carries_its_report_json_and_csv(records: tuple[RunRecord, ...]) -> None:
    report = build_report(records[0])
    document = run_document(report)
    assert render_document_json(document) == render_json(report)
    assert render_document_csv(document) == render_csv(report)
    assert json.loads(render_document_json(document))["run"]["id"] == records[0].id


@pytest.mark.parametrize("fmt", RENDERERS)
def test_a_part_left_out_of_a_format_is_found(fmt: str, documents: dict[str, Document]) -> None:
    document = documents["card"]
    left_out = document.shown_parts[0]
    without = dataclasses.replace(
        document, parts=tuple(part for part in document.parts if part is not left_out), data=None
    )
    lost = missing(document, fmt, RENDERERS[fmt](without))
    assert lost
    assert all(entry.startswith(f"{left_out.key}: ") for entry in lost)


def test_the_json_document_is_versioned(documents: dict[str, Document]) -> None:
    document = document_to_dict(documents["soak"])
    assert (document["format"], document["version"]) == (DOCUMENT_FORMAT, 1)
    assert [part["key"] for part in document["parts"]] == [
        part.key for part in documents["soak"].shown_parts
    ]


def test_a_timeline_is_drawn_by_the_html_alone_and_data_travels_in_the_page() -> None:
    timeline = Timeline(
        "over-time",
        "Over <time>",
        (Lane("Probes lost", "%", (Series("lost", [0.0, 1.0], [0.0, 50.0]),)),),
        (Span(0.2, 0.4, "outage 0.200 s", "outage"),),
        (Mark(0.3, "link-down", "eth0: Link is Down"),),
        lead="Each chunk's loss.",
    )
    plain = Document("soak", "A soak", ("1 outage",), (Part("notes", "Notes", ("a note",)),))
    drawn = dataclasses.replace(
        plain,
        timelines=(timeline,),
        data=DocumentData(lambda: '{"said": "</script><b>"}\n', in_page=True),
    )
    page = render_document_html(drawn)
    assert '<section class="card" id="over-time"><h2>Over &lt;time&gt;</h2>' in page
    assert "eth0: Link is Down" in page and "outage 0.200 s" in page
    assert "script-src 'unsafe-inline'" in page  # the chart's script may run
    [carried] = re.findall(
        r"<script type=\"application/json\" id=\"soak-data\">(.*?)</script>", page, re.S
    )
    assert json.loads(carried) == {"said": "</script><b>"}
    # Without a timeline, the page has no script, as before.
    assert "script-src" not in render_document_html(plain)
    # The other formats say the document's words, as they did without it.
    for fmt in ("terminal", "markdown", "csv"):
        assert RENDERERS[fmt](dataclasses.replace(drawn, data=None)) == RENDERERS[fmt](plain)
    assert document_to_dict(drawn) == document_to_dict(plain)


@pytest.mark.parametrize("fmt", RENDERERS)
def test_a_summary_is_said_in_every_format(fmt: str, documents: dict[str, Document]) -> None:
    run = dataclasses.replace(documents["run"], data=None)  # its words, in JSON and CSV too
    first = dataclasses.replace(run.parts[0], summary="the part in short")
    said = dataclasses.replace(run, summary="the whole in short", parts=(first, *run.parts[1:]))
    text = RENDERERS[fmt](said)
    assert "the whole in short" in text and "the part in short" in text
    assert missing(said, fmt, text) == []


def test_a_document_without_a_summary_keeps_its_json_keys(documents: dict[str, Document]) -> None:
    document = document_to_dict(documents["run"])
    assert "summary" not in document
    assert all("summary" not in part for part in document["parts"])


@pytest.mark.parametrize("name", ["run", "card", "soak", "comparison", "card comparison"])
def test_at_40_columns_a_word_wider_than_its_column_is_broken_never_cut(
    documents: dict[str, Document], name: str
) -> None:
    buffer = io.StringIO()
    render_document(documents[name], Console(file=buffer, width=40, color_system=None))
    printed = buffer.getvalue()
    assert max(map(len, printed.splitlines())) <= 40
    # Only the ellipses the document's own words have (a soak's shortened kernel line).
    ellipsis = "\N{HORIZONTAL ELLIPSIS}"
    assert printed.count(ellipsis) == _terminal(documents[name]).count(ellipsis)
