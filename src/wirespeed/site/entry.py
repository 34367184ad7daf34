"""What the site says of one run: its index row (the device, its firmware and link, the
card's headline figures each with its comparison key, the verdict) and the data its
comparisons are computed from in the page."""

from __future__ import annotations

import hashlib
import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wirespeed.analysis.compare_many import ManyRow, groups_of, run_column
from wirespeed.analysis.comparison_key import KeyPart, configuration_facts, key_of
from wirespeed.analysis.stats import LARGE_GROUP, median_distribution, summarize
from wirespeed.analysis.trend import run_labels
from wirespeed.analysis.validity import run_verdict
from wirespeed.card.compare import kept_in_comparison
from wirespeed.card.parts import part_of
from wirespeed.card.plan_text import card_marker
from wirespeed.card.row import board_of, firmware_of, headlines, kernel_of, soc_of
from wirespeed.card.summary import CardSummary
from wirespeed.model import Proto, TrialOutcome, TrialStatus
from wirespeed.report.measure_text import summary_text, value_text
from wirespeed.site.gather import Entry
from wirespeed.store.records import RunRecord

Json = dict[str, Any]


def key_id(parts: Sequence[KeyPart]) -> str:
    """A comparison key as a short name: equal for figures that compare, whatever their
    tool's minor version (only what must be equal is hashed)."""
    compared = [[part.name, _plain(part.compared)] for part in parts]
    text = json.dumps(compared, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def key_text(parts: Sequence[KeyPart]) -> str:
    """The key as a reader sees it, without the settings a test left unset."""
    said = [f"{part.name} {part.shown}" for part in parts if part.shown != "None"]
    return " \N{MIDDLE DOT} ".join(said)


def _plain(value: object) -> object:
    """`compared` as JSON: tuples as lists, the rest as their text."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return repr(value)


def _outcome(record: RunRecord, test_id: str, path: str | None) -> TrialOutcome | None:
    for outcome in record.outcomes:
        trial = outcome.trial
        same_path = path is None or trial.path.name == path
        if trial.test.id == test_id and same_path and outcome.status is TrialStatus.OK:
            return outcome
    return None


@dataclass(frozen=True)
class Described:
    """A run as the site shows it: its index row, its device's name, its comparison data."""

    row: Json
    keys: dict[str, str]  # key id -> its text
    device: str  # what the trend groups by
    compare: Json


def _known(fact: str) -> str | None:
    return None if fact == "?" else fact


def _routed_link(record: RunRecord) -> str | None:
    marker = card_marker(record.info.plan_text) or {}
    routed = str(marker.get("routed") or "")
    for outcome in record.outcomes:
        path = outcome.trial.path
        if (not routed or path.name == routed) and path.link is not None:
            return path.link.name
    return None


def _slowest_tcp(record: RunRecord) -> tuple[Json, tuple[KeyPart, ...]] | None:
    """A run that is not a card: its TCP figure for the table, as a card's is chosen (the
    slowest direction's goodput, the median of its repetitions), with its key."""
    by_trial = {o.trial.key: o for o in record.outcomes}
    found = []
    for (_, _, _, name, _), (_, unit, _, values, trials) in groups_of(record).items():
        outcome = by_trial[trials[0]]
        test = outcome.trial.test
        tcp = test.yields_flows and test.spec.protocol is Proto.TCP
        if name == "goodput" and unit == "bit/s" and tcp:
            found.append((statistics.median(values), outcome))
    if not found:
        return None
    value, outcome = min(found, key=lambda f: f[0])
    parts = key_of(outcome, record)
    return {"text": value_text(value, "bit/s"), "value": value, "key": key_id(parts)}, parts


def describe(entry: Entry, record: RunRecord, summary: CardSummary | None) -> Described:
    """The run's row and data; summary: its card's, None for a run that is not a card."""
    verdict = run_verdict(record)
    labels = run_labels(record)
    row: Json = {
        "page": entry.page,
        "file": entry.file,
        "name": entry.name,
        "title": record.info.title or "",
        "started": record.info.started_at,
        "labels": labels,
        "valid": verdict.valid,
        "verdict": verdict.short,
        "link": _routed_link(record),
        "figures": {},
    }
    keys: dict[str, str] = {}
    is_card = summary is not None
    facts = dict(configuration_facts(record))
    if summary is not None:
        row |= {
            "board": board_of(summary),
            "soc": soc_of(summary, record),
            "firmware": labels.get("firmware") or firmware_of(summary),
            "kernel": kernel_of(summary),
            "target": summary.target,
        }
        for headline in headlines(summary):
            outcome = _outcome(record, headline.test_id, headline.path)
            figure = headline.figure
            said: Json = {"text": figure.text, "value": figure.value}
            if outcome is not None:
                parts = key_of(outcome, record)
                said["key"] = key_id(parts)
                keys[said["key"]] = key_text(parts)
            row["figures"][headline.column] = said
    else:
        row |= {
            "board": _known(facts["board"]),
            "soc": _known(facts["SoC"]),
            "firmware": labels.get("firmware") or _known(facts["system"]),
            "kernel": _known(facts["kernel"]),
            "target": ", ".join(dict.fromkeys(o.trial.path.name for o in record.outcomes)),
        }
        tcp = _slowest_tcp(record)
        if tcp is not None:
            said, parts = tcp
            keys[said["key"]] = key_text(parts)
            row["figures"]["TCP"] = said
    device = (
        " \N{MIDDLE DOT} ".join(str(row[k]) for k in ("board", "soc", "target") if row.get(k))
        or entry.name
    )
    row["device"] = device
    return Described(row, keys, device, compare_data(entry, record, is_card, verdict.short))


def _group_key(
    outcome: TrialOutcome, record: RunRecord, known: dict[str, list[list[str]]]
) -> list[list[str]]:
    """The key of a group's first trial, as compare.js compares it: each part's name, how
    it is shown, and what must be equal (as JSON). A trial's measurements (goodput,
    retransmits, ...) share it: worked out once."""
    said = known.get(outcome.trial.key)
    if said is None:
        parts = key_of(outcome, record)
        said = [[p.name, p.shown, json.dumps(_plain(p.compared))] for p in parts]
        known[outcome.trial.key] = said
    return said


def compare_data(entry: Entry, record: RunRecord, is_card: bool, verdict: str) -> Json:
    """What the comparison page needs of the run to compute `wirespeed compare`'s table
    of it beside others (site/assets/compare.js): its measurements grouped as
    compare_many groups them, each group's summary (which depends on its own values
    only), the comparison key of its first trial, and the facts compare sets side by
    side. The figures across runs (ratios, intervals, tests) are the page's."""
    by_trial = {o.trial.key: o for o in record.outcomes}
    keys: dict[str, list[list[str]]] = {}
    groups = []
    for (test_id, path, variant, name, labels), (
        test_name,
        unit,
        better,
        values,
        trials,
    ) in groups_of(record).items():
        summary = summarize(values)
        part = part_of(test_id)
        as_row = ManyRow(test_id, test_name, None, variant, name, labels, unit, better, ())
        outcome = by_trial[trials[0]]
        group: Json = {
            "test_id": test_id,
            "test_name": test_name,
            "path": path,
            "variant": variant,
            "name": name,
            "labels": [list(label) for label in labels],
            "unit": unit,
            "better": better.value,
            "values": list(values),
            "trials": list(trials),
            "median": summary.median,
            "text": summary_text(summary, unit),
            "part": None if part is None else part.key,
            "kept": part is not None and kept_in_comparison(as_row, part),
            "key": _group_key(outcome, record, keys),
        }
        if len(values) >= LARGE_GROUP:
            # Welch's test and the ratio's resampled medians (analysis/stats.py): what
            # depends on this group alone, worked out here as Python works it out.
            medians, cumulative = median_distribution(sorted(values))
            group["large"] = {
                "fmean": statistics.fmean(values),
                "variance": statistics.variance(values),
                "medians": medians,
                "cumulative": cumulative,
            }
        groups.append(group)
    marker = card_marker(record.info.plan_text) or {}
    column = run_column(record)
    return {
        "page": entry.page,
        "name": entry.name,
        "card": is_card,
        "target": marker.get("target"),
        "devices_label": column.label.partition(":")[2],
        "title": record.info.title,
        "verdict": verdict,
        "facts": [list(fact) for fact in configuration_facts(record)],
        "groups": groups,
    }
