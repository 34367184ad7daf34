"""Cards side by side: `wirespeed compare` of card runs, one table per part, a column per
device (each card's target), every figure also as a % of the first card's.

The rows are compare_many's (matched on test id, measurement and labels; medians, ratio
intervals and significance where repetitions allow), grouped by the part their test
belongs to. A search's figures are compared in packets/s: its bit rates and % of the
ceiling are the same loads in other units, and its trial counts say nothing of a device.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wirespeed.analysis.compare_many import (
    DEFAULT_VARIANT,
    ManyComparison,
    ManyRow,
    RunColumn,
    compare_many,
)
from wirespeed.card.parts import PARTS, Part, part_of
from wirespeed.card.plan_text import STOCK, card_marker
from wirespeed.report.compare_many_render import many_to_dict, render_many_csv
from wirespeed.report.document import Document, DocumentData, SectionTable
from wirespeed.report.document import Part as DocumentPart
from wirespeed.report.many_document import comparison_headings, comparison_rows
from wirespeed.report.many_text import LEGEND
from wirespeed.search.measurements import PPS
from wirespeed.store.records import RunRecord

FORMAT = "wirespeed-compare-cards"
VERSION = 1
# Of RRUL's probes, the figures a card compares: the rest are in each card's report.
LATENCY_KEPT = ("latency increase", "bufferbloat grade", "goodput")
FORWARDING_DROPPED = ("search trials", "search time")


@dataclass(frozen=True)
class CardComparison:
    columns: tuple[RunColumn, ...]
    parts: tuple[tuple[Part, tuple[ManyRow, ...]], ...]  # parts with rows, in card order
    whole: ManyComparison  # every row, for the formats that take one table (CSV, HTML)


def is_card_record(record: RunRecord) -> bool:
    return card_marker(record.info.plan_text) is not None


def kept_in_comparison(row: ManyRow, part: Part) -> bool:
    """Whether compare_cards shows the row in its part (a search in packets/s, RRUL's
    latency and goodput)."""
    if part.key == "forwarding":
        # The goals' loads; the rate forwarded at each is within the loss of it.
        return (
            row.unit == PPS
            and row.name not in FORWARDING_DROPPED
            and not row.name.endswith("forwarding rate")
        )
    if part.key == "latency":
        return any(row.name.startswith(name) for name in LATENCY_KEPT) or row.unit == "bit/s"
    return True


def compare_cards(records: Sequence[RunRecord], *, strict: bool = False) -> CardComparison:
    """The cards in the order given, the first the baseline of every %. A `--tuned`
    card's stock variant is the state a plain card measures: their figures share a row,
    and the tuned ones have rows of their own."""
    many = compare_many(records, same_as={STOCK: DEFAULT_VARIANT}, strict=strict)
    columns = tuple(
        dataclasses.replace(
            column,
            label=f"run {record.id}: {(card_marker(record.info.plan_text) or {}).get('target')}",
        )
        for column, record in zip(many.columns, records, strict=True)
    )
    grouped: dict[str, list[ManyRow]] = {}
    for row in many.rows:
        part = part_of(row.test_id)
        if part is not None and kept_in_comparison(row, part):
            grouped.setdefault(part.key, []).append(row)
    parts = tuple((part, tuple(grouped[part.key])) for part in PARTS if part.key in grouped)
    rows = tuple(row for _, part_rows in parts for row in part_rows)
    whole = dataclasses.replace(many, columns=columns, rows=rows)
    return CardComparison(columns, parts, whole)


def cards_result(comparison: CardComparison) -> Document:
    """The comparison of cards as a result document (report/document.py), which every
    format renders: a table per part of the card, the legend once, under the last; its
    data the JSON a script reads (`wirespeed-compare-cards`) and the rows' CSV."""
    headings = comparison_headings(comparison.whole)
    parts = []
    for index, (part, rows) in enumerate(comparison.parts):
        legend = (LEGEND,) if index == len(comparison.parts) - 1 else ()
        table = SectionTable("", headings, comparison_rows(rows), legend)
        parts.append(DocumentPart(part.key, part.title, tables=(table,)))
    lines = (*(column.label for column in comparison.columns), *comparison.whole.notes)
    title = f"{len(comparison.columns)} device cards compared"
    data = DocumentData(lambda: _cards_json(comparison), lambda: render_many_csv(comparison.whole))
    return Document("card comparison", title, lines, tuple(parts), data)


def _cards_json(comparison: CardComparison) -> str:
    """The JSON of `compare --format json` of cards (docs/json-format.md)."""
    whole = many_to_dict(comparison.whole)
    document: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "columns": whole.get("columns"),
        **({"notes": whole["notes"]} if "notes" in whole else {}),
        "parts": [
            {
                "key": part.key,
                "title": part.title,
                "rows": many_to_dict(dataclasses.replace(comparison.whole, rows=rows))["rows"],
            }
            for part, rows in comparison.parts
        ],
    }
    return json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
