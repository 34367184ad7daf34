"""A result document (report/document.py) as CSV: its figures' CSV where it carries
them (a run's report's, report/run_csv.py; a comparison's ...), else its words, a line
each with the part, table, row and column it is in."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from wirespeed.report.csv_text import tidy_csv
from wirespeed.report.document import Document

# A document as CSV: one line per line of text and per table cell (its lines one per
# line of the field), each with the part, table, row and column it is in.
DOCUMENT_COLUMNS = ("part", "table", "row", "column", "value")


def _document_rows(document: Document) -> Iterable[dict[str, Any]]:
    yield {"column": "title", "value": document.title}
    if document.summary:
        yield {"column": "summary", "value": document.summary}
    for line in document.lines:
        yield {"value": line}
    for part in document.shown_parts:
        yield {"part": part.key, "column": "heading", "value": part.heading}
        if part.summary:
            yield {"part": part.key, "column": "summary", "value": part.summary}
        for line in part.lines:
            yield {"part": part.key, "value": line}
        for table in part.tables:
            for row in table.rows:
                for heading, lines in zip(table.headings[1:], row.cells, strict=True):
                    where = {"part": part.key, "table": table.title, "row": row.label}
                    yield where | {"column": heading, "value": "\n".join(lines)}
            for line in table.legend:
                yield {"part": part.key, "table": table.title, "column": "legend", "value": line}


def render_document_csv(document: Document) -> str:
    """Its figures' CSV when it has them (report/document.py DocumentData), else its words."""
    if document.data is not None and document.data.csv is not None:
        return document.data.csv()
    return tidy_csv(DOCUMENT_COLUMNS, _document_rows(document))
