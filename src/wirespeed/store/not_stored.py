"""What a run that could not commit a trial says: which of its trials the store keeps and
which it does not, by key, so that nobody has to guess what `--resume` will measure.

A store fails mid-run when its disk is full, its file system turned read-only, or its
file turned out damaged in pages the open's check does not read (a PostgreSQL server
gone is the other case). Each trial is committed before the next starts, so the trials
kept are exactly those committed before the failure, in the run's order.
"""

from __future__ import annotations

from collections.abc import Sequence

from wirespeed.errors import WirespeedError
from wirespeed.model import Trial

# How many keys a list shows before it names only its first and last: a run of thousands
# of trials must not print thousands of keys, and its trials are in order, so the first
# and the last say exactly which they are.
LISTED_KEYS = 6


def _count(n: int) -> str:
    return f"{n} trial{'' if n == 1 else 's'}"


def _keys(trials: Sequence[Trial]) -> str:
    if len(trials) <= LISTED_KEYS:
        return ", ".join(t.key for t in trials)
    return f"{trials[0].key} ... {trials[-1].key}, in the plan's order"


def commit_failed(
    error: WirespeedError,
    run_id: int,
    *,
    stored: Sequence[Trial],
    lost: Trial,
    lost_fate: str = "its result is lost",
    not_run: Sequence[Trial],
    resumed: bool = False,
) -> WirespeedError:
    """The store's error with what run `run_id` keeps: `stored` were committed by this
    process, `lost` was measured and not committed (`lost_fate`: whether it is kept
    elsewhere, the spool), `not_run` were never started."""
    before = " (besides those stored before it was resumed)" if resumed else ""
    if stored:
        kept = f"run {run_id} keeps the {_count(len(stored))} stored before{before}: "
        kept += _keys(stored)
    else:
        kept = f"run {run_id} keeps no trial of this start{before}"
    missing = f"not stored: {lost.key} (measured, {lost_fate})"
    if not_run:
        missing += f" and the {_count(len(not_run))} not run: {_keys(not_run)}"
    return type(error)(
        f"{error.message}; {kept}; {missing}",
        hint=f"`wirespeed run --resume {run_id}` measures the trials that are not stored, "
        "once the store can be written again",
    )
