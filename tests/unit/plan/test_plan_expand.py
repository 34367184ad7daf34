"""A plan becomes trials: every test on every path, repetition after repetition."""

from __future__ import annotations

from pathlib import Path

import pytest

from wirespeed.errors import UsageError
from wirespeed.plan import expand, load_plan, parse_plan

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"

PLAN = """
lab: {link: gbe}
paths:
  - {name: WAN, topology: endpoint}
  - {name: Br0, topology: bridge}
repetitions: 2
tests:
  - {id: 1}
  - {id: 2, window: 64K}
  - {id: 3, protocol: udp, rate: 1000M, paths: [Br0]}
"""


def test_every_test_runs_on_every_path_in_every_repetition() -> None:
    plan = load_plan(EXAMPLES / "seed-matrix.yaml")
    trials = expand(plan)
    assert len(trials) == 6 * 2 * 1
    assert len(expand(plan, repetitions=3)) == 6 * 2 * 3
    assert len({trial.key for trial in expand(plan, repetitions=3)}) == 36


def test_trials_are_path_major_within_a_repetition() -> None:
    keys = [trial.key for trial in expand(parse_plan(PLAN))]
    assert keys == [
        "1/WAN/default/1",
        "2/WAN/default/1",
        "1/Br0/default/1",
        "2/Br0/default/1",
        "3/Br0/default/1",
        "1/WAN/default/2",
        "2/WAN/default/2",
        "1/Br0/default/2",
        "2/Br0/default/2",
        "3/Br0/default/2",
    ]


def test_duration_overrides_every_test_for_a_quick_look() -> None:
    plan = load_plan(EXAMPLES / "real-devices.yaml")
    assert {trial.test.spec.duration for trial in expand(plan)} == {120}
    quick = expand(plan, duration=2)
    assert {trial.test.spec.duration for trial in quick} == {2.0}
    # Only the duration changes.
    assert [t.test.spec.window for t in quick] == [t.test.spec.window for t in expand(plan)]


def test_only_keeps_the_chosen_tests_in_plan_order() -> None:
    plan = parse_plan(PLAN)
    keys = [trial.key for trial in expand(plan, only=["3", "1"], repetitions=1)]
    assert keys == ["1/WAN/default/1", "1/Br0/default/1", "3/Br0/default/1"]


def test_only_with_an_unknown_id_is_a_usage_error_with_a_suggestion() -> None:
    plan = load_plan(EXAMPLES / "seed-matrix.yaml")
    with pytest.raises(UsageError, match=r"no test with id '11' .* \(did you mean '1'\?\)"):
        expand(plan, only=["11"])


@pytest.mark.parametrize("duration", [0, -1, float("nan"), float("inf")])
def test_a_duration_that_cannot_be_run_is_a_usage_error(duration: float) -> None:
    with pytest.raises(UsageError):
        expand(parse_plan(PLAN), duration=duration)


@pytest.mark.parametrize("repetitions", [0, -2])
def test_repetitions_must_be_positive(repetitions: int) -> None:
    with pytest.raises(UsageError):
        expand(parse_plan(PLAN), repetitions=repetitions)


def test_units_are_si_for_rates_and_binary_for_sizes() -> None:
    plan = parse_plan(
        """
        lab: {}
        paths: [{name: P, topology: router}]
        tests:
          - {id: a, protocol: udp, rate: 1000M, length: 1470}
          - {id: b, window: 64K, rate: 2.5G}
          - {id: c, window: 128KB, rate: 300mbit, length: 1M}
          - {id: d, window: 131072, rate: 94100000}
        """
    )
    specs = {test.id: test.spec for test in plan.tests}
    assert specs["a"].rate == 1_000_000_000  # not iperf2's 1000 x 2^20
    assert specs["a"].length == 1470
    assert specs["b"].window == 65536
    assert specs["b"].rate == 2_500_000_000
    assert specs["c"].window == 131072
    assert specs["c"].rate == 300_000_000
    assert specs["c"].length == 2**20
    assert (specs["d"].window, specs["d"].rate) == (131072, 94_100_000)


def test_defaults_fill_what_a_test_leaves_out_and_null_restores_the_tools_default() -> None:
    plan = parse_plan(
        """
        lab: {}
        paths: [{name: P, topology: router}]
        defaults: {duration: 30, window: 64K, tool: iperf3}
        tests:
          - {id: 1}
          - {id: 2, duration: 5, window: null}
        """
    )
    first, second = plan.tests
    assert (first.spec.duration, first.spec.window, first.tool) == (30, 65536, "iperf3")
    assert (second.spec.duration, second.spec.window) == (5, None)


def test_a_test_without_a_name_is_named_after_what_it_does() -> None:
    plan = parse_plan(
        "lab: {}\npaths: [{name: P, topology: bridge}]\n"
        "tests: [{id: 4, direction: dual, parallel: 2}, {id: 5, protocol: udp, rate: 1000M}]\n"
    )
    assert [test.name for test in plan.tests] == [
        "TCP, 2 streams, dual",
        "UDP 1.000 Gbit/s",
    ]
