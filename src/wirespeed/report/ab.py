"""The A/B table of a run with several variants: per measurement (a flow's goodput, a
probe's round trip, an openssl figure, a search's NDR at 64 B up) each variant's median
and its change against the first variant's, marked as `compare` marks runs. Built from
measurements alone (analysis/compare_within.py), so a new kind appears here unchanged.
"""

from __future__ import annotations

from wirespeed.analysis.compare_within import VariantsComparison, compare_run_variants
from wirespeed.report.content import Report
from wirespeed.report.many_text import LEGEND
from wirespeed.store.records import RunRecord

MTU_LEGEND = (
    " Variants that differ only in MTU share a column: each difference is taken at the same MTU."
)


def record_of(report: Report) -> RunRecord:
    """The run as the analyses take it."""
    return RunRecord(
        id=report.run_id,
        info=report.info,
        status=report.status,
        finished_at=report.finished_at,
        outcomes=tuple(detail.outcome for detail in report.trials),
    )


def build_ab(report: Report) -> VariantsComparison | None:
    """None when the run has one variant."""
    return compare_run_variants(record_of(report))


def ab_title(comparison: VariantsComparison) -> str:
    at = " at each MTU" if comparison.by_mtu else ""
    return f"Variants against {comparison.variants[0]}{at}"


def ab_legend(comparison: VariantsComparison) -> str:
    return LEGEND + (MTU_LEGEND if comparison.by_mtu else "")
