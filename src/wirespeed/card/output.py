"""A card run in each format: the card's summary first, then the run's own report."""

from __future__ import annotations

import io
import json

from wirespeed.card.render import (
    TEXT_WIDTH,
    card_document,
    card_style,
    render_card_html,
    render_card_markdown,
    render_card_text,
)
from wirespeed.card.summary import CardSummary, card_summary
from wirespeed.report.model import Report, build_report
from wirespeed.store.records import RunRecord


def card_report(record: RunRecord) -> Report:
    return build_report(record)


def render_card(
    fmt: str,
    report: Report,
    record: RunRecord,
    width: int = TEXT_WIDTH,
    card: CardSummary | None = None,
) -> str:
    """`fmt` one of terminal (plain text, every line at most `width`: a terminal's own
    for stdout), markdown, json, html; card: the report's summary where it is made
    already."""
    card = card if card is not None else card_summary(report)
    if fmt == "markdown":
        from wirespeed.report.markdown import render_document_markdown
        from wirespeed.report.run_document import run_document

        return render_card_markdown(card) + "\n" + render_document_markdown(run_document(report))
    if fmt == "json":
        from wirespeed.report import render_json

        document = {"card": card_document(card), "report": json.loads(render_json(report))}
        return json.dumps(document, ensure_ascii=False, indent=2, allow_nan=False) + "\n"
    if fmt == "html":
        from wirespeed.report.device_samples import device_samples
        from wirespeed.report.html import render_html

        return render_html(
            report,
            device_samples(record),
            preface=render_card_html(card),
            preface_style=card_style(),
        )
    from rich.console import Console

    from wirespeed.report.run_document import run_document
    from wirespeed.report.terminal import render_document

    buffer = io.StringIO()
    render_document(
        run_document(report), Console(file=buffer, no_color=True, width=width, force_terminal=False)
    )
    return render_card_text(card, width) + "\n" + buffer.getvalue()
