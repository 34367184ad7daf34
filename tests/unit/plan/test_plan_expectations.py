"""`expect:` in a test: what it must reach, and every mistake in it at its file:line:col."""

from __future__ import annotations

import textwrap

import pytest

from wirespeed.expectations import Comparison, Measure
from wirespeed.model import Flow
from wirespeed.plan import PlanError, parse_plan

LAB = """
lab: {link: fe}
paths:
  - {name: WAN, topology: endpoint}
  - {name: Br0, topology: bridge}
"""


def problems_of(text: str) -> list[str]:
    with pytest.raises(PlanError) as caught:
        parse_plan(textwrap.dedent(text), source="plan.yaml")
    return [f"{p.line}:{p.column}: {p.message}" for p in caught.value.problems]


def test_seed_004s_300_mbit_with_nat_reads_as_goodput_at_least_300_million_bit_s() -> None:
    plan = parse_plan(LAB + 'tests:\n  - {id: 4, expect: {goodput: ">= 300M"}}\n')
    (expectation,) = plan.expectations_for("4", "WAN", "default")
    assert expectation.measure is Measure.GOODPUT
    assert expectation.comparison is Comparison.AT_LEAST
    assert expectation.value == 300e6  # SI, as the plan's rates
    assert expectation.flow is None  # every flow of the test
    assert expectation.text == "goodput >= 300.0 Mbit/s"
    assert plan.expectations_for("4", "Br0", "default") == (expectation,)


def test_a_path_and_a_variant_replace_the_tests_own_expectation_of_that_measurement() -> None:
    plan = parse_plan(
        LAB
        + textwrap.dedent("""
        variants: [{name: base}, {name: no-gro, offloads: {gro: off}}]
        tests:
          - id: 1
            expect:
              goodput: ">= 50M"
              retransmits: "<= 2k"
              paths: {WAN: {goodput: "> 90 Mbit/s"}}
              variants: {no-gro: {goodput: ">= 30M"}}
        """)
    )

    def goodput(path: str, variant: str) -> float:
        chosen = plan.expectations_for("1", path, variant)
        assert [e.measure for e in chosen] == [Measure.GOODPUT, Measure.RETRANSMITS]
        return chosen[0].value

    assert goodput("Br0", "base") == 50e6
    assert goodput("WAN", "base") == 90e6
    assert goodput("WAN", "no-gro") == 30e6  # the variant's entry wins over the path's
    assert plan.expectations_for("1", "WAN", "base")[1].value == 2000


def test_udp_loss_jitter_and_one_flow_of_a_bidir_test() -> None:
    plan = parse_plan(
        LAB + "tests:\n  - {id: 5, protocol: udp, rate: 90M, direction: bidir, expect: "
        '{goodput: {down: ">= 80M"}, loss: "< 0.5 %", jitter: "<= 500 us"}}\n'
    )
    goodput, loss, jitter = plan.expectations_for("5", "WAN", "default")
    assert (goodput.flow, goodput.value) == (Flow.DOWN, 80e6)
    assert (loss.comparison, loss.value) == (Comparison.BELOW, 0.5)
    assert jitter.value == pytest.approx(0.5)  # milliseconds


def test_a_plan_without_expect_expects_nothing() -> None:
    plan = parse_plan(LAB + "tests:\n  - {id: 1}\n")
    assert plan.expectations == {}
    assert plan.expectations_for("1", "WAN", "default") == ()


def test_every_mistake_in_expect_is_reported_at_its_place() -> None:
    assert problems_of(
        LAB
        + """
        variants: [{name: base}]
        defaults: {expect: {goodput: ">= 1M"}}
        tests:
          - id: 1
            expect:
              goodptu: ">= 50M"
              loss: "< 1 %"
              goodput: {down: ">= 1M", sideways: ">= 1M"}
              paths: {WAM: {goodput: ">= 60M"}}
              variants: {gro-off: {goodput: "> 1G"}}
          - id: 2
            protocol: udp
            rate: 1M
            paths: [Br0]
            expect: {goodput: 300M, loss: "<= 200 %", retransmits: "< 4", paths: {WAN: {}}}
          - {id: 3, expect: {goodput: "=> 5M", retransmits: 2}}
          - {id: 4, expect: ">= 5M"}
        """.replace("\n        ", "\n")
    ) == [
        "8:12: expect: belongs to each test, not to defaults",
        "12:7: unknown measurement 'goodptu' (did you mean 'goodput'?)",
        "13:7: test '1' is TCP: loss is measured for UDP only",
        "14:17: test '1' has no down flow (direction up: up only)",
        "14:32: goodput: 'sideways' is not a flow",
        "15:15: expect.paths: unknown path 'WAM' (did you mean 'WAN'?)",
        "16:18: expect.variants: unknown variant 'gro-off'",
        "21:23: goodput: '300M' is not a comparison: write >=, >, <= or < and a value, "
        'such as ">= 300M"',
        "21:35: loss: '200 %' is above 100 %",
        "21:47: test '2' is UDP: retransmits is measured for TCP only",
        "21:75: test '2' does not run on path 'WAN'",
        "22:31: goodput: '=> 5M' is not a comparison: write >=, >, <= or < and a value, "
        'such as ">= 300M"',
        '22:53: retransmits: expected a comparison such as "<= 100", got 2 (write >=, >, <= '
        "or < before the value, and quote it)",
        '23:21: expect: expected a mapping of measurements such as {goodput: ">= 300M"}',
    ]


def test_an_unknown_measurement_lists_the_ones_there_are() -> None:
    with pytest.raises(PlanError) as caught:
        parse_plan(LAB + 'tests:\n  - {id: 1, expect: {throughput: ">= 1M"}}\n', source="p.yaml")
    (problem,) = caught.value.problems
    assert problem.message == "unknown measurement 'throughput'"
    assert problem.hint is not None
    assert problem.hint.startswith(
        "test '1' (iperf2) measures goodput, loss, jitter or retransmits"
    )


def test_an_unquoted_comparison_is_a_yaml_error_with_a_hint_to_quote_it() -> None:
    with pytest.raises(PlanError) as caught:
        parse_plan(LAB + "tests:\n  - id: 1\n    expect:\n      goodput: >= 300M\n", "p.yaml")
    (problem,) = caught.value.problems
    assert (problem.line, problem.column) == (9, 17)
    assert problem.hint == 'quote a comparison that starts with ">": goodput: ">= 300M"'


@pytest.mark.parametrize(
    ("written", "message"),
    [
        (">= 20T", "goodput: '20T' is above 10 Tbit/s"),
        (">= " + "9" * 400, "is above 10 Tbit/s"),
        (">= 0", "goodput: a rate must be at least 1 bit/s, got '0'"),
        (">=", "is not a comparison"),
        (">= 5 furlongs", "goodput: not a rate: '5 furlongs'"),
    ],
)
def test_goodput_values_outside_what_a_link_can_carry_are_refused(
    written: str, message: str
) -> None:
    with pytest.raises(PlanError) as caught:
        parse_plan(LAB + f"tests:\n  - {{id: 1, expect: {{goodput: '{written}'}}}}\n")
    assert message in caught.value.problems[0].message
