"""The card's summary in every format: the terminal's text, Markdown, a JSON document and
the HTML page's first section. Each is put before the run's own report (its sections
give each part's table, ceilings, spread and findings in full).
"""

from __future__ import annotations

import html
from importlib.resources import files
from typing import Any

from wirespeed.card.summary import CardSummary, Figure, PartSummary
from wirespeed.report.document import Document, Part, SectionTable, TableRow
from wirespeed.report.text import html_visible, one_line, terminal_safe

CARD_FORMAT_VERSION = 1


def _seconds(part: PartSummary) -> str:
    if part.seconds is None:
        return ""
    seconds = part.seconds
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.1f} min"


def _figure_line(label: str, text: str, ceiling: str, spread: str) -> str:
    extra = "; ".join(t for t in (ceiling, spread) if t)
    return f"{label}: {text}" + (f" ({extra})" if extra else "")


def ab_text(figure: Figure) -> str:
    """A figure stock → tuned under --tuned: "941.2 Mbit/s → 940.8 Mbit/s tuned (-0.0 %)"."""
    if not figure.tuned:
        return figure.text
    change = f" ({figure.change})" if figure.change else ""
    return f"{figure.text} \N{RIGHTWARDS ARROW} {figure.tuned} tuned{change}"


FIGURE_HEADINGS = ("Figure", "Value", "Ceiling", "Spread")


def _card_part(part: PartSummary) -> Part:
    """A part of the card: its headline (or why it was skipped, or what it did not reach)
    and findings as lines, its figures as a table."""
    took = _seconds(part)
    heading = part.part.title + (f" [{took}]" if took else "")
    if part.skipped:
        return Part(part.part.key, heading, (f"skipped: {part.skipped}",))
    lines = (part.unfinished, part.headline, *(f"! {finding}" for finding in part.findings))
    rows = tuple(
        TableRow(f.label, ((ab_text(f),), (f.ceiling,), (f.spread,))) for f in part.figures
    )
    tables = (SectionTable("", FIGURE_HEADINGS, rows),) if rows else ()
    return Part(part.part.key, heading, tuple(line for line in lines if line), tables)


def card_result(card: CardSummary) -> Document:
    """The card as a result document (report/document.py), which every format renders."""
    lines = (
        card.unfinished and f"! {card.unfinished}",
        card.sentence,
        f"run {card.run_id}, {card.profile} card of {card.target}",
        *(line.strip() for line in card.tuned),
        *(f"good for: {line}" for line in card.good_for),
    )
    parts = tuple(_card_part(part) for part in card.parts)
    return Document("card", card.title, tuple(line for line in lines if line), parts)


# The card's plain text where no terminal says its width (`-o card.txt`): as the
# report's tables beneath it (cli/env.py's console for what is not a terminal).
TEXT_WIDTH = 120
PROSE_WIDTH = 88


def render_card_text(card: CardSummary, width: int = TEXT_WIDTH) -> str:
    """The card as plain text: the terminal's (at its width), and `-o card.txt`. Every
    line fits `width`: a long one goes on under its own indent."""
    lines: list[str] = []

    def add(text: str = "", indent: str = "", hang: str = "") -> None:
        if not text:
            lines.append("")
            return
        lines.extend(_wrapped(terminal_safe(text), width, indent, indent + hang))

    title = terminal_safe(card.title)
    add(card.title)
    lines += ["=" * min(len(title), width), ""]
    if card.unfinished:
        add(f"! {card.unfinished}", hang="  ")
        add()
    if card.sentence:  # prose: at most PROSE_WIDTH, as the sentence was always wrapped
        lines.extend(_wrapped(terminal_safe(card.sentence), min(width, PROSE_WIDTH), "", ""))
        add()
    add(f"run {card.run_id}, {card.profile} card of {card.target}")
    if card.tuned:
        add()
        for line in card.tuned:
            stripped = line.lstrip(" ")
            add(stripped, indent=line[: len(line) - len(stripped)], hang="  ")
    if card.good_for:
        add()
        add("Good for:")
        for line in card.good_for:
            add(f"- {line}", indent="  ", hang="  ")
    for part in card.parts:
        took = _seconds(part)
        add()
        add(f"{part.part.title}" + (f"  [{took}]" if took else ""))
        if part.skipped:
            add(f"skipped: {part.skipped}", indent="  ", hang="  ")
            continue
        if part.unfinished:
            add(part.unfinished, indent="  ", hang="  ")
        if part.headline:
            add(part.headline, indent="  ", hang="  ")
        for figure in part.figures:
            line = _figure_line(figure.label, ab_text(figure), figure.ceiling, figure.spread)
            add(line, indent="    ", hang="  ")
        for finding in part.findings:
            add(f"! {finding}", indent="    ", hang="  ")
    return "\n".join(lines) + "\n"


def _wrapped(text: str, width: int, first: str, rest: str) -> list[str]:
    """text in lines of at most width, the first after `first`, the others after `rest`;
    a word longer than a line is cut (an address, a path), never left to overflow."""
    import textwrap

    narrowest = max(width, len(rest) + 8)  # a line keeps some room for its text
    return textwrap.wrap(
        text,
        narrowest,
        initial_indent=first,
        subsequent_indent=rest,
        break_long_words=True,
        break_on_hyphens=False,
    ) or [first.rstrip()]


def _md(text: str) -> str:
    """Text in the card's Markdown: shown as written (never markup, never a line of its
    own), with what acts on a reader instead of showing (bidi overrides, ESC) escaped."""
    return (
        terminal_safe(one_line(text))
        .replace("\\", "\\\\")
        .replace("|", "\\|")
        .replace("<", "&lt;")
        .replace("*", "\\*")
        .replace("_", "\\_")
    )


