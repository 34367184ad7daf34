"""A card whose run did not measure every trial of its plan (Ctrl-C, SIGTERM, a crash, an
error that stopped it): what it is missing, in words, for the card's top and for each
part, so that a part never shows its heading with nothing under it and the card never
reads as whole. Its stored plan says what the run was to measure.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from dataclasses import dataclass, field

from wirespeed.card.parts import CARD_KEY, PARTS
from wirespeed.report.model import Report
from wirespeed.store.records import RunStatus


@dataclass(frozen=True)
class Unfinished:
    """What the card lacks: a line for its top ("" when it has every trial), and a line
    per part key that lacks some."""

    line: str = ""
    parts: dict[str, str] = field(default_factory=dict)


_WORDS = {RunStatus.INTERRUPTED: "interrupted", RunStatus.RUNNING: "unfinished"}


def unfinished(report: Report) -> Unfinished:
    planned = _planned(report)
    if planned is None:
        return Unfinished()
    measured = Counter(t.outcome.trial.test.id for t in report.trials)
    total, done = sum(planned.values()), sum(min(measured[k], n) for k, n in planned.items())
    if done >= total:
        return Unfinished()
    resume = f"`wirespeed run --resume {report.run_id}` measures the rest"
    word = _WORDS.get(report.status, "stopped")
    why = " (still running, or its process was killed)" * (report.status is RunStatus.RUNNING)
    line = f"{word}{why} after {done} of {total} trials: {resume}"
    parts: dict[str, str] = {}
    for part in PARTS:
        wanted = sum(planned[test] for test in part.tests)
        got = sum(min(measured[test], planned[test]) for test in part.tests)
        if not wanted or got >= wanted:
            continue
        parts[part.key] = (
            f"not measured: the card was {word} before this part ({resume})"
            if got == 0
            else f"{got} of {wanted} trials measured: the card was {word} ({resume})"
        )
    return Unfinished(line, parts)


def _planned(report: Report) -> Counter[str] | None:
    """Trials per test id that the card's stored plan runs; None where it cannot be read."""
    if report.info.plan_text is None:
        return None
    return _planned_of(without_marker(report.info.plan_text), report.info.plan_path or "<card>")


def without_marker(plan_text: str) -> str:
    """The plan with its `x-card:` value emptied, where that changes no trial of it: the
    marker differs from device to device (its facts name the board), the tests do not,
    so the cards of a results site share a few texts, each parsed once.

    Plans ignore `x-` keys; the marker is emptied only where it is one line of JSON that
    YAML reads as JSON does (JSON as wirespeed writes it, printable, no key YAML would
    take for too long), so that the plan parses, or fails to, as before."""
    head, marker, tail = f"\n{plan_text}".partition(f"\n{CARD_KEY}:")
    if not marker:
        return plan_text
    value, newline, rest = tail.partition("\n")
    if f"\n{CARD_KEY}:" in f"\n{rest}" or not _json_as_yaml(value.strip()):
        return plan_text
    return f"{head}{marker} {{}}{newline}{rest}"[1:]


def _json_as_yaml(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if not isinstance(value, dict) or not text.isprintable():
        return False
    # Written again it is the same text: no duplicate key, no odd spacing or escape.
    same = json.dumps(value, ensure_ascii=False) == text
    return same and _short_keys(value)


def _short_keys(value: object) -> bool:
    """Every key shorter than YAML's limit for an implicit key (1,024 characters)."""
    if isinstance(value, dict):
        return all(len(k) < 1000 and _short_keys(v) for k, v in value.items())
    if isinstance(value, list):
        return all(_short_keys(v) for v in value)
    return True


# Cards of one kind share their plan's text once their markers are emptied: a site of
# thousands of cards parses each text once. The counts are only read.
@functools.lru_cache(maxsize=64)
def _planned_of(plan_text: str, source: str) -> Counter[str] | None:
    from wirespeed.errors import WirespeedError
    from wirespeed.plan import expand, parse_plan

    try:
        plan = parse_plan(plan_text, source)
        return Counter(trial.test.id for trial in expand(plan))
    except WirespeedError:  # a plan this version reads no more: nothing to say of it
        return None
