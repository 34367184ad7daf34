"""Whether a run's figures are valid to compare and share (its verdict), in the spirit of
sbc-bench's: a result measured on a throttled board, beside background load, limited by
the lab or the generator rather than the device, or measured once, is not a device's
figure to set beside another's. The gates are findings the run already judged
(analysis/findings.py) and the run's own shape (repetitions); a bundle carries the
verdict, `compare` marks a run that is not valid.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from wirespeed.model import FindingKind, TrialStatus
from wirespeed.store.records import RunRecord

# Each gate: the findings that close it, and what it is called in a verdict.
GATES: tuple[tuple[str, frozenset[FindingKind]], ...] = (
    (
        "throttled or below its rated clock",
        frozenset(
            {
                FindingKind.THROTTLED,
                FindingKind.UNDER_VOLTAGE,
                FindingKind.CLOCK_BELOW_ADVERTISED,
            }
        ),
    ),
    ("background load", frozenset({FindingKind.BACKGROUND_LOAD, FindingKind.BUSY_BEFORE_START})),
    ("lab-limited", frozenset({FindingKind.LAB_LIMITED})),
    ("generator-limited", frozenset({FindingKind.GENERATOR_LIMITED})),
    ("a figure that cannot be true", frozenset({FindingKind.IMPOSSIBLE})),
)
NO_REPETITIONS = "no repetitions"


@dataclass(frozen=True)
class RunVerdict:
    reasons: tuple[str, ...]  # empty: valid

    @property
    def valid(self) -> bool:
        return not self.reasons

    @property
    def text(self) -> str:
        return "valid" if self.valid else "not valid: " + "; ".join(self.reasons)

    @property
    def short(self) -> str:
        """ "valid", or "not valid: " and the gates that closed, without their details."""
        if self.valid:
            return "valid"
        names = [name for name, _ in GATES] + [NO_REPETITIONS]
        closed = [n for n in names if any(r.startswith(n) for r in self.reasons)]
        return "not valid: " + ", ".join(closed)

    def as_json(self) -> dict[str, Any]:
        return {"valid": self.valid, "reasons": list(self.reasons)}


def run_verdict(record: RunRecord) -> RunVerdict:
    """The run's verdict: each gate a finding of it closed (with how many trials and the
    first one's words), and whether any figure was measured more than once."""
    hits: dict[str, list[str]] = defaultdict(list)
    for outcome in record.outcomes:
        if outcome.status is not TrialStatus.OK:
            continue
        for name, kinds in GATES:
            said = [f.message for f in outcome.findings if f.kind in kinds]
            if said:
                hits[name].append(f"{outcome.trial.key}: {said[0]}")
    reasons = []
    for name, _kinds in GATES:
        if hits[name]:
            first = hits[name][0]
            more = f" and {len(hits[name]) - 1} more trials" if len(hits[name]) > 1 else ""
            reasons.append(f"{name} ({first}{more})")
    repeated: dict[tuple[str, str, str], int] = defaultdict(int)
    for outcome in record.outcomes:
        if outcome.status is TrialStatus.OK:
            trial = outcome.trial
            repeated[(trial.test.id, trial.path.name, trial.variant)] += 1
    if repeated and max(repeated.values()) < 2:
        reasons.append(f"{NO_REPETITIONS} (each figure measured once: no spread)")
    return RunVerdict(tuple(reasons))
