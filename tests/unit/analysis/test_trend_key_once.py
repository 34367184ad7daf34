"""`trend` works out a trial's comparison key once for all its measurements (a site's
trend pages read thousands of runs of many measurements each), with the same series as
a key worked out for each measurement; a group's summary is worked out once however
often a page reads it."""

from __future__ import annotations

from typing import Any

import pytest

from support.trend_samples import labelled
from wirespeed.analysis import comparison_key, stats
from wirespeed.analysis import trend as trend_module
from wirespeed.analysis.comparison_key import series_key
from wirespeed.model import TrialStatus


def runs() -> list[Any]:
    return [labelled(1, "23.05.2", 1.0), labelled(2, "23.05.3", 0.9), labelled(3, "23.05.3", 0.91)]


def test_a_trials_key_is_worked_out_once_for_all_its_measurements(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    records = runs()
    expected = {
        series_key(o.trial, m, o.result.tool_version)
        for r in records
        for o in r.outcomes
        if o.status is TrialStatus.OK and o.result is not None
        for m in o.result.measured()
    }
    trials = sum(
        1 for r in records for o in r.outcomes if o.result and len(o.result.measured()) > 0
    )
    assert len(expected) >= 2  # more than one measurement a trial: a key to share
    keyed: list[object] = []
    real = comparison_key.trial_key

    def counted(*args: Any) -> Any:
        keyed.append(args)
        return real(*args)

    monkeypatch.setattr(comparison_key, "trial_key", counted)
    found = trend_module.trend(records, by="firmware")
    assert {s.key for s in found.series} == expected
    assert len(keyed) == trials


def test_a_groups_summary_is_worked_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    (series, *_) = trend_module.trend(runs(), by="firmware").series
    group = series.groups[-1]
    made: list[object] = []
    real = stats.summarize

    def counted(values: Any) -> Any:
        made.append(values)
        return real(values)

    monkeypatch.setattr(trend_module, "summarize", counted)
    first = group.summary
    assert group.summary is first and group.summary.median == first.median
    assert len(made) <= 1  # none where the trend's judgement already made it
