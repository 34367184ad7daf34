"""The variants of a run side by side in what its benchmarks and searches measured: per
measurement (an openssl figure, a search's NDR at 64 B up) each variant's median and its
change against the first variant's, marked as `compare` marks runs.

The traffic tests' goodput has its own A/B table (report/ab.py); this is the same
comparison for everything else a run measures, built from measurements alone
(analysis/compare_many.py), so a new kind of benchmark appears here without a change.
"""

from __future__ import annotations

from wirespeed.analysis.compare_many import VariantsComparison, compare_run_variants
from wirespeed.report.ab import record_of
from wirespeed.report.model import Report

MEASURED_AB_LEGEND = (
    "Each cell: the median of the variant's repetitions (\N{PLUS-MINUS SIGN} the farther end "
    "of its 95 % interval), and its change against the first variant's. "
    "* the repetitions show a difference (permutation test and the ratio's interval agree); "
    "~ not significant: the repetitions cannot tell it from noise; "
    "no mark: one side has a single repetition, no test is possible."
)


def build_measured_ab(report: Report) -> VariantsComparison | None:
    """None when the run has one variant, or its variants measured only goodput."""
    return compare_run_variants(record_of(report))


def measured_ab_title(comparison: VariantsComparison) -> str:
    return f"Variants against {comparison.variants[0]}: benchmarks and searches"
