"""A soak's summary as text, Markdown, JSON and an HTML section.

The HTML lists outages and kernel events, draws them over time with each chunk's loss
and round trips (soak/timeline.py), and carries the data as JSON in a
`<script type="application/json" id="soak-data">` element: outages as intervals,
events as instants, faults as intervals, per-chunk loss and round trip.
"""

from __future__ import annotations

import html
import json
import time
from importlib import resources

from wirespeed.report.document import Document, Part, SectionTable, TableRow
from wirespeed.soak import records
from wirespeed.soak.group import variant_of
from wirespeed.soak.plan import parse_soak_plan
from wirespeed.soak.sentence import describe_event, duration_text
from wirespeed.soak.summary import SoakSummary, summarize
from wirespeed.soak.timeline import soak_timeline
from wirespeed.store import Store

__all__ = ["render", "render_text", "summary_of"]


def summary_of(
    store: Store, soak_id: int | None, *, threshold: int | None = None
) -> SoakSummary | None:
    """A stored soak's summary; `threshold`: count outages from this many consecutive
    lost probes instead of the plan's (the loss runs are kept, so any threshold at
    least 1 can be applied afterwards)."""
    found = records.load(store, soak_id)
    if found is None:
        return None
    header, chunks = found
    settings = parse_soak_plan(header.plan_text, f"soak {header.id}").soak
    return summarize(
        header, chunks,
        interval=settings.interval, threshold=threshold or settings.outage,
        window=settings.match_window,
    )  # fmt: skip


def _of_variant(summary: SoakSummary) -> str:
    """ ", variant jumbo" where the soak is one of several variants' soaks; else ""."""
    variant = variant_of(summary.header.info)
    return f", variant {variant}" if variant is not None else ""


def _title(summary: SoakSummary) -> str:
    """The plan's title (or "Soak N"), with the variant where the soak is one of several."""
    return (summary.header.title or f"Soak {summary.header.id}") + _of_variant(summary)


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(at)) + f".{int(at * 1000) % 1000:03d}Z"


def _rows(summary: SoakSummary) -> list[list[str]]:
    rows = []
    for number, m in enumerate(summary.matched, 1):
        o = m.outage
        cause = m.cause
        rows.append(
            [
                str(number),
                _when(o.start),
                f"{o.duration:.3f}",
                str(o.lost) + (" (est.)" if o.blind else ""),
                o.direction,
                f"`{describe_event(cause)}`" + (f" on {cause.interface}" if cause.interface else "")
                if cause
                else "none",
            ]
        )
    return rows


HEAD = ["#", "start (UTC)", "length s", "lost", "direction", "kernel event"]


def _judged(summary: SoakSummary) -> list[str]:
    """'outages <= 0: measured 1, not met': each expectation of the soak's plan."""
    from wirespeed.expectations import value_text
    from wirespeed.soak.measurements import judge

    found = []
    for judgement in judge(summary):
        expectation = judgement.expectation
        measured = (
            "nothing measured"
            if judgement.measured is None
            else f"measured {value_text(expectation.unit, judgement.measured)}"
        )
        found.append(f"{expectation.text}: {measured}, {judgement.verdict}")
    return found


def soak_result(summary: SoakSummary) -> Document:
    """The soak as a result document (report/document.py), which every format renders:
    what was watched, then what was expected, the outages with the kernel event each
    matched, the kernel's and the device's events, the lab's faults and the notes."""
    watched = (
        f"watched {duration_text(summary.watched)} ({summary.sent} probes each way, "
        f"{summary.lost} lost); an outage is \N{GREATER-THAN OR EQUAL TO} {summary.threshold} "
        f"consecutive lost probes ({summary.threshold * summary.interval * 1000:.0f} ms)"
    )
    lines = (
        *(f"warning: {warning}" for warning in summary.warnings),
        summary.sentence,
        watched,
        f"status: {summary.header.status}",
    )
    outages = tuple(
        TableRow(row[0], tuple((cell.replace("`", ""),) for cell in row[1:]))
        for row in _rows(summary)
    )
    table = SectionTable("", tuple(HEAD), outages)
    named = (e for e in summary.events if e.kind is not None)
    kernel = tuple(f"{_when(e.at)} {e.host}: {e.message}" for e in named)
    device = tuple(f"{_when(e.at)} {e.describe()}" for e in summary.device)
    parts = (
        Part("expected", "Expected", tuple(_judged(summary))),
        Part("outages", "Outages", tables=(table,) if outages else ()),
        Part("kernel", "Kernel events", kernel),
        Part("device", "The device", device),
        Part(
            "faults",
            "Injected faults (the lab's truth)",
            tuple(
                f"{f['kind']}: {_when(f['start'])} for {f['end'] - f['start']:.3f} s"
                for f in summary.faults
            ),
        ),
        Part("notes", "Notes", tuple(dict.fromkeys(summary.notes))),
    )
    return Document("soak", _title(summary), lines, parts)


