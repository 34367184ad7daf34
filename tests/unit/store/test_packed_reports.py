"""A run loaded with its interval series left packed reports exactly as one loaded whole."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from migration_samples import RUNS
from store_backends import BACKENDS, fresh_store
from store_samples import dual_outcome

from wirespeed.model import Interval
from wirespeed.report import build_report, render_json, run_json
from wirespeed.report.html import render_html
from wirespeed.report.html_data import report_data
from wirespeed.store import Store


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with fresh_store(request.param, tmp_path) as url:
        with Store.open(url) as store:
            for run in RUNS:
                run_id = store.begin_run(run.info)
                for outcome in run.outcomes:
                    store.add_outcome(run_id, outcome)
        yield url


def test_a_packed_load_is_a_bare_one_with_the_series_beside_it(db: str) -> None:
    with Store.open(db) as store:
        full = store.load_run(1)
        bare = store.load_run(1, intervals=False)
        packed = store.load_run(1, intervals="packed")
    assert packed.outcomes == bare.outcomes
    assert full.packed is None and bare.packed is None
    assert packed.packed is not None
    assert len(packed.packed) == len(packed.outcomes)
    for outcome, series in zip(full.outcomes, packed.packed, strict=True):
        directions = () if outcome.result is None else outcome.result.directions
        assert [len(streams) for _, streams in series] == [len(d.streams) for d in directions]
        # An empty series is kept as nothing at all.
        assert [total is None for total, _ in series] == [not d.intervals for d in directions]


def test_every_report_of_a_packed_load_is_the_same(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Store.open(db) as store:
        full = build_report(store.load_run(1))
        packed = build_report(store.load_run(1, intervals="packed"))
    assert packed.packed is not None
    assert render_json(packed) == render_json(full)
    assert report_data(packed) == report_data(full)
    assert render_html(packed) == render_html(full)
    monkeypatch.setattr(run_json, "INDENT_UP_TO_TRIALS", 0)  # the compact writer
    assert render_json(packed) == render_json(full)


def test_packed_figures_that_are_not_numbers_fail_as_json_does(
    db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_json, "INDENT_UP_TO_TRIALS", 0)
    huge = (
        Interval(start=0.0, end=1.0, bytes=1, bits_per_second=1.7e308),
        Interval(start=1.0, end=2.0, bytes=1, bits_per_second=1.7e308),
    )
    for series, fails in ((huge, False), ((huge[0], replace(huge[1], end=math.inf)), True)):
        outcome = dual_outcome()
        assert outcome.result is not None
        up = replace(outcome.result.directions[0], intervals=series)
        outcome = replace(
            outcome, result=replace(outcome.result, directions=(up, *outcome.result.directions[1:]))
        )
        with Store.open(db) as store:
            run_id = store.begin_run(RUNS[0].info)
            store.add_outcome(run_id, outcome)
            full = build_report(store.load_run(run_id))
            packed = build_report(store.load_run(run_id, intervals="packed"))
        if fails:
            for report in (full, packed):
                with pytest.raises(ValueError, match="not JSON compliant"):
                    render_json(report)
        else:  # the sum of its rates overflows: the text is searched, and is fine
            assert render_json(packed) == render_json(full)
