"""Columns within one run: two of its paths (the seeds' WAN against Br0), two of its
variants (IRQ affinity off and on), or all its variants against the first (the report's
A/B table). The table of runs (analysis/compare_many.py) with one run's paths or
variants as columns, so every comparison is judged by the same rule."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from wirespeed.analysis.compare_many import (
    ALL_VARIANTS,
    Groups,
    Labels,
    ManyComparison,
    ManyRow,
    RunColumn,
    compare_columns,
    groups_of,
)
from wirespeed.analysis.stats import ALPHA
from wirespeed.errors import UsageError
from wirespeed.search.measurements import PPS
from wirespeed.store.records import RunRecord


def _require_names(wanted: Iterable[str], known: list[str], what: str, run_id: int) -> None:
    for name in wanted:
        if name not in known:
            # difflib, not plan.problems.did_you_mean: importing the plan package loads
            # pydantic, which `wirespeed compare` has no other use for.
            # Case-blind, since path names are typed as people write them ("wan", "WAN").
            by_lower = {k.lower(): k for k in known}
            close = difflib.get_close_matches(name.lower(), list(by_lower), n=1, cutoff=0.6)
            guess = f" (did you mean {by_lower[close[0]]!r}?)" if close else ""
            raise UsageError(
                f"run {run_id} has no {what} {name!r}{guess}",
                hint=f"its {what}s are {', '.join(known) or 'none'}",
            )


def _column(record: RunRecord, name: str, **where: str) -> RunColumn:
    return RunColumn(
        run_id=record.id,
        title=record.info.title,
        started_at=record.info.started_at,
        devices=(where["path"],) if "path" in where else (),
        kernels=(),
        label=f"run {record.id}: {next(iter(where))} {name}",
        name=name,
        **where,
    )


def _columns(record: RunRecord, by: str, names: tuple[str, str], groups: Groups) -> ManyComparison:
    """Two columns of one run: its groups of path (or variant) A and of B, matched on all
    but that."""
    per_column: list[Groups] = []
    for wanted in names:
        column: Groups = {}
        for (test_id, path, variant, name, labels), found in groups.items():
            if (path if by == "path" else variant) != wanted:
                continue
            key = (test_id, "", variant) if by == "path" else (test_id, path, ALL_VARIANTS)
            column[(*key, name, labels)] = found
        per_column.append(column)
    columns = tuple(_column(record, name, **{by: name}) for name in names)
    title = f"{by.capitalize()} {names[1]} against {names[0]}, run {record.id}"
    return ManyComparison(columns, compare_columns(per_column), title=title)


def compare_paths(record: RunRecord, path_a: str, path_b: str) -> ManyComparison:
    """Two paths of one run (the seeds' WAN against Br0), measurement by measurement."""
    known = list(dict.fromkeys(o.trial.path.name for o in record.outcomes))
    _require_names((path_a, path_b), known, "path", record.id)
    return _columns(record, "path", (path_a, path_b), groups_of(record))


def compare_variants(record: RunRecord, variant_a: str, variant_b: str) -> ManyComparison:
    """Two variants of one run (IRQ affinity off and on), on each path."""
    known = list(dict.fromkeys(o.trial.variant for o in record.outcomes))
    _require_names((variant_a, variant_b), known, "variant", record.id)
    return _columns(record, "variant", (variant_a, variant_b), groups_of(record))


@dataclass(frozen=True)
class VariantsComparison:
    """One run's variants side by side, each against the first (a report's A/B table).
    When the variants differ in MTU, MTU is a row label instead: the seed's table of MTU
    1500 and 512 by default and tuned, where variants with the same settings apart from
    the MTU share a column and every difference is taken at the same MTU."""

    variants: tuple[str, ...]  # the first variant of each column
    rows: tuple[ManyRow, ...]
    by_mtu: bool = False
    alpha: float = ALPHA


def _states(record: RunRecord) -> Mapping[str, Mapping[str, object]]:
    """What each variant set, as the runner recorded it; {} for runs without it."""
    found = record.info.provenance.get("variants")
    if not isinstance(found, Mapping):
        return {}
    return {str(k): v for k, v in found.items() if isinstance(v, Mapping)}


def compare_run_variants(record: RunRecord) -> VariantsComparison | None:
    """Every measurement of the run, a column per variant in run order; None when the
    run has one variant or nothing to compare. Of a search's figures only those in
    packets/s are rows: its bit rates and % of ceiling are the same loads in other
    units, and would repeat every difference three times."""
    variants = list(dict.fromkeys(o.trial.variant for o in record.outcomes))
    if len(variants) < 2:
        return None
    states = _states(record)

    def mtu_of(variant: str) -> int | None:
        mtu = states.get(variant, {}).get("mtu")
        return mtu if isinstance(mtu, int) else None

    by_mtu = len({mtu_of(v) for v in variants}) > 1

    def profile(variant: str) -> str:
        if not by_mtu:
            return variant
        rest = {k: v for k, v in states.get(variant, {}).items() if k != "mtu"}
        return repr(sorted((k, repr(v)) for k, v in rest.items()))

    columns: dict[str, str] = {}  # profile -> its first variant, the column's name
    for variant in variants:
        columns.setdefault(profile(variant), variant)
    links = {o.trial.path.name: o.trial.path.link for o in record.outcomes}
    per_column: dict[str, Groups] = {name: {} for name in columns}
    for (test_id, path, variant, name, labels), found in groups_of(record).items():
        if not _worth_comparing(labels, found[1]):
            continue
        shown = labels
        if by_mtu:
            link = links.get(path)
            mtu = mtu_of(variant) or (link.mtu if link is not None else None)
            shown = (*labels, ("mtu", f"MTU {mtu if mtu is not None else '?'}"))
        key = (test_id, path, ALL_VARIANTS, name, shown)
        per_column[profile(variant)].setdefault(key, found)
    rows = _by_place(compare_columns(list(per_column.values())))
    return VariantsComparison(tuple(columns.values()), rows, by_mtu) if rows else None


def _by_place(rows: tuple[ManyRow, ...]) -> tuple[ManyRow, ...]:
    """Each test's rows together, then each path's, then each MTU's, as the run met
    them; the measurements of one place in their own order."""
    ranks: dict[object, int] = {}

    def rank(value: object) -> int:
        return ranks.setdefault(value, len(ranks))

    def place(row: ManyRow) -> tuple[int, int, int]:
        mtu = dict(row.labels).get("mtu")
        return rank(("test", row.test_id)), rank(("path", row.path)), rank(("mtu", mtu))

    for row in rows:
        place(row)
    return tuple(sorted(rows, key=place))


def _worth_comparing(labels: Labels, unit: str) -> bool:
    return "frame" not in dict(labels) or unit == PPS
