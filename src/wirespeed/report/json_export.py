"""A result document (report/document.py) as JSON: its figures' JSON where it carries
them (a run's report, report/run_json.py; a comparison's ...), else its words as parts,
tables and lines, versioned as DOCUMENT_FORMAT (docs/json-format.md, "Documents")."""

from __future__ import annotations

import dataclasses
from typing import Any

from wirespeed.report import json_text
from wirespeed.report.document import Document

# The run's report's JSON, which its document carries as its data: its writer is a
# builder's module (report/run_json.py), named here as the run's JSON has always been.
from wirespeed.report.run_json import (
    FORMAT,
    VERSION,
    expectations_summary,
    render_json,
    report_to_dict,
)

__all__ = [
    "DOCUMENT_FORMAT",
    "DOCUMENT_VERSION",
    "FORMAT",
    "VERSION",
    "document_to_dict",
    "expectations_summary",
    "render_document_json",
    "render_json",
    "report_to_dict",
]

# Any result document as its parts, tables and lines (docs/json-format.md, "Documents"):
# versioned on its own, beside the formats of each document's figures.
DOCUMENT_FORMAT = "wirespeed-document"
DOCUMENT_VERSION = 1


def document_to_dict(document: Document) -> dict[str, Any]:
    """A document's words, of the parts that have anything to show."""
    shown = dataclasses.replace(document, parts=document.shown_parts, data=None)
    words = dataclasses.asdict(shown)
    del words["data"], words["timelines"]  # its figures, not its words
    return {"format": DOCUMENT_FORMAT, "version": DOCUMENT_VERSION, **words}


def render_document_json(document: Document) -> str:
    """Its figures' JSON when it has them (report/document.py DocumentData), else its words."""
    if document.data is not None:
        return document.data.json()
    return json_text.indented(document_to_dict(document)) + "\n"
