"""The card as a result document (report/document.py): its sentence, what it is of, what
the device is good for, then a part each (its headline, findings and figures). Every
format renders it with the document exporters, before the run's own report (whose
sections give each part's table, ceilings, spread and findings in full); its JSON and
CSV, which scripts parse, are its data: `card_document` with the run's JSON, and the
run's CSV.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from importlib.resources import files
from typing import Any

from wirespeed.card.parts import FACTS
from wirespeed.card.summary import CardSummary, Figure, PartSummary
from wirespeed.report.content import Report
from wirespeed.report.document import Document, DocumentData, Part, SectionTable, TableRow

CARD_FORMAT_VERSION = 1


def _seconds(part: PartSummary) -> str:
    if part.seconds is None:
        return ""
    seconds = part.seconds
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


# A part's figure columns: the value (stock, tuned and the change under --tuned), then
# its ceiling and spread where any figure of the part has one.
_Column = tuple[str, Callable[[Figure], str]]
VALUE: tuple[_Column, ...] = (("Value", lambda f: f.text),)
TUNED: tuple[_Column, ...] = (
    ("Stock", lambda f: f.text),
    ("Tuned", lambda f: f.tuned),
    ("Change", lambda f: f.change),
)
QUALIFIERS: tuple[_Column, ...] = (("Ceiling", lambda f: f.ceiling), ("Spread", lambda f: f.spread))


def _figure_table(figures: Sequence[Figure]) -> tuple[SectionTable, ...]:
    if not figures:
        return ()
    columns = TUNED if any(f.tuned for f in figures) else VALUE
    columns += tuple(c for c in QUALIFIERS if any(c[1](f) for f in figures))
    rows = tuple(
        TableRow(f.label, tuple((text,) if (text := of(f)) else () for _, of in columns))
        for f in figures
    )
    return (SectionTable("", ("Figure", *(heading for heading, _ in columns)), rows),)


def _card_part(part: PartSummary) -> Part:
    """A part of the card: its headline as its summary; why it was skipped, what it did
    not reach and its findings as lines; its figures as a table."""
    took = _seconds(part)
    heading = part.part.title + (f" ({took})" if took else "")
    if part.skipped:
        return Part(part.part.key, heading, (f"skipped: {part.skipped}",))
    # What the device is (board, kernel, cpus ...) is words, not figures: a line each.
    facts = part.part.key == FACTS.key
    said = tuple(f"{f.label}: {f.text}" for f in part.figures) if facts else ()
    findings = (f"! {finding}" for finding in part.findings)
    lines = (part.unfinished, *said, *findings)
    tables = () if facts else _figure_table(part.figures)
    shown = tuple(line for line in lines if line)
    return Part(part.part.key, heading, shown, tables, summary=part.headline)


def card_result(card: CardSummary, report: Report | None = None) -> Document:
    """The card as a result document, which every format renders; with the run's
    `report`, its data: the JSON of `wirespeed card --json` (the card and the run's
    report) and the run's CSV."""
    lines = (
        card.unfinished and f"! {card.unfinished}",
        f"run {card.run_id}, {card.profile} card of {card.target}",
        *(line.strip() for line in card.tuned),
        *(f"good for: {line}" for line in card.good_for),
    )
    parts = tuple(_card_part(part) for part in card.parts)
    data = None if report is None else _card_data(card, report)
    shown = tuple(line for line in lines if line)
    return Document("card", card.title, shown, parts, data, summary=card.sentence)


def _card_data(card: CardSummary, report: Report) -> DocumentData:
    def card_json() -> str:
        from wirespeed.report import render_json

        document = {"card": card_document(card), "report": json.loads(render_json(report))}
        return json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False) + "\n"

    def card_csv() -> str:  # a card's figures are the run's: its CSV is the run's
        from wirespeed.report import render_csv

        return render_csv(report)

    return DocumentData(card_json, card_csv)


def card_document(card: CardSummary) -> dict[str, Any]:
    """The card as JSON values (the `card` key of `wirespeed card --json`)."""
    return {
        "card_format": CARD_FORMAT_VERSION,
        "run_id": card.run_id,
        "title": card.title,
        "target": card.target,
        "profile": card.profile,
        "summary": card.sentence,
        "what": list(card.what),
        "good_for": list(card.good_for),
        "tuned": list(card.tuned) or None,
        "unfinished": card.unfinished or None,
        "parts": [
            {
                "key": part.part.key,
                "title": part.part.title,
                "headline": part.headline,
                "skipped": part.skipped or None,
                "unfinished": part.unfinished or None,
                "seconds": part.seconds,
                "figures": [
                    {
                        "label": f.label,
                        "value": f.value,
                        "unit": f.unit,
                        "text": f.text,
                        "ceiling": f.ceiling or None,
                        "spread": f.spread or None,
                        "tuned": {"value": f.tuned_value, "text": f.tuned, "change": f.change}
                        if f.tuned
                        else None,
                    }
                    for f in part.figures
                ],
                "findings": list(part.findings),
            }
            for part in card.parts
        ],
    }


def card_style() -> str:
    """The card section's CSS, put in the page's head after the report's own."""
    return (files("wirespeed.card") / "card.css").read_text(encoding="utf-8")
