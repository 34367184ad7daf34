"""Soaks side by side, measurement by measurement: the runs' table of `compare`, a soak
per column, the first the baseline.

Every row is a soak measurement (soak/measurements.py) and has the table's one rule: the
round trip's repetitions are the chunks, tested as a run's repetitions are. The outage
rate is a count over a watched time, one observation a soak: its cells carry the exact
test of two Poisson rates instead (given n outages in all, the first soak's share is
binomial with p = its share of the watched time), the only test a single count has.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from wirespeed.analysis.compare_many import (
    ManyComparison,
    ManyRow,
    RunColumn,
    compare_repetitions,
    verdict_of,
)
from wirespeed.analysis.group_tests import PermutationTest
from wirespeed.errors import UsageError
from wirespeed.soak.durations import duration_text
from wirespeed.soak.group import variant_of
from wirespeed.soak.measurements import PER_HOUR, SOAK_TEST, exact_rate_p_value, repetitions
from wirespeed.soak.summary import SoakSummary
from wirespeed.store import Store

__all__ = ["POISSON", "compare_soaks", "soaks_to_compare"]

POISSON = "exact Poisson rates"
LEGEND = (
    "Each cell: the soak's figure, and its change against the first soak's. "
    "The round trip is the median of the soak's chunks (\N{PLUS-MINUS SIGN} the farther end "
    "of its 95 % interval); * the chunks show a difference (permutation test and the "
    "ratio's interval agree), ~ they cannot tell it from noise. The outage rate: * it "
    "differs from the first soak's by the exact test of two Poisson rates, ~ no difference "
    "shown. No mark: one figure a side, no test is possible."
)


def _column(summary: SoakSummary) -> RunColumn:
    header = summary.header
    said = variant_of(header.info) or header.title or "soak"
    return RunColumn(
        run_id=header.id,
        title=summary.sentence,
        started_at=summary.started_at if summary.started_at is not None else header.created_at,
        devices=(),
        kernels=(),
        label=f"soak {header.id}: {said}, {duration_text(summary.watched)} ({header.status})",
    )


def compare_soaks(summaries: Sequence[SoakSummary]) -> ManyComparison:
    """The soaks in the order given, the first the baseline."""
    found = compare_repetitions(
        [_column(summary) for summary in summaries],
        [repetitions(summary) for summary in summaries],
        test_id=SOAK_TEST, test_name="soak", noun="soak", legend=LEGEND,
    )  # fmt: skip
    rows = tuple(
        _rate_tested(row, summaries) if row.name == PER_HOUR else row for row in found.rows
    )
    return dataclasses.replace(found, rows=rows)


def _rate_tested(row: ManyRow, summaries: Sequence[SoakSummary]) -> ManyRow:
    base = summaries[0]
    cells = list(row.cells)
    for index in range(1, len(cells)):
        cell = cells[index]
        if cell is None or cells[0] is None:
            continue
        other = summaries[index]
        p = exact_rate_p_value(len(base.matched), base.watched, len(other.matched), other.watched)
        test = PermutationTest(
            p_value=p,
            observed_difference=cell.summary.median - cells[0].summary.median,
            exact=True,
            permutations=0,
            smallest_p_value=0.0,
            method=POISSON,
        )
        # A count has no interval to agree: the rule's test alone decides.
        verdict = verdict_of(test, None)
        cells[index] = dataclasses.replace(cell, ratio_interval=None, test=test, verdict=verdict)
    return dataclasses.replace(row, cells=tuple(cells))


def soaks_to_compare(
    store: Store, soak_ids: Sequence[int], *, latest: int | None = None, threshold: int | None
) -> list[SoakSummary]:
    """The soaks named, else the latest soak's variants (`latest`'s), else the latest
    two soaks that streamed; UsageError for fewer than two, or a soak not stored.
    `threshold`: outages from this many lost probes in a row, in every soak."""
    from wirespeed.soak import records
    from wirespeed.soak.group import group_of
    from wirespeed.soak.render import summary_of

    if not soak_ids:
        header = records.load_header(store, latest if latest is not None else records.latest(store))
        if header is None:
            raise UsageError("no soak in the store")
        group = group_of(store, header)
        soak_ids = (
            [soak.id for soak in group]
            if len(group) > 1
            else [soak.id for soak in records.list_soaks(store, streamed=True)[-2:]]
        )
    if len(soak_ids) < 2:
        raise UsageError("comparing soaks needs two", hint="wirespeed compare --soaks A B")
    if len(set(soak_ids)) != len(soak_ids):
        raise UsageError("a soak is given twice", hint="give each soak once")
    summaries = []
    for soak_id in soak_ids:
        summary = summary_of(store, soak_id, threshold=threshold)
        if summary is None:
            raise UsageError(f"no soak {soak_id} in the store")
        summaries.append(summary)
    return summaries
