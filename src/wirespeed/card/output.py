"""A card run in each format: the card (card/render.py card_result) by the document
exporters, then, in the formats people read, the run's own report; its JSON and CSV are
the card document's data (the card with the run's report, the run's CSV)."""

from __future__ import annotations

import io

from wirespeed.card.render import card_result, card_style
from wirespeed.card.summary import CardSummary, card_summary
from wirespeed.report.model import Report, build_report
from wirespeed.store.records import RunRecord

# The card's plain text where no terminal says its width (`-o card.txt`): as the
# report's tables beneath it (cli/env.py's console for what is not a terminal).
TEXT_WIDTH = 120
# The HTML page's element of the card, before the report's sections.
CARD_ELEMENT = "device-card"


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
    for stdout), markdown, json, csv, html; card: the report's summary where it is made
    already."""
    document = card_result(card if card is not None else card_summary(report), report)
    if fmt == "json":
        from wirespeed.report.json_export import render_document_json

        return render_document_json(document)
    if fmt == "csv":
        from wirespeed.report.csv_export import render_document_csv

        return render_document_csv(document)
    if fmt == "markdown":
        from wirespeed.report.markdown import render_document_markdown
        from wirespeed.report.run_document import run_document

        return (
            render_document_markdown(document)
            + "\n"
            + render_document_markdown(run_document(report))
        )
    if fmt == "html":
        from wirespeed.report.device_samples import device_samples
        from wirespeed.report.html import document_section, render_html

        return render_html(
            report,
            device_samples(record),
            preface=document_section(document, CARD_ELEMENT),
            preface_style=card_style(),
        )
    from rich.console import Console

    from wirespeed.report.run_document import run_document
    from wirespeed.report.terminal import render_document

    buffer = io.StringIO()
    console = Console(file=buffer, no_color=True, width=width, force_terminal=False)
    render_document(document, console)
    console.print()
    render_document(run_document(report), console)
    return buffer.getvalue()