def render_text(summary: SoakSummary) -> str:
    head = f"soak {summary.header.id}{_of_variant(summary)} ({summary.header.status})"
    lines = [f"{head}: {summary.sentence}"]
    lines += [f"  warning: {warning}" for warning in summary.warnings]
    lines += [f"  expect {judged}" for judged in _judged(summary)]
    for row in _rows(summary):
        lines.append("  " + "  ".join(row).replace("`", ""))
    return "\n".join(lines) + "\n"


def render_markdown(summary: SoakSummary) -> str:
    out = [f"# {_title(summary)}", ""]
    out += [f"> **Warning:** {warning}" for warning in summary.warnings]
    out += [""] if summary.warnings else []
    out += [f"**{summary.sentence}**", ""]
    out.append(
        f"Watched {duration_text(summary.watched)} ({summary.sent} probes each way, "
        f"{summary.lost} lost); an outage is ≥ {summary.threshold} consecutive lost probes "
        f"({summary.threshold * summary.interval * 1000:.0f} ms). Status: {summary.header.status}."
    )
    judged = _judged(summary)
    if judged:
        out += ["", "## Expected", ""] + [f"- {line}" for line in judged]
    if summary.matched:
        out += ["", "| " + " | ".join(HEAD) + " |", "|" + "---|" * len(HEAD)]
        out += ["| " + " | ".join(row) + " |" for row in _rows(summary)]
    events = [e for e in summary.events if e.kind is not None]
    if events:
        out += ["", "## Kernel events", ""]
        out += [f"- {_when(e.at)} {e.host}: `{e.message}`" for e in events]
    if summary.device:
        out += ["", "## The device", ""]
        out += [f"- {_when(e.at)} {e.describe()}" for e in summary.device]
    if summary.faults:
        out += ["", "## Injected faults (the lab's truth)", ""]
        out += [
            f"- {f['kind']}: {_when(f['start'])} for {f['end'] - f['start']:.3f} s"
            for f in summary.faults
        ]
    if summary.notes:
        out += ["", "## Notes", ""] + [f"- {note}" for note in dict.fromkeys(summary.notes)]
    return "\n".join(out) + "\n"


def render_html(summary: SoakSummary) -> str:
    esc = html.escape
    title = esc(_title(summary))
    rows = "".join(
        "<tr>" + "".join(f"<td>{esc(cell.replace('`', ''))}</td>" for cell in row) + "</tr>"
        for row in _rows(summary)
    )
    events = "".join(
        f"<li><time>{esc(_when(e.at))}</time> {esc(e.host)}: <code>{esc(e.message)}</code></li>"
        for e in summary.events
        if e.kind is not None
    )
    warnings = "".join(
        f"<p class='warning'><strong>Warning:</strong> {esc(w)}</p>" for w in summary.warnings
    )
    device = "".join(
        f"<li><time>{esc(_when(e.at))}</time> {esc(e.describe())}</li>" for e in summary.device
    )
    device = f"<h2>The device</h2><ul>{device}</ul>" if device else ""
    data = json.dumps(summary.to_dict(), separators=(",", ":")).replace("</", "<\\/")
    style = (resources.files("wirespeed.report") / "assets" / "report.css").read_text("utf-8")
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        # No request may leave the page, as the run report's.
        "<meta http-equiv='Content-Security-Policy' content=\"default-src 'none'; "
        "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:\">"
        f"<title>{title}</title><style>{style}</style></head><body><main>"
        f"<section id='soak'><h1>{title}</h1>{warnings}"
        f"<p><strong>{esc(summary.sentence)}</strong></p>"
        "<h2>Outages</h2><table><thead><tr>"
        + "".join(f"<th>{esc(h)}</th>" for h in HEAD)
        + f"</tr></thead><tbody>{rows}</tbody></table>"
        f"<h2>Kernel events</h2><ul>{events}</ul>{device}</section>"
        f"{soak_timeline(summary)}"
        f"<script type='application/json' id='soak-data'>{data}</script>"
        "</main></body></html>\n"
    )


def report_dict(summary: SoakSummary) -> dict[str, object]:
    """The JSON report: the summary, its figures as measurements, and what the plan
    expected of them, judged."""
    from wirespeed.report.json_values import judgement_to_dict
    from wirespeed.soak.measurements import figures, judge

    return summary.to_dict() | {
        "measurements": [
            {"name": m.name, "unit": m.unit, "better": m.better.value, "value": m.value}
            for m in figures(summary)
        ],
        "expectations": [judgement_to_dict(j) for j in judge(summary)],
    }


def render(summary: SoakSummary, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(report_dict(summary), indent=2) + "\n"
    if fmt == "markdown":
        return render_markdown(summary)
    if fmt == "html":
        return render_html(summary)
    return render_text(summary)
