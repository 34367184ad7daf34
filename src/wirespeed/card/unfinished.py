"""A card whose run did not measure every trial of its plan (Ctrl-C, SIGTERM, a crash, an
error that stopped it): what it is missing, in words, for the card's top and for each
part, so that a part never shows its heading with nothing under it and the card never
reads as whole. Its stored plan says what the run was to measure.
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import dataclass, field

from wirespeed.card.parts import PARTS
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
    return _planned_of(report.info.plan_text, report.info.plan_path or "<card>")


# Cards of one kind share their plan's text: a site of thousands of cards parses each
# text once. The counts are only read.
@functools.lru_cache(maxsize=64)
def _planned_of(plan_text: str, source: str) -> Counter[str] | None:
    from wirespeed.errors import WirespeedError
    from wirespeed.plan import expand, parse_plan

    try:
        plan = parse_plan(plan_text, source)
        return Counter(trial.test.id for trial in expand(plan))
    except WirespeedError:  # a plan this version reads no more: nothing to say of it
        return None
