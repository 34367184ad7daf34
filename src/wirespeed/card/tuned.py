"""`card --tuned`: the network parts' figures stock and tuned, side by side.

The card's run has two variants, `stock` and `tuned` (what `tune suggest` proposes for
the DUT, card/plan_text.py); each part is summarised from the stock trials as without
--tuned, and each network figure is matched by its label with the same figure of the
tuned trials. The change is the one the report's "Variants against stock" table gives
(analysis/compare_within.py, with its significance mark); a figure that table does not
have (a grade, a figure derived from others) gets its change from the two medians,
without a mark.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from wirespeed.analysis.compare_many import ManyRow
from wirespeed.card.figures import Figure, PartSummary
from wirespeed.card.plan_text import STOCK, TUNED
from wirespeed.model import TrialOutcome
from wirespeed.report.model import Report, build_report


def variant_report(report: Report, variant: str) -> Report:
    """The report of the run's trials in one variant only."""
    from wirespeed.report.ab import record_of

    record = record_of(report)
    kept = tuple(o for o in record.outcomes if o.trial.variant == variant)
    return build_report(dataclasses.replace(record, outcomes=kept, packed=None))


@dataclass(frozen=True)
class TunedPairs:
    stock: str
    tuned_report: Report
    tuned_outcomes: tuple[TrialOutcome, ...]
    rows: tuple[ManyRow, ...]  # the run's A/B rows, tuned against stock

    def paired(self, stock: PartSummary, tuned: PartSummary) -> tuple[Figure, ...]:
        """stock's figures, each with its tuned twin (by label) and the change."""
        twins = {figure.label: figure for figure in tuned.figures}
        out = []
        for figure in stock.figures:
            twin = twins.get(figure.label)
            if twin is None or twin.value is None:
                out.append(figure)
                continue
            out.append(
                dataclasses.replace(
                    figure,
                    tuned=twin.text,
                    tuned_value=twin.value,
                    change=self.change(figure.value, twin.value, derived=figure.unit == "grade"),
                )
            )
        return tuple(out)

    def change(self, stock: float | None, tuned: float, *, derived: bool = False) -> str:
        """The A/B table's change (with its mark) of the row whose medians these are; a
        figure only the card derives (derived: the bufferbloat grade, whose value is the
        latency increase's) is never looked up there: its change is the medians', unmarked."""
        from wirespeed.report.compare_many_render import percent_text

        if stock is None:
            return ""
        for row in () if derived else self.rows:
            first, second = row.cells[0], row.cells[1]
            if first is None or second is None:
                continue
            if _same(first.summary.median, stock) and _same(second.summary.median, tuned):
                return percent_text(second)
        if stock == 0:
            return ""
        percent = (tuned / stock - 1.0) * 100.0
        sign = "+" if percent >= 0 else "\N{MINUS SIGN}"
        return f"{sign}{abs(percent):.1f} %"


def _same(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def tuned_pairs(report: Report) -> TunedPairs | None:
    """None when the run lacks either variant (tune suggest had nothing to change, or
    the tuned trials were not run)."""
    from wirespeed.analysis.compare_within import compare_run_variants
    from wirespeed.report.ab import record_of

    variants = list(dict.fromkeys(t.outcome.trial.variant for t in report.trials))
    if STOCK not in variants or TUNED not in variants:
        return None
    record = record_of(report)
    ordered = (STOCK, TUNED)
    both = tuple(
        o for name in ordered for o in record.outcomes if o.trial.variant == name
    )  # stock first: the comparison's first column
    comparison = compare_run_variants(dataclasses.replace(record, outcomes=both))
    tuned_outcomes = tuple(o for o in record.outcomes if o.trial.variant == TUNED)
    return TunedPairs(
        stock=STOCK,
        tuned_report=variant_report(report, TUNED),
        tuned_outcomes=tuned_outcomes,
        rows=comparison.rows if comparison is not None else (),
    )


def tuned_words(
    marker: Mapping[str, Any], pairs: TunedPairs | None, parts: Sequence[PartSummary]
) -> tuple[str, ...]:
    """The card's lines on --tuned: what was changed, and the network figures' changes."""
    nothing = str(marker.get("nothing") or "")
    if nothing:
        return (f"not tuned: {nothing}; the card ran once",)
    if pairs is None:
        return ("tuned: no trial ran in the tuned variant",)
    changes = [str(c) for c in marker.get("changes") or ()]
    said = (
        f"tuned: tune suggest's {len(changes)} change(s), journaled and restored after"
        if changes
        else "tuned: what tune suggest proposed for the DUT when the variant started "
        "(its NICs' IRQs, RPS and XPS), journaled and restored after"
    )
    lines = [said, *(f"  {change}" for change in changes)]
    moved = [
        f"{figure.label} {figure.change}"
        for part in parts
        for figure in part.figures[:2]
        if figure.change
    ]
    if moved:
        lines.append("tuned against stock: " + ", ".join(moved))
    return tuple(lines)