def render_card_markdown(card: CardSummary) -> str:
    lines = [f"# {_md(card.title)}", ""]
    if card.unfinished:
        lines += [f"**{_md(card.unfinished)}**", ""]
    if card.sentence:
        lines += [f"**{_md(card.sentence)}**", ""]
    lines += [f"Run {card.run_id}, {_md(card.profile)} card of {_md(card.target)}.", ""]
    if card.tuned:
        lines += [f"- {_md(line.strip())}" for line in card.tuned]
        lines.append("")
    if card.good_for:
        lines += ["Good for:", ""]
        lines += [f"- {_md(line)}" for line in card.good_for]
        lines.append("")
    for part in card.parts:
        took = _seconds(part)
        lines += [f"## {part.part.title}" + (f" ({took})" if took else ""), ""]
        if part.skipped:
            lines += [f"Skipped: {_md(part.skipped)}", ""]
            continue
        if part.unfinished:
            lines += [f"*{_md(part.unfinished)}*", ""]
        if part.headline:
            lines += [_md(part.headline), ""]
        if part.figures and any(f.tuned for f in part.figures):
            lines += [
                "| figure | stock | tuned | change | ceiling | spread |",
                "|---|---:|---:|---:|---|---|",
            ]
            lines += [
                f"| {_md(f.label)} | {_md(f.text)} | {_md(f.tuned)} | {_md(f.change)} "
                f"| {_md(f.ceiling)} | {_md(f.spread)} |"
                for f in part.figures
            ]
            lines.append("")
        elif part.figures:
            lines += ["| figure | value | ceiling | spread |", "|---|---:|---|---|"]
            lines += [
                f"| {_md(f.label)} | {_md(f.text)} | {_md(f.ceiling)} | {_md(f.spread)} |"
                for f in part.figures
            ]
            lines.append("")
        lines += [f"- {_md(finding)}" for finding in part.findings]
        if part.findings:
            lines.append("")
    return "\n".join(lines) + "\n"


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


# A part's box shows its first findings, each cut short: the report's notes below have
# every finding in full.
SHOWN_FINDINGS = 4
FINDING_CHARS = 160


def _shortened(text: str) -> str:
    return text if len(text) <= FINDING_CHARS else text[: FINDING_CHARS - 1].rstrip() + "\u2026"


def _qualifiers(*texts: str) -> str:
    return "; ".join(t for t in texts if t)


def _arrow(tuned: str) -> str:
    return f"\N{RIGHTWARDS ARROW} {tuned}" if tuned else ""


def render_card_html(card: CardSummary) -> str:
    """The card's section of the HTML page (render_html's preface; card_style() its style)."""

    def e(text: str) -> str:  # as written, with what would reorder or hide text escaped
        return html.escape(html_visible(text))

    parts = []
    for part in card.parts:
        took = _seconds(part)
        body = []
        if part.skipped:
            body.append(f'<p class="skipped">skipped: {e(part.skipped)}</p>')
        else:
            if part.unfinished:
                body.append(f'<p class="unfinished">{e(part.unfinished)}</p>')
            if part.headline:
                body.append(f'<p class="headline">{e(part.headline)}</p>')
            if part.part.key == "facts":
                items = "".join(f"<dt>{e(f.label)}</dt><dd>{e(f.text)}</dd>" for f in part.figures)
                body.append(f'<dl class="facts">{items}</dl>')
            elif part.figures:
                rows = "".join(
                    f"<tr><td>{e(f.label)}</td><td class=num>{e(f.text)}</td>"
                    + (
                        f"<td class=num>{e(_arrow(f.tuned))}</td><td class=num>{e(f.change)}</td>"
                        if any(g.tuned for g in part.figures)
                        else ""
                    )
                    + f"<td class=muted>{e(_qualifiers(f.ceiling, f.spread))}</td></tr>"
                    for f in part.figures
                )
                body.append(f"<table>{rows}</table>")
            if part.findings:
                items = "".join(
                    f"<li>{e(_shortened(finding))}</li>"
                    for finding in part.findings[:SHOWN_FINDINGS]
                )
                if len(part.findings) > SHOWN_FINDINGS:
                    more = len(part.findings) - SHOWN_FINDINGS
                    items += f"<li>and {more} more in the notes below</li>"
                body.append(f'<ul class="found">{items}</ul>')
        parts.append(
            f'<div class="cardpart" id="card-{e(part.part.key)}"><h3>{e(part.part.title)}'
            f'<span class="took">{e(took)}</span></h3>{"".join(body)}</div>'
        )
    tuned = ""
    if card.tuned:
        items = "".join(f"<li>{e(line.strip())}</li>" for line in card.tuned)
        tuned = f'<ul class="tuned">{items}</ul>'
    good_for = ""
    if card.good_for:
        items = "".join(f"<li>{e(line)}</li>" for line in card.good_for)
        good_for = f'<p class="lead">Good for:</p><ul class="goodfor">{items}</ul>'
    unfinished = f'<p class="unfinished">{e(card.unfinished)}</p>' if card.unfinished else ""
    return (
        '<section class="card devcard" id="device-card"><h2>Device card</h2>'
        f'<p class="lead">{e(card.profile)} card of {e(card.target)}, run {card.run_id}</p>'
        f'{unfinished}<p class="sentence">{e(card.sentence)}</p>{tuned}{good_for}'
        f'<div class="cardparts">{"".join(parts)}</div></section>'
    )
