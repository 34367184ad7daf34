"""A benchmark's trials (its options, its measurements) are stored and read back equal,
on both backends; and a traffic trial's measurements are derived from its flows."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from store_backends import BACKENDS, fresh_store
from store_samples import INFO, dual_outcome

from support.bench_samples import NEO2, R4S_419, bench_outcome, device_path, failed_bench
from wirespeed.model import Better, Flow, Measurement
from wirespeed.store import RunStatus, Store


@pytest.fixture(params=BACKENDS)
def db(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with fresh_store(request.param, tmp_path) as url:
        yield url


def test_a_benchmark_outcome_comes_back_equal(db: str) -> None:
    r4s, neo2 = device_path("R4S"), device_path("Neo2")
    outcomes = (
        bench_outcome(r4s, R4S_419),
        bench_outcome(neo2, NEO2, repetition=2),
        failed_bench(r4s, repetition=3),
        dual_outcome(),  # a traffic trial in the same run
    )
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        for outcome in outcomes:
            store.add_outcome(run_id, outcome)
        store.finish_run(run_id, RunStatus.COMPLETE, finished_at=1.0)
    with Store.open(db, read_only=True) as store:
        record = store.load_run(run_id)
    assert record.outcomes == outcomes
    first = record.outcomes[0]
    assert first.trial.test.bench is not None
    assert first.trial.test.bench.option("blocks") == (1024,)
    assert first.result is not None and first.result.protocol is None


def test_a_traffic_result_yields_its_flows_as_measurements() -> None:
    result = dual_outcome().result
    assert result is not None
    measured = {(m.name, m.labels): m for m in result.measured()}
    up = measured[("goodput", (("flow", Flow.UP.value),))]
    assert up.unit == "bit/s" and up.better is Better.HIGHER
    direction = result.direction(Flow.UP)
    assert direction is not None and up.value == direction.goodput_bps
    assert ("goodput", (("flow", "down"),)) in measured


def test_a_measurement_names_its_item() -> None:
    m = Measurement("AES-128-CBC", "B/s", Better.HIGHER, 1.0, (("block", "1 KB"), ("api", "EVP")))
    assert m.item == "AES-128-CBC 1 KB, EVP"


def test_a_forwarding_trial_comes_back_equal_with_its_search_logs(db: str) -> None:
    from support.forwarding_samples import bridge_outcomes, failed_forwarding, nat_outcomes
    from wirespeed.search.log import SEARCH_ARGV0, from_json

    outcomes = (*bridge_outcomes(1, frames=(64, 1518)), *nat_outcomes(1), failed_forwarding())
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        for outcome in outcomes:
            store.add_outcome(run_id, outcome)
        store.finish_run(run_id, RunStatus.COMPLETE, finished_at=1.0)
    with Store.open(db, read_only=True) as store:
        record = store.load_run(run_id)
    assert record.outcomes == outcomes
    first = record.outcomes[0]
    assert first.trial.test.bench is None and first.trial.test.search is not None
    assert first.trial.test.search.option("frame_sizes") == (64, 1518)
    logs = [from_json(raw.text) for raw in first.raw if raw.argv[0] == SEARCH_ARGV0]
    assert [(log.frame, log.direction) for log in logs] == [
        (64, "up"),
        (64, "down"),
        (1518, "up"),
        (1518, "down"),
    ]
    assert first.result is not None and first.result.measurements[0].labels == (
        ("frame", "64 B"),
        ("direction", "up"),
    )


def test_a_traffic_trials_power_measurements_are_stored_beside_its_flows(db: str) -> None:
    traffic = dual_outcome()
    assert traffic.result is not None
    power = (
        Measurement("power idle", "W", Better.LOWER, 2.2, (("source", "meter"),)),
        Measurement("power load", "W", Better.LOWER, 5.0, (("source", "meter"),)),
        Measurement("energy per Mbit", "mJ/Mbit", Better.LOWER, 2.97, (("source", "meter"),)),
    )
    outcome = dataclasses.replace(
        traffic, result=dataclasses.replace(traffic.result, measurements=power)
    )
    with Store.open(db) as store:
        run_id = store.begin_run(INFO)
        store.add_outcome(run_id, outcome)
        store.finish_run(run_id, RunStatus.COMPLETE, finished_at=1.0)
    with Store.open(db, read_only=True) as store:
        (loaded,) = store.load_run(run_id).outcomes
    assert loaded == outcome
    assert loaded.result is not None
    names = [m.name for m in loaded.result.measured()]
    assert names[-3:] == ["power idle", "power load", "energy per Mbit"]
    assert "goodput" in names
