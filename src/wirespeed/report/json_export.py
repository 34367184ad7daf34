"""A result document (report/document.py) as JSON: its figures' JSON where it carries
them (a run's report's, report/run_json.py; a comparison's ...), else its words as parts,
tables and lines, versioned as DOCUMENT_FORMAT (docs/json-format.md, "Documents")."""

from __future__ import annotations

import dataclasses
from typing import Any

from wirespeed.report import json_text
from wirespeed.report.document import Document

__all__ = ["DOCUMENT_FORMAT", "DOCUMENT_VERSION", "document_to_dict", "render_document_json"]

# Any result document as its parts, tables and lines (docs/json-format.md, "Documents"):
# versioned on its own, beside the formats of each document's figures.
DOCUMENT_FORMAT = "wirespeed-document"
DOCUMENT_VERSION = 1


def document_to_dict(document: Document) -> dict[str, Any]:
    """A document's words, of the parts that have anything to show."""
    shown = dataclasses.replace(document, parts=document.shown_parts, data=None)
    words = dataclasses.asdict(shown)
    del words["data"], words["timelines"]  # its figures, not its words
    # A summary is said where there is one: a document without has the keys it had.
    for said in (words, *words["parts"]):
        if not said["summary"]:
            del said["summary"]
    for part in words["parts"]:
        del part["quotes"]  # which words a line quotes: its words all the same
    return {"format": DOCUMENT_FORMAT, "version": DOCUMENT_VERSION, **words}


def render_document_json(document: Document) -> str:
    """Its figures' JSON when it has them (report/document.py DocumentData), else its words."""
    if document.data is not None:
        return document.data.json()
    return json_text.indented(document_to_dict(document)) + "\n"
