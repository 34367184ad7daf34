"""The report as versioned JSON: the table, the notes and every trial with its intervals
(the run's document's data, report/run_document.py).

report_to_dict defines the format, and orjson writes it (json_text: byte for byte what
json.dumps writes). A report of more than INDENT_UP_TO_TRIALS trials is written compact,
each distinct interval series (json_series, straight from the store's packed records),
test, path and ceiling written once and put in as text.
The format is documented in docs/json-format.md. Readers check "format" and "version";
a change that could break a reader (a renamed or removed key, a changed unit) raises the
version, an added key does not.

Version history:
  1  first version: run, columns, table, notes, trials with flows, streams and intervals.
  2  a cell's flows gain `statistics` (median, mean, sd, CV, min, max, the bootstrap
     interval of the median, outliers, a stability verdict) and `trials`; notes gain the
     codes `unstable` and `outlier`, which concern a cell's repetitions together.
  (2, keys added) cells gain `expectations`, the report `expectations` (a verdict and
     counts), notes the kind `expectation`: what the plan's `expect:` asked, met or not.
  (2, keys added) a trial's path gains `tunnel` (kind, ends, proto, inner_mtu and the
     options set) when its traffic went through a VPN tunnel.
  (2, keys added) `forwarding`, in a run with forwarding-rate searches: their tables,
     each cell's figures and its searches' bounds and trials; notes gain the codes
     `generator-limited`, `not-converged`, `no-throughput`, `unreadable-search-log`.
  (2, keys added) a cell's expectation gains `labels` and `unit`, and names any
     measurement (`flow` null for one of no flow); `measured_expectations`, in a run
     whose plan expects figures of benchmarks or searches: their judgements.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from wirespeed.report import json_text
from wirespeed.report.content import Report
from wirespeed.report.forwarding_json import forwarding_to_dict
from wirespeed.report.json_sections import measured_part, notes_part, traffic_part
from wirespeed.report.json_series import SeriesWriter
from wirespeed.report.json_trials import flow_directions, flow_record, trial_record, whole_part
from wirespeed.report.json_values import expectations_summary
from wirespeed.report.sections import (
    SECTIONS,
    ForwardingSection,
    MeasurementsSection,
    NotesSection,
    Section,
    TrafficSection,
)
from wirespeed.store.gc_pause import gc_paused

# `run --json` says the run's verdict as the report does, and takes it from here.
__all__ = [
    "FORMAT",
    "VERSION",
    "expectations_summary",
    "render_json",
    "report_to_dict",
]

FORMAT = "wirespeed-report"
VERSION = 2


def _forwarding_part(report: Report) -> dict[str, Any]:
    return forwarding_to_dict(report.forwarding)


# Each section's top-level keys (Section.json_keys); a section not here writes none of
# its own: its figures are in each trial's record (Section.trial_keys), or nowhere in
# the run's JSON.
SECTION_PARTS: dict[type[Section], Callable[[Report], dict[str, Any]]] = {
    TrafficSection: traffic_part,
    MeasurementsSection: measured_part,
    ForwardingSection: _forwarding_part,
    NotesSection: notes_part,
}


def section_part(section: Section, report: Report) -> dict[str, Any]:
    """The section's top-level keys in the report's JSON; {} for one that writes none."""
    part = SECTION_PARTS.get(type(section))
    return {} if part is None else part(report)


# The order of the report's top-level keys in format 2, written before its parts were
# sections (report/sections.py): kept so that a report's JSON stays byte for byte. The
# keys of a section added since follow these, in the sections' order.
HEAD_KEYS = (
    "columns",
    "table",
    "notes",
    "expectations",
    "measured_expectations",
    "measured_columns",
    "measured",
    "forwarding",
)


def _report_head(report: Report) -> dict[str, Any]:
    """The report without its trials, which come last: the run, then each section's part."""
    parts: dict[str, Any] = {}
    for section in SECTIONS:
        parts.update(section_part(section, report))
    ordered = {key: parts.pop(key) for key in HEAD_KEYS if key in parts}
    return {"format": FORMAT, "version": VERSION, "run": _run(report), **ordered, **parts}


def _run(report: Report) -> dict[str, Any]:
    info = report.info
    return {
        "id": report.run_id,
        "title": report.title,
        "status": report.status.value,
        "started_at": info.started_at,
        "finished_at": report.finished_at,
        "wirespeed_version": info.wirespeed_version,
        "argv": list(info.argv),
        "plan_path": info.plan_path,
        "hosts": [
            {
                "name": h.name,
                "role": h.role,
                "os": h.os,
                "kernel": h.kernel,
                "machine": h.machine,
                "tools": dict(h.tools),
            }
            for h in info.hosts
        ],
        "provenance": dict(info.provenance),
    }


def report_to_dict(report: Report) -> dict[str, Any]:
    """The whole report as JSON values: what render_json writes."""
    trials = [trial_record(report, index) for index in range(len(report.trials))]
    return {**_report_head(report), "trials": trials}


# Beyond this many trials the JSON is written compact: indenting a run of 10,000 trials
# (130 MB) took longer than building its report, and nobody reads that much by eye.
INDENT_UP_TO_TRIALS = 1000


@gc_paused
def render_json(report: Report) -> str:
    """The report's JSON, as json.dumps(report_to_dict(report), ensure_ascii=False,
    allow_nan=False) writes it: indented by 2, or compact beyond INDENT_UP_TO_TRIALS."""
    if len(report.trials) > INDENT_UP_TO_TRIALS:
        return _compact_text(report)
    return json_text.indented(report_to_dict(report))


def _compact_text(report: Report) -> str:
    """json_text.compact(report_to_dict(report)), the same text, written faster: each
    interval series is written once (SeriesWriter), straight from the store's packed
    records, and each test, path and ceiling, which hundreds of trials share, once."""
    series = SeriesWriter()
    shared: dict[int, json_text.Fragment] = {}  # by id(): the report keeps them alive

    def part(key: str, value: Any) -> Any:
        if key == "flows":
            return [flow_record(*direction, series) for direction in flow_directions(*value)]
        if value is None:
            return None
        text = shared.get(id(value))
        if text is None:
            text = shared[id(value)] = json_text.Fragment(json_text.compact(whole_part(key, value)))
        return text

    trials = [trial_record(report, index, part) for index in range(len(report.trials))]
    try:
        return json_text.orjson_text({**_report_head(report), "trials": trials}).decode()
    except json_text.OrjsonRefused:  # what orjson refuses and json writes: json writes it
        return json_text.compact(report_to_dict(report))
