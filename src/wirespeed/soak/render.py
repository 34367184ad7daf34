"""A soak as a result document (report/document.py), which every format's exporter
renders: its words (the sentence, what was expected, the outages with their kernel
events, the device, the lab's faults), its timeline (soak/timeline.py: each chunk's loss
and round trips, outages and events over time, which the HTML draws) and its data, the
JSON a script parses (report_dict: outages as intervals, events as instants, faults as
intervals, per-chunk loss and round trip), which the HTML page carries too in a
`<script type="application/json" id="soak-data">` element.
"""

from __future__ import annotations

import json
import time

from wirespeed.report.document import Document, DocumentData, Part, SectionTable, TableRow
from wirespeed.soak import records
from wirespeed.soak.group import variant_of
from wirespeed.soak.plan import parse_soak_plan
from wirespeed.soak.sentence import describe_event, duration_text
from wirespeed.soak.summary import SoakSummary, summarize
from wirespeed.soak.timeline import soak_timeline
from wirespeed.store import Store

__all__ = ["report_dict", "soak_result", "summary_of"]


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


# Which way an outage's probes were lost (Outage.direction), after their count.
_WAYS = {"up": " up", "down": " down", "both": " both ways", "unknown": ""}


def _outage_rows(summary: SoakSummary) -> tuple[TableRow, ...]:
    """Each outage, numbered: when it began, how long it lasted and how many probes it
    lost which way, and the kernel event it matched. The outage's figures are one cell
    of lines, so that a terminal 40 columns wide shows each whole."""
    rows = []
    for number, m in enumerate(summary.matched, 1):
        o = m.outage
        cause = m.cause
        event = "none"
        if cause is not None:
            event = describe_event(cause) + (f" on {cause.interface}" if cause.interface else "")
        lost = f"{o.lost}{' (est.)' if o.blind else ''} lost{_WAYS.get(o.direction, '')}"
        outage = (_when(o.start), f"{o.duration:.3f} s, {lost}")
        rows.append(TableRow(str(number), (outage, (event,))))
    return tuple(rows)


HEAD = ("#", "outage", "kernel event")


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
    which soak, any warning, the sentence and what was watched, then what was expected,
    the outages with the kernel event each matched, the kernel's and the device's events,
    the lab's faults and the notes; its timeline, and its JSON as data."""
    watched = (
        f"watched {duration_text(summary.watched)} ({summary.sent} probes each way, "
        f"{summary.lost} lost); an outage is \N{GREATER-THAN OR EQUAL TO} {summary.threshold} "
        f"consecutive lost probes ({summary.threshold * summary.interval * 1000:.0f} ms)"
    )
    lines = (
        f"soak {summary.header.id}{_of_variant(summary)} ({summary.header.status})",
        *(f"warning: {warning}" for warning in summary.warnings),
        summary.sentence,
        watched,
    )
    outages = _outage_rows(summary)
    table = SectionTable("", HEAD, outages)
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
    timeline = soak_timeline(summary)
    return Document(
        "soak",
        _title(summary),
        lines,
        parts,
        DocumentData(lambda: json.dumps(report_dict(summary), indent=2) + "\n", in_page=True),
        (timeline,) if timeline is not None else (),
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
